// The composition root: the one place where the running companion is built.
// Each service is built once, in order, from the few services it needs (see
// services.ts for their interfaces); what the host provides (the MCP URL,
// the web UI's login link, token rotation, desktop notifications) comes in
// through `host` at construction. `airlock serve`, `airlock stdio
// --in-process` and the Electron main process all build exactly this; they
// differ only in the transports and the host they put around it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Settings } from '../config/settings.ts';
import type { ResolvedSettings } from '../config/resolveSettings.ts';
import { dataPaths, ensureDataDir } from '../config/dataDir.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import { RedactionHolder } from '../log/redactionHolder.ts';
import { AIRLOCK_VERSION } from '../util/version.ts';
import { startTelemetry } from '../telemetry/startTelemetry.ts';
import { parseSyslogUrl } from '../config/syslogTarget.ts';
import type { AuditEntry } from '../audit/types.ts';
import { prometheusMetrics, type PrometheusMetrics } from '../telemetry/prometheusMetrics.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import { createKeychainStore } from '../secrets/keychainStore.ts';
import { createFileStore, fileStoreBanner } from '../secrets/fileStore.ts';
import { createCredentials } from '../secrets/credentials.ts';
import { openAuditStore, type AuditStore } from '../audit/auditStore.ts';
import { heldRecord, settleInterrupted } from '../audit/heldCalls.ts';
import { isAlive } from '../config/serverInfo.ts';
import { ApprovalBroker } from '../approvals/approvalBroker.ts';
import { GrantStore } from '../approvals/grantStore.ts';
import { ExecutionCaps, RateLimiter } from '../execute/caps.ts';
import { createExecuteService, type ExecuteService } from '../execute/executeService.ts';
import { SessionRegistry } from '../mcp/sessionRegistry.ts';
import { EventHub } from '../control/eventHub.ts';
import { createDispatcher, type DispatchControl } from '../control/dispatch.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { createPreparation } from '../search/preparation.ts';
import type { ServedApis } from './servedApis.ts';
import { describeServed, openServedApis, startServing } from './servedApiGates.ts';
import { checkEngineChoice, createEngines } from './engines.ts';
import { createControlHandlers } from './controlHandlers.ts';
import { toAuditRecord } from './auditHandlers.ts';
import { noApproverMessage } from './boundaryText.ts';
import { createMcpServerFactory, createModernServerFactory, type SessionOptions } from './mcpServers.ts';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import type { ModernCaller } from '../mcp/modernHttp.ts';
import { tuneHeapForServing } from './heapTuning.ts';
import { createUpstream } from './upstream.ts';
import type { CompanionMode, Engines, Host, Services } from './services.ts';
import { createLiveSettings } from './liveSettings.ts';
import { watchManagedPolicy } from './managedPolicyWatch.ts';
import { grantRefusal, managedPolicyPath, policyOf, registryPolicy, type ManagedPolicy } from '../config/managedPolicy.ts';
import { policyRecorder } from './policyAudit.ts';
import type { ApproveScope } from '../../../contract/approvals.ts';
import { messageOf } from '../../../contract/values.ts';

export type { CompanionMode, Host } from './services.ts';

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
  /** What the host provides; read when asked, so it may refer to what the host builds around the companion. */
  host?: Host;
}

/** The running companion: its services, the control API in front of them, and MCP servers on demand. */
export interface Companion {
  readonly services: Services;
  readonly dispatch: DispatchControl;
  /** One MCP server for one session (the SDK binds a server to one transport). */
  createMcpServer(transport: 'stdio' | 'http', session?: SessionOptions): McpServer;
  /** A server of the 2026-07-28 revision: over HTTP for one request (the default), over stdio for a connection. */
  /** `request.tool`: an HTTP request that calls that tool, the only one its server registers. */
  createModernServer(caller: ModernCaller, transport?: 'stdio' | 'http', request?: { tool?: string }): Promise<ModernMcpServer>;
  /** What a screen that subscribes late missed: recent log lines, and the approvals still waiting. */
  replay(since: number | undefined): ControlEvent[];
  /** The Prometheus endpoint (/metrics), when --metrics turned it on. */
  readonly metrics?: PrometheusMetrics;
  close(): Promise<void>;
}

export async function createCompanion(options: CompanionOptions): Promise<Companion> {
  const { logger, logBuffer: buffer, mode } = options;
  const env = options.env ?? process.env;
  const redaction = options.redaction ?? new RedactionHolder();
  const host = options.host ?? {};
  const startup = startupPhases();
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        logger.error(`closing: ${messageOf(error)}`);
      }
    }
  };

  try {
    // 1. The settings in effect, the engine choice checked before anything starts, the data dir. A live change
    //    reaches the caps, the rate limit and the runs built below, which listen once they exist (step 6).
    const settings = createLiveSettings(options.resolved);
    const values = settings.values;
    const engineChoice = checkEngineChoice(values, logger, options.resolved.sources);
    const info = { version: AIRLOCK_VERSION, mode, startedAt: new Date(), paths: dataPaths(values.dataDir) };
    ensureDataDir(info.paths.root);
    const logs = { logger, buffer, redact: redaction.redact };
    const hub = new EventHub();
    // What an organisation's monitoring hears (off by default); flushed last, after everything else closed.
    const metrics = await prometheusMetrics(values.metrics, info.paths.metricsToken);
    const telemetry = await startTelemetry({
      settings: values,
      env,
      version: AIRLOCK_VERSION,
      redact: redaction.redact,
      logger,
      ...(metrics ? { readers: [metrics.reader] } : {}),
    });
    closers.push(() => telemetry.shutdown());

    // 2. Keys: the keychain, or the explicitly opted-in file store; never a silent fallback.
    const store = options.secretStore ?? (values.secretStore === 'file' ? createFileStore({ path: info.paths.secretsFile }) : createKeychainStore());
    if (store.kind === 'file') logger.warn(fileStoreBanner(info.paths.secretsFile));
    // The store as the screens describe it when no API is served (each API's own key is resolved by its credentials).
    const storeOnly = await createCredentials({ store, profile: '', auth: { type: 'none' }, env: {}, primary: false, logger, onSecret: () => undefined });

    // 3. The audit, and the approval broker with its grants.
    // Audit records forwarded to syslog (--syslog), each once committed and redacted; closed after the audit.
    const syslog = values.syslog ? (await import('../telemetry/syslogForwarder.ts')).createSyslogForwarder(parseSyslogUrl(values.syslog), logger) : undefined;
    if (syslog) closers.push(() => syslog.close());
    const audit = openAudit({
      file: info.paths.audit,
      retentionDays: values.auditRetentionDays,
      redact: redaction.redact,
      hub,
      logger,
      ...(syslog ? { forward: (entry: AuditEntry) => syslog.forward(entry) } : {}),
    });
    closers.push(() => audit.close());
    startup.mark('audit');
    // The organisation's policy as it is now (a change of the managed file replaces it: managedPolicyWatch.ts).
    const policy = () => policyOf(settings.managed);
    const policyEvents = policyRecorder(audit, logger);
    const { grants, broker } = await openApprovals({ paths: info.paths, values, mode, audit, hub, logger, policy });
    closers.push(() => grants.flush());

    // 4. The APIs, each loaded with its catalogue and search index, its key and the gate its calls go through
    //    (servedApiGates.ts); the one the command named is served before the companion answers.
    const rate = new RateLimiter(values.rateLimit, values.rateBurst);
    // Documents are prepared in a worker thread, one at a time, never where clients are served.
    const preparation = createPreparation({ memoryMb: () => values.prepareMemoryMb });
    closers.push(() => preparation.close());
    const apis = openServedApis({
      values,
      paths: info.paths,
      env,
      store,
      redaction,
      broker,
      audit,
      rate,
      preparation,
      hub,
      logger,
      policy,
      policyEvents,
      telemetry,
    });
    closers.push(() => apis.close());
    await startServing(apis, values, info.paths, logger);
    startup.mark('api');

    // 5. Other MCP servers behind the gate: each started on first use, its tools held until a person accepts them.
    const upstream = createUpstream({
      paths: info.paths,
      store,
      redaction,
      logger,
      hub,
      approvals: broker,
      audit,
      policy,
      policyEvents,
      telemetry,
      killSwitch: () => values.killSwitch,
      rateLimit: (key) => rate.take(key),
      maxMessageBytes: () => values.mcpMessageMb * 1024 * 1024,
    });
    closers.push(() => upstream.servers.close());
    // The managed file is followed while the companion runs: what a new policy tightens applies at once.
    if (settings.managed) {
      const registry = registryPolicy();
      const stop = watchManagedPolicy({
        file: registry ? managedPolicyPath() : settings.managed.file,
        ...(registry ? { registry } : {}),
        settings,
        apis,
        grants,
        servers: upstream.servers,
        logger,
        policyEvents,
      });
      closers.push(async () => stop());
    }
    upstream.servers.startAutostart();

    // 6. The sandbox engine, and the runs of execute under their caps.
    const engines = await createEngines({
      settings: values,
      paths: info.paths,
      logger,
      apis: () => apis.list().flatMap((a) => (a.opened ? [a.opened.api] : [])),
      choice: engineChoice,
    });
    closers.push(() => engines.close());
    startup.mark('engine');
    const { caps, execute } = createRuns({ values, engine: engines.engine, apis, upstream, broker, buffer, logger, telemetry });
    settings.onApplied(liveApplier({ values, caps, rate, execute, hub, logger }));

    // 7. The MCP sessions: when one ends, its session grants end and its waiting runs say so.
    const sessions = new SessionRegistry();
    sessions.onClose((key, session) => {
      grants.endSession(key);
      execute.callerGone(key);
      telemetry.session(session);
    });

    const services: Services = {
      info,
      settings,
      logs,
      preparation,
      apis,
      keys: {
        store,
        get credentials() {
          return apis.primaryOrNone()?.credentials ?? storeOnly;
        },
        invalidate: (profile) => apis.get(profile)?.opened?.credentials.invalidate(),
      },
      audit,
      broker,
      engines,
      upstream: upstream.servers,
      serverEntries: upstream.entries,
      serverReviews: upstream.reviews,
      toolGate: upstream.gate,
      runs: { execute, caps },
      telemetry,
      sessions,
      hub,
      host,
    };
    // What the organisation's policy refused a screen or the CLI is audited, as what it refused a client is.
    const dispatch = createDispatcher(createControlHandlers(services), logger.child('control'), (method, by, error) =>
      policyEvents.record({ action: method, by, why: error.message }),
    );
    const createMcpServer = createMcpServerFactory(services);
    const createModernServer = createModernServerFactory(services);

    // 8. What the screens hear: log lines and the approval queue's changes.
    publishToScreens(hub, buffer, broker);

    const { network } = engines.state();
    logger.info(`engine ${values.engine}, egress ${network}; APIs: ${describeServed(apis)}`);
    logger.debug(`startup: ${startup.summary()}`);
    tuneHeapForServing();
    return {
      services,
      dispatch,
      ...(metrics ? { metrics } : {}),
      createMcpServer,
      createModernServer,
      replay(since) {
        const logLines = buffer.query(since === undefined ? { limit: 500 } : { since }).map((entry) => ({ type: 'log' as const, entry }));
        const waiting = broker.list().map((approval) => ({ type: 'approval-requested' as const, approval }));
        return [...logLines, ...waiting];
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * The approval broker with its grants; a call held for a person is in the audit from the moment it is held (its
 * outcome follows, under the same approval id), and one a companion that is gone left held is recorded as
 * interrupted now.
 */
async function openApprovals(o: {
  paths: ReturnType<typeof dataPaths>;
  values: Readonly<Settings>;
  mode: CompanionMode;
  audit: AuditStore;
  hub: EventHub;
  logger: Logger;
  /** The organisation's managed policy as it is now: the widest grant a person may give. */
  policy(): ManagedPolicy | undefined;
}): Promise<{ grants: GrantStore; broker: ApprovalBroker }> {
  const { values, audit, hub, logger } = o;
  const grants = new GrantStore({ file: o.paths.grants, logger: logger.child('grants'), onChange: () => hub.publish({ type: 'grants-changed' }) });
  const broker = new ApprovalBroker({
    timeoutMs: () => values.approvalTimeoutMs,
    approversAvailable: () => o.mode === 'serve',
    noApproverMessage: noApproverMessage(o.mode),
    grants,
    logger: logger.child('approvals'),
    scopeRefusal: (scope: ApproveScope) => grantRefusal(o.policy(), scope),
  });
  broker.subscribe((e) => {
    if (e.type !== 'approval-requested') return;
    const held = heldRecord(e.approval);
    if (!held) return;
    audit.recordApiCall(held).catch((error: Error) => logger.warn(`audit: the held call ${e.approval.id} was not recorded: ${error.message}`));
  });
  const interrupted = await settleInterrupted(audit, { alive: isAlive });
  if (interrupted > 0)
    logger.warn(`audit: ${interrupted} call${interrupted === 1 ? '' : 's'} held for a person when the companion last ended recorded as interrupted`);
  return { grants, broker };
}

/** The runs of execute under their caps, each given the client its session reaches. */
function createRuns(o: {
  values: Readonly<Settings>;
  engine: Engines['engine'];
  apis: ServedApis;
  upstream: ReturnType<typeof createUpstream>;
  broker: ApprovalBroker;
  buffer: LogBuffer;
  logger: Logger;
  telemetry: Telemetry;
}): { caps: ExecutionCaps; execute: ExecuteService } {
  const { values, apis, upstream, broker } = o;
  const caps = new ExecutionCaps(capsOf(values));
  const execute = createExecuteService({
    engine: o.engine,
    // A session scoped to named APIs reaches only those; one that takes everything reaches the servers' accepted tools too.
    client: (scope, c) => apis.clientFor(scope, scope ? c : { ...c, tools: upstream.runTools() }),
    caps,
    limits: () => ({ timeoutMs: values.timeoutMs, memoryBytes: values.memoryMb * 1024 * 1024, outputBytes: values.outputKb * 1024 }),
    killSwitch: () => values.killSwitch,
    logger: o.logger,
    logBuffer: o.buffer,
    onRunEnd: (runId) => broker.endRun(runId),
    approvals: broker,
    replyAfterMs: () => values.approvalReplyAfterMs,
    telemetry: o.telemetry,
  });
  return { caps, execute };
}

/** Puts live settings (already written into `values`) into effect: caps, the rate limit, the kill switch. */
function liveApplier(parts: {
  values: Readonly<Settings>;
  caps: ExecutionCaps;
  rate: RateLimiter;
  execute: ExecuteService;
  hub: EventHub;
  logger: Logger;
}): (keys: (keyof Settings)[]) => void {
  const { values, caps, rate, execute, hub, logger } = parts;
  return (keys) => {
    if (keys.some((k) => ['maxConcurrent', 'queueSize', 'queueTimeoutMs', 'perCallerConcurrent'].includes(k))) caps.configure(capsOf(values));
    if (keys.includes('rateLimit') || keys.includes('rateBurst')) rate.configure(values.rateLimit, values.rateBurst);
    if (keys.includes('killSwitch') && values.killSwitch) {
      const stopped = execute.stopAll('the kill switch is on: the person running Airlock stopped every execute');
      if (stopped > 0) logger.warn(`kill switch on: ${stopped} run(s) still going stopped`);
    }
    hub.publish({ type: 'settings-applied', keys });
    logger.info(`settings applied: ${keys.map((k) => `${k}=${String((values as unknown as Record<string, unknown>)[k])}`).join(', ')}`);
  };
}

/** What the screens hear through the hub: each batch of log lines, and every change of the approval queue. */
function publishToScreens(hub: EventHub, buffer: LogBuffer, broker: ApprovalBroker): void {
  buffer.subscribe((batch) => {
    for (const entry of batch) hub.publish({ type: 'log', entry });
  });
  broker.subscribe((e) => {
    if (e.type === 'approval-requested') hub.publish({ type: 'approval-requested', approval: e.approval });
    else if (e.type === 'approval-updated') hub.publish({ type: 'approval-updated', approval: e.approval });
    else hub.publish({ type: 'approval-decided', id: e.id, decision: e.decision });
  });
}

/** The audit store, each record published to the screens as it is written, records past the retention pruned. */
function openAudit(o: {
  file: string;
  retentionDays: number;
  redact(text: string): string;
  hub: EventHub;
  logger: Logger;
  /** Each committed record, to syslog. */
  forward?(entry: AuditEntry): void;
}): AuditStore {
  const audit = openAuditStore({
    file: o.file,
    redact: o.redact,
    logger: o.logger.child('audit'),
    onRecord: (entry) => {
      o.hub.publish({ type: 'audit', record: toAuditRecord(entry) });
      o.forward?.(entry);
    },
  });
  if (o.retentionDays > 0) {
    const pruned = audit.prune({ olderThanDays: o.retentionDays });
    if (pruned.pruned > 0) o.logger.info(`audit: pruned ${pruned.pruned} records older than ${o.retentionDays} days`);
  }
  return audit;
}

const capsOf = (s: { maxConcurrent: number; queueSize: number; queueTimeoutMs: number; perCallerConcurrent: number }) => ({
  maxConcurrent: s.maxConcurrent,
  queueSize: s.queueSize,
  queueTimeoutMs: s.queueTimeoutMs,
  perCallerConcurrent: s.perCallerConcurrent,
});

/** How long each start-up phase took (logged at debug). */
function startupPhases(): { mark(name: string): void; summary(): string } {
  const phases: string[] = [];
  let since = performance.now();
  return {
    mark(name) {
      const now = performance.now();
      phases.push(`${name} ${(now - since).toFixed(0)} ms`);
      since = now;
    },
    summary: () => phases.join(', '),
  };
}
