// The whole companion, headless: the API core plus everything that makes
// execute safe and observable — secret store, audit store, approval broker,
// egress gate, sandbox engine, caps, the MCP server factory, the control API
// handlers and their event stream. `airlock serve`, `airlock stdio` and the
// Electron main process all build exactly this; they differ only in the
// transports they put in front of it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AirlockError } from '../errors.ts';
import type { Settings, ResolvedSettings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import { createCore, type AirlockCore } from './airlockCore.ts';
import { RedactionHolder } from './redactionHolder.ts';
import { createEngine } from './sandboxEngines.ts';
import { checkEngineEgress } from '../sandbox/engineMatrix.ts';
import type { SandboxEngine } from '../sandbox/engine.ts';
import { createEgressGate, type EgressGate } from '../egress/egressGate.ts';
import { startGateProxy, type GateProxy } from '../egress/gateProxy.ts';
import { ExecutionCaps, RateLimiter } from '../execute/caps.ts';
import { createExecuteService, type ExecuteOutcome, type ExecuteService } from '../execute/executeService.ts';
import { ApprovalBroker } from '../approvals/approvalBroker.ts';
import { openAuditStore, type AuditStore } from '../audit/auditStore.ts';
import type { AuditEntry } from '../audit/types.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import { createKeychainStore } from '../secrets/keychainStore.ts';
import { createFileStore, fileStoreBanner } from '../secrets/fileStore.ts';
import { resolveCredential, type ResolvedCredential } from '../secrets/resolveCredential.ts';
import { fingerprint } from '../secrets/fingerprint.ts';
import { createMcpServer } from '../mcp/createMcpServer.ts';
import { registerExecute } from '../mcp/executeTool.ts';
import { registerDiagnostics } from '../mcp/diagnosticsTools.ts';
import { EventHub } from '../control/eventHub.ts';
import type { ControlEvent, ControlHandlers } from '../control/contract.ts';
import { createControlHandlers, toAuditRecord } from './controlHandlers.ts';

export type CompanionMode = 'serve' | 'stdio';

export interface CompanionOptions {
  resolved: ResolvedSettings;
  logger: Logger;
  logBuffer: LogBuffer;
  mode: CompanionMode;
  env?: Record<string, string | undefined>;
  /** Tests inject a memory store; otherwise the keychain or the opted-in file store. */
  secretStore?: SecretStore;
  /** The logger's redactor hook, so log lines lose the key too. */
  redaction?: RedactionHolder;
}

export interface Companion {
  readonly core: AirlockCore;
  readonly settings: Settings;
  readonly gate: EgressGate;
  readonly engine: SandboxEngine;
  readonly broker: ApprovalBroker;
  readonly audit: AuditStore;
  readonly secrets: SecretStore;
  readonly caps: ExecutionCaps;
  readonly execute: ExecuteService;
  readonly hub: EventHub;
  readonly handlers: ControlHandlers;
  readonly egress: string;
  readonly banner: string | undefined;
  readonly boundary: string;
  readonly redact: (text: string) => string;
  createMcpServer(transport: 'stdio' | 'http'): McpServer;
  mcpSessions(): number;
  setMcpSessionCounter(count: () => number): void;
  replay(since: number | undefined): ControlEvent[];
  close(): Promise<void>;
}

const CREDENTIAL_TTL_MS = 10_000;

export async function createCompanion(options: CompanionOptions): Promise<Companion> {
  const { logger, logBuffer, mode } = options;
  const settings = { ...options.resolved.settings };
  const env = options.env ?? process.env;
  const redaction = options.redaction ?? new RedactionHolder();

  const matrix = checkEngineEgress(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  if (!matrix.ok) throw new AirlockError('usage', matrix.reason);
  if (matrix.banner) logger.warn(matrix.banner);

  const phases: string[] = [];
  let phaseStart = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phases.push(`${name} ${(now - phaseStart).toFixed(0)} ms`);
    phaseStart = now;
  };
  const core = await createCore({ settings, logger, logBuffer });
  phase('api');
  const closers: (() => Promise<void> | void)[] = [() => core.close()];
  try {
    const profile = core.api.profile;

    // Secrets: the keychain, or the explicitly opted-in file store; never a silent fallback.
    const secrets = options.secretStore ?? (settings.secretStore === 'file' ? createFileStore({ path: core.paths.secretsFile }) : createKeychainStore());
    if (secrets.kind === 'file') logger.warn(fileStoreBanner(core.paths.secretsFile));
    const probe = await secrets.probe();
    const keychainState = probe.available
      ? { available: true, detail: probe.detail }
      : { available: false, detail: `${secrets.kind} unavailable: ${probe.reason}` };
    if (!probe.available) logger.warn(keychainState.detail);

    let cached: { value: ResolvedCredential | undefined; until: number } | undefined;
    let credentialState: { source: 'keychain' | 'file' | 'env' | 'none'; fingerprint?: string } = { source: 'none' };
    const getCredential = async (): Promise<string | undefined> => {
      if (core.api.auth.type === 'none') return undefined;
      if (cached && cached.until > Date.now()) return cached.value?.secret;
      const value = await resolveCredential({ store: secrets, profile: profile.name, env });
      if (value?.storeUnavailable && !cached) logger.warn(`${value.storeUnavailable}; using AIRLOCK_API_KEY`);
      cached = { value, until: Date.now() + CREDENTIAL_TTL_MS };
      redaction.add(value?.secret);
      credentialState = value ? { source: value.source === 'memory' ? 'keychain' : value.source, fingerprint: fingerprint(value.secret) } : { source: 'none' };
      return value?.secret;
    };
    phase('secret store');
    await getCredential().catch((error) => logger.warn(`API key for profile ${profile.name}: ${(error as AirlockError).line ?? (error as Error).message}`));
    if (core.api.auth.type !== 'none' && credentialState.source === 'none') {
      logger.warn(`no API key for profile ${profile.name}: set one with \`airlock keys set ${profile.name}\` or AIRLOCK_API_KEY (calls go out without a key)`);
    }

    phase('credential');
    const hub = new EventHub();
    const audit = openAuditStore({
      file: core.paths.audit,
      redact: redaction.redact,
      logger: logger.child('audit'),
      onRecord: (entry: AuditEntry) => hub.publish({ type: 'audit', record: toAuditRecord(entry) }),
    });
    closers.push(() => audit.close());
    if (settings.auditRetentionDays > 0) {
      const pruned = audit.prune({ olderThanDays: settings.auditRetentionDays });
      if (pruned.pruned > 0) logger.info(`audit: pruned ${pruned.pruned} records older than ${settings.auditRetentionDays} days`);
    }

    phase('audit');
    const broker = new ApprovalBroker({ timeoutMs: settings.approvalTimeoutMs, approversAvailable: () => mode === 'serve', logger: logger.child('approvals') });
    const rate = new RateLimiter(settings.rateLimit, settings.rateBurst);
    const gate = createEgressGate({
      api: core.api,
      getCredential,
      approvals: broker,
      rateLimit: (key) => rate.take(key),
      onApiCall: (record) => {
        audit.recordApiCall(record);
      },
      logger: logger.child('gate'),
    });

    let proxy: GateProxy | undefined;
    const engine = await createEngine({
      settings,
      egress: matrix.egress,
      paths: core.paths,
      logger,
      proxy: async () => (proxy ??= await startGateProxy({ logger: logger.child('gate-proxy') })),
    });
    closers.push(
      () => engine.close(),
      () => proxy?.close(),
    );
    phase('engine');

    const caps = new ExecutionCaps({
      maxConcurrent: settings.maxConcurrent,
      queueSize: settings.queueSize,
      queueTimeoutMs: settings.queueTimeoutMs,
      perCallerConcurrent: settings.perCallerConcurrent,
    });
    const limits = { timeoutMs: settings.timeoutMs, memoryBytes: settings.memoryMb * 1024 * 1024, outputBytes: settings.outputKb * 1024 };
    const execute = createExecuteService({
      engine,
      gate,
      catalogue: core.api.catalogue,
      clientNames: core.clientNames,
      caps,
      limits,
      killSwitch: () => settings.killSwitch,
      logger,
      logBuffer,
      onRunEnd: (runId) => broker.endRun(runId),
    });

    const egressText = {
      executor:
        settings.engine === 'quickjs'
          ? 'the only way out is the API client (QuickJS has no network)'
          : `the engine lets the sandbox reach only the gate (127.0.0.1:<gate port>)`,
      wrapper: 'the srt wrapper lets the sandbox reach only the gate',
      none: 'the network is NOT bounded: sandboxed code can reach any host this machine can (the API key still never enters the sandbox)',
    }[matrix.egress];
    const boundary = [
      `Sandbox: ${engine.describeBoundary()} Network: ${egressText}; every API call goes through Airlock's egress gate to ${core.api.baseUrl} only, which adds the API key outside the sandbox.`,
      `Caps: ${settings.timeoutMs / 1000} s wall clock per run (time waiting for a person is not counted), ${settings.memoryMb} MB memory, ${settings.outputKb} KiB of output (result + console), ${settings.maxConcurrent} runs at once (${settings.perCallerConcurrent} per client), ${settings.rateLimit > 0 ? `${settings.rateLimit} API calls/s per client` : 'no API rate limit'}.`,
      `Mutations (${profile.readOnly ? 'refused: the profile is read-only' : `policy "${profile.policy}"`}): ${profile.readOnly ? 'none reach the API.' : profile.policy === 'ask' ? 'each waits for a person to approve it, up to ' + Math.round(settings.approvalTimeoutMs / 1000) + ' s; no answer is a denial.' : profile.policy === 'deny' ? 'all are refused.' : 'allowed without asking.'}`,
    ].join('\n');

    let sessionCounter = () => 0;
    const toolDetails = new WeakMap<object, ExecuteOutcome>();
    const statusSource = {
      get credential() {
        return credentialState;
      },
      keychain: keychainState,
      invalidateCredential() {
        cached = undefined;
        void getCredential().catch(() => undefined);
      },
    };

    const companion: Companion = {
      core,
      settings,
      gate,
      engine,
      broker,
      audit,
      secrets,
      caps,
      execute,
      hub,
      handlers: undefined as unknown as ControlHandlers,
      egress: matrix.egress,
      banner: matrix.banner,
      boundary,
      redact: redaction.redact,
      createMcpServer(transport) {
        return createMcpServer({
          core,
          hasExecute: true,
          onToolCall: (call) => {
            const details = call.result ? toolDetails.get(call.result) : undefined;
            audit.recordToolCall({
              time: call.startedAt,
              ...(call.client?.name ? { clientName: call.client.name } : {}),
              ...(call.client?.version ? { clientVersion: call.client.version } : {}),
              transport,
              ...(call.sessionId ? { sessionId: call.sessionId } : {}),
              tool: call.tool,
              outcome: details?.outcome ?? (call.error ? 'error' : call.result?.isError ? 'error' : 'ok'),
              durationMs: call.durationMs,
              input: call.tool === 'execute' ? String((call.args as { code?: unknown })?.code ?? '') : call.args,
              bytesOut: call.bytesOut,
              ...(call.error ? { error: call.error } : details?.isError ? { error: details.text.slice(0, 1000) } : {}),
              ...(credentialState.fingerprint ? { credentialFingerprint: credentialState.fingerprint } : {}),
              profile: profile.name,
              ...(details ? { runId: details.runId } : {}),
            });
          },
          tools: [
            (server) =>
              registerExecute(server, {
                service: execute,
                apiTitle: core.api.catalogue.title,
                clientNames: core.clientNames,
                boundary,
                transport,
                onExecuted: (_caller, outcome, _code, result) => {
                  toolDetails.set(result, outcome);
                },
              }),
            ...(settings.diagnosticsTools
              ? [
                  (server: McpServer) =>
                    registerDiagnostics(server, {
                      logBuffer,
                      redact: redaction.redact,
                      health: () => healthOf(companion, sessionCounter()),
                      config: () => configOf(companion, credentialState),
                    }),
                ]
              : []),
          ],
        });
      },
      mcpSessions: () => sessionCounter(),
      setMcpSessionCounter(count) {
        sessionCounter = count;
      },
      replay(since) {
        const logs = logBuffer.query(since === undefined ? { limit: 500 } : { since }).map((entry) => ({ type: 'log' as const, entry }));
        const approvals = broker.list().map((approval) => ({
          type: 'approval-requested' as const,
          approval: { ...approval, secondsLeft: (Date.parse(approval.expiresAt) - Date.now()) / 1000 },
        }));
        return [...logs, ...approvals];
      },
      async close() {
        for (const close of closers.reverse()) {
          try {
            await close();
          } catch (error) {
            logger.error(`closing: ${(error as Error).message}`);
          }
        }
      },
    };
    (companion as { handlers: ControlHandlers }).handlers = createControlHandlers(companion, { resolved: options.resolved, statusSource });

    logBuffer.subscribe((batch) => {
      for (const entry of batch) hub.publish({ type: 'log', entry });
    });
    broker.subscribe((e) => {
      if (e.type === 'approval-requested')
        hub.publish({ type: 'approval-requested', approval: { ...e.approval, secondsLeft: (Date.parse(e.approval.expiresAt) - Date.now()) / 1000 } });
      else hub.publish({ type: 'approval-decided', id: e.id, decision: e.decision });
    });
    logger.info(`engine ${settings.engine}, egress ${matrix.egress}; mutations: ${profile.readOnly ? 'read-only profile' : profile.policy}`);
    logger.debug(`startup: ${phases.join(', ')}`);
    return companion;
  } catch (error) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw error;
  }
}

export function healthOf(c: Companion, sessions: number): Record<string, unknown> {
  const mem = process.memoryUsage();
  const caps = c.caps.stats();
  return {
    status: 'ok',
    version: c.core.version,
    uptimeSeconds: Math.round((Date.now() - c.core.startedAt.getTime()) / 1000),
    memory: { rssMb: Math.round(mem.rss / 1048576), heapUsedMb: Math.round(mem.heapUsed / 1048576) },
    activeRuns: caps.active,
    queueDepth: caps.queued,
    connectedClients: sessions,
    pendingApprovals: c.broker.list().length,
    engine: c.settings.engine,
    egress: c.egress,
    profile: c.core.api.profile.name,
    killSwitch: c.settings.killSwitch,
  };
}

export function configOf(c: Companion, credential: { source: string; fingerprint?: string }): Record<string, unknown> {
  const { profile, baseUrl, auth, catalogue, origin } = c.core.api;
  return {
    profile: {
      name: profile.name,
      origin: profile.origin,
      policy: profile.policy,
      readOnly: profile.readOnly,
      allowPrivateNetwork: profile.allowPrivateNetwork,
      alias: profile.alias ?? null,
    },
    api: {
      title: catalogue.title,
      version: catalogue.version,
      operations: catalogue.operations.length,
      baseUrl,
      spec: origin.location,
      auth: auth.type === 'header' || auth.type === 'query' ? `${auth.type}:${auth.name}` : auth.type,
    },
    credential,
    engine: c.settings.engine,
    egress: c.egress,
    limits: {
      timeoutMs: c.settings.timeoutMs,
      memoryMb: c.settings.memoryMb,
      outputKb: c.settings.outputKb,
      maxConcurrent: c.settings.maxConcurrent,
      queueSize: c.settings.queueSize,
      perCallerConcurrent: c.settings.perCallerConcurrent,
      rateLimit: c.settings.rateLimit,
      rateBurst: c.settings.rateBurst,
    },
    approvalTimeoutMs: c.settings.approvalTimeoutMs,
    killSwitch: c.settings.killSwitch,
    dataDir: c.core.paths.root,
  };
}
