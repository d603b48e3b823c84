// The whole companion, headless: the API core plus everything that makes
// execute safe and observable — secret store, audit store, approval broker
// and grants, egress gate, sandbox engine, caps, the MCP server factory, the
// control API (handlers behind one dispatcher) and its event stream.
// `airlock serve`, `airlock stdio` and the Electron main process all build
// exactly this; they differ only in the transports they put in front of it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AirlockError } from '../errors.ts';
import type { EgressMode, Settings, ResolvedSettings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import { createCore, type AirlockCore } from './airlockCore.ts';
import { RedactionHolder } from './redactionHolder.ts';
import { createEngine } from './sandboxEngines.ts';
import { SwitchableEngine } from '../sandbox/switchableEngine.ts';
import type { EngineName } from '../sandbox/engine.ts';
import { checkEngineEgress } from '../sandbox/engineMatrix.ts';
import type { SandboxEngine } from '../sandbox/engine.ts';
import { createEgressGate, type EgressGate } from '../egress/egressGate.ts';
import { startGateProxy, type GateProxy } from '../egress/gateProxy.ts';
import { ExecutionCaps, RateLimiter } from '../execute/caps.ts';
import { createExecuteService, type ExecuteService } from '../execute/executeService.ts';
import { ApprovalBroker } from '../approvals/approvalBroker.ts';
import { GrantStore } from '../approvals/grantStore.ts';
import { openAuditStore, type AuditStore } from '../audit/auditStore.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import { createKeychainStore } from '../secrets/keychainStore.ts';
import { createFileStore, fileStoreBanner } from '../secrets/fileStore.ts';
import { createMcpServer } from '../mcp/createMcpServer.ts';
import { executeInputText, registerExecute } from '../mcp/executeTool.ts';
import { registerDiagnostics } from '../mcp/diagnosticsTools.ts';
import { callerOf } from '../mcp/auditedTools.ts';
import { EventHub } from '../control/eventHub.ts';
import { createDispatcher, type ControlHandlers, type DispatchControl } from '../control/dispatch.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { createControlHandlers, toAuditRecord } from './controlHandlers.ts';
import { createCredentials, type Credentials } from './credentials.ts';
import { boundaryText, noApproverMessage } from './boundaryText.ts';
import { SessionRegistry } from './sessionRegistry.ts';
import { configOf, healthOf } from './companionViews.ts';
import { tuneHeapForServing } from './runtimeContext.ts';

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
  readonly mode: CompanionMode;
  readonly settings: Settings;
  readonly resolved: ResolvedSettings;
  readonly gate: EgressGate;
  readonly engine: SandboxEngine;
  /** Switches the running companion to another engine × egress; the next run uses it. */
  switchEngine(choice: { engine: EngineName; egress: EgressMode; acknowledgeUnrestricted?: boolean }): Promise<void>;
  /** Puts live settings (already written into `settings`) into effect: caps and the rate limit. */
  applyLive(keys: string[]): void;
  readonly broker: ApprovalBroker;
  readonly grants: GrantStore;
  readonly audit: AuditStore;
  readonly secrets: SecretStore;
  readonly credentials: Credentials;
  readonly caps: ExecutionCaps;
  readonly execute: ExecuteService;
  readonly sessions: SessionRegistry;
  readonly hub: EventHub;
  readonly handlers: ControlHandlers;
  readonly dispatch: DispatchControl;
  egress: EgressMode;
  banner: string | undefined;
  boundary: string;
  readonly redact: (text: string) => string;
  /** Where MCP is served (set by the loopback server). */
  endpoints: { http?: string };
  /** Set by the loopback server when it serves the web UI. */
  ui?: { loginLink(): { url: string; expiresAt: string } };
  /** Set by the desktop shell: how the OS treats its notifications. */
  desktop?: () => { notifications: 'enabled' | 'unsupported' | 'failed'; detail?: string };
  /** Set by the loopback server: a new MCP token, the old one refused from now on. */
  rotateMcpToken?: () => { file: string; endedSessions: number };
  createMcpServer(transport: 'stdio' | 'http'): McpServer;
  replay(since: number | undefined): ControlEvent[];
  close(): Promise<void>;
}

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
    const credentials = await createCredentials({ store: secrets, profile: profile.name, auth: core.api.auth, env, logger, onSecret: (s) => redaction.add(s) });
    phase('credential');

    const hub = new EventHub();
    const audit = openAuditStore({
      file: core.paths.audit,
      redact: redaction.redact,
      logger: logger.child('audit'),
      onRecord: (entry) => hub.publish({ type: 'audit', record: toAuditRecord(entry) }),
    });
    closers.push(() => audit.close());
    if (settings.auditRetentionDays > 0) {
      const pruned = audit.prune({ olderThanDays: settings.auditRetentionDays });
      if (pruned.pruned > 0) logger.info(`audit: pruned ${pruned.pruned} records older than ${settings.auditRetentionDays} days`);
    }
    phase('audit');

    const grants = new GrantStore({ file: core.paths.grants, logger: logger.child('grants'), onChange: () => hub.publish({ type: 'grants-changed' }) });
    closers.push(() => grants.flush());
    const broker = new ApprovalBroker({
      timeoutMs: settings.approvalTimeoutMs,
      approversAvailable: () => mode === 'serve',
      noApproverMessage: noApproverMessage(mode),
      grants,
      logger: logger.child('approvals'),
    });
    const rate = new RateLimiter(settings.rateLimit, settings.rateBurst);
    const gate = createEgressGate({
      api: core.api,
      getCredential: () => credentials.get(),
      redactor: () => redaction.redactor,
      credentialSource: () => credentials.state.source,
      approvals: broker,
      rateLimit: (key) => rate.take(key),
      onApiCall: (record) => audit.recordApiCall(record),
      logger: logger.child('gate'),
    });

    let proxy: GateProxy | undefined;
    const gateProxy = async () => (proxy ??= await startGateProxy({ logger: logger.child('gate-proxy') }));
    const engine = new SwitchableEngine(await createEngine({ settings, egress: matrix.egress, paths: core.paths, logger, proxy: gateProxy }));
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
    const execute = createExecuteService({
      engine,
      gate,
      catalogue: core.api.catalogue,
      clientNames: core.clientNames,
      caps,
      limits: () => ({ timeoutMs: settings.timeoutMs, memoryBytes: settings.memoryMb * 1024 * 1024, outputBytes: settings.outputKb * 1024 }),
      killSwitch: () => settings.killSwitch,
      logger,
      logBuffer,
      onRunEnd: (runId) => broker.endRun(runId),
      approvals: broker,
      replyAfterMs: () => settings.approvalReplyAfterMs,
    });
    const boundary = boundaryText({ settings, egress: matrix.egress, engineBoundary: engine.describeBoundary(), baseUrl: core.api.baseUrl, profile });
    const sessions = new SessionRegistry();
    sessions.onClose((key) => {
      grants.endSession(key);
      execute.callerGone(key);
    });

    const companion: Companion = {
      core,
      mode,
      settings,
      resolved: options.resolved,
      gate,
      engine,
      broker,
      grants,
      audit,
      secrets,
      credentials,
      caps,
      execute,
      sessions,
      hub,
      handlers: undefined as unknown as ControlHandlers,
      dispatch: undefined as unknown as DispatchControl,
      egress: matrix.egress,
      banner: matrix.banner,
      boundary,
      redact: redaction.redact,
      endpoints: {},
      async switchEngine(choice) {
        const verdict = checkEngineEgress(choice.engine, choice.egress, choice.acknowledgeUnrestricted === true);
        if (!verdict.ok) throw new AirlockError('usage', verdict.reason);
        const next = await createEngine({
          settings: { ...settings, engine: choice.engine },
          egress: verdict.egress,
          paths: core.paths,
          logger,
          proxy: gateProxy,
        });
        engine.switchTo(next);
        settings.engine = choice.engine;
        settings.egress = verdict.egress;
        settings.allowUnrestrictedEgress = choice.acknowledgeUnrestricted === true;
        companion.egress = verdict.egress;
        companion.banner = verdict.banner;
        companion.boundary = boundaryText({ settings, egress: verdict.egress, engineBoundary: next.describeBoundary(), baseUrl: core.api.baseUrl, profile });
        if (verdict.banner) logger.warn(verdict.banner);
        logger.info(`engine switched to ${choice.engine} with egress ${verdict.egress}; runs already going finish on the previous engine`);
      },
      applyLive(keys) {
        if (keys.some((k) => ['maxConcurrent', 'queueSize', 'queueTimeoutMs', 'perCallerConcurrent'].includes(k))) {
          caps.configure({
            maxConcurrent: settings.maxConcurrent,
            queueSize: settings.queueSize,
            queueTimeoutMs: settings.queueTimeoutMs,
            perCallerConcurrent: settings.perCallerConcurrent,
          });
        }
        if (keys.includes('rateLimit') || keys.includes('rateBurst')) rate.configure(settings.rateLimit, settings.rateBurst);
        if (keys.includes('killSwitch') && settings.killSwitch) {
          const stopped = execute.stopAll('the kill switch is on: the person running Airlock stopped every execute');
          if (stopped > 0) logger.warn(`kill switch on: ${stopped} run(s) still going stopped`);
        }
        hub.publish({ type: 'settings-applied', keys });
        logger.info(`settings applied: ${keys.map((k) => `${k}=${String((settings as unknown as Record<string, unknown>)[k])}`).join(', ')}`);
      },
      createMcpServer(transport) {
        let key: string | undefined;
        const server: McpServer = createMcpServer({
          core,
          transport,
          hasExecute: true,
          warmUp: () => engine.warmUp(),
          onToolStart: (caller) => {
            // A client may call before it says it is initialized: the session is known from its first call.
            key ??= caller.key;
            sessions.begin(caller);
          },
          onToolCall: (call) => {
            sessions.end(call.caller.key);
            return audit.recordToolCall({
              time: call.startedAt,
              ...(call.caller.clientName ? { clientName: call.caller.clientName } : {}),
              ...(call.caller.clientVersion ? { clientVersion: call.caller.clientVersion } : {}),
              transport,
              ...(call.caller.sessionId ? { sessionId: call.caller.sessionId } : {}),
              tool: call.tool,
              outcome: call.outcome,
              durationMs: call.durationMs,
              input: call.tool === 'execute' ? executeInputText(call.args) : call.args,
              bytesOut: call.bytesOut,
              ...(call.error ? { error: call.error } : {}),
              ...(credentials.state.fingerprint ? { credentialFingerprint: credentials.state.fingerprint } : {}),
              profile: profile.name,
              ...(call.tool === 'execute' ? { engine: engine.name } : {}),
              ...(call.runId ? { runId: call.runId } : {}),
            });
          },
          tools: [
            (tools) =>
              registerExecute(tools, { service: execute, apiTitle: core.api.catalogue.title, clientNames: core.clientNames, boundary: companion.boundary }),
            ...(settings.diagnosticsTools
              ? [
                  (tools: Parameters<typeof registerExecute>[0]) =>
                    registerDiagnostics(tools, {
                      logBuffer,
                      redact: redaction.redact,
                      health: () => healthOf(companion),
                      config: () => configOf(companion),
                    }),
                ]
              : []),
          ],
        });
        server.server.oninitialized = () => {
          const caller = callerOf(server, transport, server.server.transport?.sessionId);
          key = caller.key;
          sessions.open(caller);
        };
        const closed = server.server.onclose;
        server.server.onclose = () => {
          closed?.();
          if (key) sessions.close(key);
        };
        return server;
      },
      replay(since) {
        const logs = logBuffer.query(since === undefined ? { limit: 500 } : { since }).map((entry) => ({ type: 'log' as const, entry }));
        const approvals = broker.list().map((approval) => ({ type: 'approval-requested' as const, approval }));
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
    const handlers = createControlHandlers(companion);
    Object.assign(companion, { handlers, dispatch: createDispatcher(handlers, logger.child('control')) });

    logBuffer.subscribe((batch) => {
      for (const entry of batch) hub.publish({ type: 'log', entry });
    });
    broker.subscribe((e) => {
      if (e.type === 'approval-requested') hub.publish({ type: 'approval-requested', approval: e.approval });
      else if (e.type === 'approval-updated') hub.publish({ type: 'approval-updated', approval: e.approval });
      else hub.publish({ type: 'approval-decided', id: e.id, decision: e.decision });
    });
    logger.info(`engine ${settings.engine}, egress ${matrix.egress}; mutations: ${profile.readOnly ? 'read-only profile' : profile.policy}`);
    logger.debug(`startup: ${phases.join(', ')}`);
    tuneHeapForServing();
    return companion;
  } catch (error) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw error;
  }
}
