// Other MCP servers behind the gate, as the companion runs them (issue 20):
// their entries and reviews in the data dir, each one started on first use
// with its secrets from the key store (the redactor learns each before the
// server can echo it), and the tool gate every call to one of their tools
// goes through — the same approval queue and audit as API calls.
import type { DataPaths } from '../config/dataDir.ts';
import type { Logger } from '../log/logger.ts';
import type { RedactionHolder } from '../log/redactionHolder.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import type { ApprovalHook } from '../approvals/types.ts';
import type { ApiCallRecord } from '../audit/types.ts';
import type { EventHub } from '../control/eventHub.ts';
import type { RunTools } from '../execute/runClient.ts';
import { ServerStore } from '../upstream/serverStore.ts';
import { PinStore } from '../upstream/toolPins.ts';
import { UpstreamServers } from '../upstream/upstreamServers.ts';
import { serverQuestions } from '../upstream/serverQuestions.ts';
import { serverRefusal, type ManagedPolicy } from '../config/managedPolicy.ts';
import type { PolicyRecorder } from './policyAudit.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { AirlockError } from '../util/errors.ts';
import { launchServer } from '../upstream/serverLauncher.ts';
import { createToolGate, type ToolGate } from '../upstream/toolGate.ts';

export interface UpstreamParts {
  /** servers.json: the servers a person added (made once here; the control methods and the tools share it). */
  entries: ServerStore;
  /** What a person accepted of each server's tools. */
  reviews: PinStore;
  servers: UpstreamServers;
  gate: ToolGate;
  /** What a run may reach of them: the accepted tools of every enabled server, through the gate. */
  runTools(): RunTools;
}

export function createUpstream(deps: {
  paths: DataPaths;
  store: Pick<SecretStore, 'get' | 'set'>;
  redaction: RedactionHolder;
  logger: Logger;
  hub: EventHub;
  approvals: ApprovalHook;
  audit: { recordApiCall(record: ApiCallRecord): unknown };
  killSwitch(): boolean;
  /** The per-client rate the API calls share (RateLimiter.take). */
  rateLimit(callerKey: string): boolean;
  /** The largest message to or from another server, in bytes (a live setting). */
  maxMessageBytes(): number;
  /** The organisation's managed policy as it is now: which servers may be started. */
  policy?(): ManagedPolicy | undefined;
  /** Where what the policy refused is audited. */
  policyEvents?: Pick<PolicyRecorder, 'once'>;
  /** Where each call's span and counts go (telemetry on). */
  telemetry?: Telemetry;
}): UpstreamParts {
  const log = deps.logger.child('servers');
  const entries = new ServerStore(deps.paths.servers);
  const pins = new PinStore(deps.paths.serverReviews);
  // A server's questions are put to the person in Airlock's prompt, with the call they came with.
  const questions = serverQuestions({ approvals: deps.approvals, logger: log, redact: (text) => deps.redaction.redact(text) });
  const servers = new UpstreamServers({
    entries: () => entries.list(),
    pins,
    launch: (name, entry, onToolsChanged, authorize) => {
      // The organisation's policy, at every start: a server it refuses is never started (its state says why).
      const refused = serverRefusal(deps.policy?.(), { name, entry });
      if (refused) {
        deps.policyEvents?.once({ action: `start MCP server ${name}`, by: 'airlock', why: refused });
        return Promise.reject(new AirlockError('denied', refused));
      }
      return launchServer(name, entry, {
        onToolsChanged,
        ...(authorize ? { authorize } : {}),
        keys: deps.store,
        onSecret: (value) => deps.redaction.add(value),
        log: (line) => log.info(line),
        redact: (text) => deps.redaction.redact(text),
        onMissingSecret: (variable) => log.warn(`MCP server ${name} has no ${variable} yet (airlock servers secret ${name} ${variable}); started without it`),
        maxMessageBytes: deps.maxMessageBytes(),
        elicit: (message, schema) => questions.ask(name, message, schema),
      });
    },
    logger: log,
    onChange: () => deps.hub.publish({ type: 'servers-changed' }),
  });
  const gate = createToolGate({
    servers,
    approvals: deps.approvals,
    redactor: () => deps.redaction.redactor,
    onApiCall: (record) => deps.audit.recordApiCall(record) as void,
    logger: deps.logger.child('gate'),
    killSwitch: deps.killSwitch,
    askFloor: () => deps.policy?.()?.approvals.ask,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
    rateLimit: deps.rateLimit,
    maxArgumentBytes: deps.maxMessageBytes,
    questions,
  });
  return {
    entries,
    reviews: pins,
    servers,
    gate,
    runTools: () => {
      const accepted = servers.acceptedTools();
      const awaiting = entries
        .list()
        .filter(({ name, entry }) => entry.enabled && !accepted.some((a) => a.name === name))
        .map(({ name }) => name);
      return { servers: accepted, awaiting, call: (call, run) => gate.call(call, run), redactor: async () => deps.redaction.redactor };
    },
  };
}
