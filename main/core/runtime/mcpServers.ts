// One MCP server per session, from the companion's services: search_docs
// and execute (and the diagnostics tools when the setting asks for them),
// every call recorded in the audit, the session known to the registry from
// its first call or its `initialized` notification until it closes.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  createMcpServer,
  createModernMcpServer,
  providing,
  refreshModernTools,
  refreshTools,
  type McpServerOptions,
  type ToolRegistrar,
} from '../mcp/createMcpServer.ts';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { ModernTasks } from '../mcp/modernTasks.ts';
import { ModernServerPool, callerToolKey } from '../mcp/modernServerPool.ts';
import type { ModernCaller } from '../mcp/modernHttp.ts';
import { isStatelessCaller } from '../mcp/httpCredential.ts';
import { executeInputText, registerExecute } from '../mcp/executeTool.ts';
import type { InClientApprovals } from '../mcp/inClientApproval.ts';
import { requestLine, type ClientTokenRef } from '../../../contract/approvals.ts';
import { AirlockError } from '../util/errors.ts';
import { DIAGNOSTICS_TOOLS, registerDiagnostics } from '../mcp/diagnosticsTools.ts';
import { bindClientToken, callerOf, type ToolCallReport } from '../mcp/auditedTools.ts';
import type { ApiInReach, NamedApi } from '../mcp/apisInReach.ts';
import { namedFromProfile } from '../profiles/apiIdentifier.ts';
import { configOf, healthOf } from './companionViews.ts';
import { boundaryText } from './boundaryText.ts';
import type { Services } from './services.ts';
import { registerDirectTools } from '../mcp/directTools.ts';
import { callDirect, directList } from '../upstream/directOffer.ts';
import { serverSwitch } from '../upstream/serverSwitch.ts';
import { searchableTools } from '../upstream/searchableTools.ts';
import { MODERN_REVISION } from '../mcp/stdioRevisions.ts';
import { changesTools } from './toolsChanged.ts';

export type McpServerServices = Pick<
  Services,
  | 'telemetry'
  | 'info'
  | 'settings'
  | 'logs'
  | 'apis'
  | 'keys'
  | 'audit'
  | 'broker'
  | 'engines'
  | 'runs'
  | 'sessions'
  | 'host'
  | 'hub'
  | 'upstream'
  | 'serverEntries'
  | 'toolGate'
>;

/** The audit record of one tool call. */
function toolRecord(s: McpServerServices, transport: 'stdio' | 'http', call: ToolCallReport, scope: readonly string[] | undefined) {
  // A tool call names the API it reached when the session reaches one; each API call names its own.
  const reached = call.profile ? [] : apisInReach(s, scope);
  const one = reached.length === 1 ? s.apis.get(reached[0]!.name)?.opened : undefined;
  const fingerprint = one?.credentials.state.fingerprint;
  return {
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
    ...(fingerprint ? { credentialFingerprint: fingerprint } : {}),
    profile: call.profile ?? (reached.length === 1 ? reached[0]!.name : reached.map((a) => a.name).join(',')),
    ...(call.tool === 'execute' ? { engine: s.engines.engine.name } : {}),
    ...(call.runId ? { runId: call.runId } : {}),
  };
}

/** What a session is opened with: the APIs it may reach (absent: every API served). */
export interface SessionOptions {
  scope?: readonly string[];
  /** The HTTP client's own token the session was opened with. */
  clientToken?: ClientTokenRef;
}

/** What bounds a session's runs, in words, naming only the APIs its scope reaches. */
function boundaryFor(s: McpServerServices, scope: readonly string[] | undefined): string {
  const state = s.engines.state();
  const apis = apisInReach(s, scope).flatMap((a) => {
    const opened = s.apis.get(a.name)?.opened;
    return opened ? [{ baseUrl: opened.api.baseUrl, profile: opened.api.profile }] : [];
  });
  return boundaryText({ settings: s.settings.values, network: state.network, engineBoundary: state.engineBoundary, apis });
}

/** As apisInReach, once the APIs in the scope being opened are open (one whose document is being prepared is not waited for). */
async function apisInReachReady(s: Pick<Services, 'apis'>, scope: readonly string[] | undefined): Promise<ApiInReach[]> {
  await s.apis.usable(scope);
  return apisInReach(s, scope);
}

/** The loaded APIs a scope reaches, in name order (absent scope: every API served). */
export function apisInReach(s: Pick<Services, 'apis'>, scope: readonly string[] | undefined): ApiInReach[] {
  return s.apis
    .inScope(scope)
    .flatMap((a) => (a.opened ? [a.opened.api] : []))
    .map((api) => ({
      name: api.profile.name,
      id: api.id,
      catalogue: api.catalogue,
      search: api.search,
      clientNames: api.clientNames,
      ...(api.profile.alias ? { alias: api.profile.alias } : {}),
    }));
}

/** Approval through a 2026-07-28 client (inClientApproval.ts), over the companion's broker and settings. */
function inClientApprovals(s: McpServerServices): InClientApprovals {
  return {
    enabled: () => s.settings.values.approvalInClient,
    pendingFor(runId) {
      const p = s.broker.pendingFor(runId);
      if (!p) return undefined;
      return { approvalId: p.id, question: `${p.request.caller.clientName ?? 'A client'} asks to run ${requestLine(p.request)}.`, expiresAt: p.expiresAt };
    },
    decide(id, allow, by, reason) {
      try {
        s.broker.decide(id, allow ? { approve: true, scope: 'once' } : { approve: false, ...(reason ? { reason } : {}) }, by);
      } catch (error) {
        // Answered first elsewhere (in Airlock, or timed out): that answer stands, and the run's result says it.
        if (!(error instanceof AirlockError && (error.kind === 'conflict' || error.kind === 'not_found'))) throw error;
      }
    },
  };
}

/** The APIs a scope reaches that are loaded or still loading, as the instructions name them. */
function namedInReach(s: Pick<Services, 'apis'>, scope: readonly string[] | undefined): NamedApi[] {
  return s.apis
    .inScope(scope)
    .filter((a) => a.state !== 'failed')
    .map((a) => {
      const api = a.opened?.api;
      return api
        ? { id: api.id, clientNames: api.clientNames, title: api.catalogue.title, operations: api.catalogue.operations.length }
        : namedFromProfile(a.profile);
    });
}

/**
 * What a server is built with for a scope, with the hooks its calls are counted and audited through: the same for
 * a session of the 2025 revision and a request of the 2026-07-28 one.
 */
function serverOptions(
  s: McpServerServices,
  transport: 'stdio' | 'http',
  scope: readonly string[] | undefined,
  hooks: Pick<McpServerOptions, 'onToolStart' | 'onToolCall'>,
): McpServerOptions {
  const schemas = new Map<string, unknown>();
  const tools: ToolRegistrar[] = [
    providing(
      (registry) =>
        registerExecute(registry, {
          service: s.runs.execute,
          apis: () => apisInReach(s, scope),
          ...(scope ? { scope } : {}),
          boundary: () => boundaryFor(s, scope),
          progressEveryMs: () => s.settings.values.approvalProgressEveryMs,
          inClient: inClientApprovals(s),
          // A session scoped to named APIs reaches no other server (its runs get no `mcp`).
          ...(scope ? {} : { tools: () => s.upstream.acceptedTools() }),
        }),
      (name) => name === 'execute',
    ),
    // Other servers' tools offered directly, where a person opted in (unscoped sessions, as for `mcp` in scripts).
    ...(scope
      ? []
      : [
          providing(
            (registry) =>
              registerDirectTools(registry, {
                list: () => directList({ upstream: s.upstream, logger: s.logs.logger, redact: s.logs.redact, max: s.settings.values.directToolsMax }),
                call: (tool, args, ctx) => callDirect(s.toolGate, tool, args, ctx),
                schemas,
              }),
            // Another server's tool offered directly is named <server>__<tool>.
            (name) => name.includes('__'),
          ),
        ]),
    // The diagnostics speak of the whole companion (its log, every API's configuration): for unscoped sessions only.
    ...(s.settings.values.diagnosticsTools && !scope
      ? [
          providing(
            (registry) =>
              registerDiagnostics(registry, {
                logBuffer: s.logs.buffer,
                redact: s.logs.redact,
                health: () => healthOf(s),
                config: () => configOf(s),
                // Only where a person has other servers: a session that opens with none is not shown two idle tools.
                ...(s.upstream.status().length > 0
                  ? {
                      servers: serverSwitch({
                        upstream: s.upstream,
                        entries: s.serverEntries,
                        approvals: s.broker,
                        changed: () => s.hub.publish({ type: 'servers-changed' }),
                        logger: s.logs.logger,
                      }),
                    }
                  : {}),
              }),
            (name) => DIAGNOSTICS_TOOLS.has(name),
          ),
        ]
      : []),
  ];
  return {
    apis: () => apisInReach(s, scope),
    named: () => namedInReach(s, scope),
    ready: () => apisInReachReady(s, scope),
    opening: () => s.apis.inScope(scope).some((a) => a.state === 'loading' && !a.preparing),
    logger: s.logs.logger,
    transport,
    hasExecute: true,
    listedSchemas: () => schemas,
    ...(scope ? {} : { searchTools: () => searchableTools(s.upstream, s.logs.logger, s.logs.redact) }),
    warmUp: () => s.engines.engine.warmUp?.(),
    ...(s.telemetry ? { telemetry: s.telemetry } : {}),
    ...hooks,
    tools,
  };
}

export function createMcpServerFactory(s: McpServerServices): (transport: 'stdio' | 'http', session?: SessionOptions) => McpServer {
  const { sessions } = s;
  // When the APIs served change (or a live setting the descriptions quote), every open session's tools are
  // described again, and its client told: an API enabled now is searched and called at the client's next call.
  const live = new Set<McpServer>();
  s.hub.subscribe({
    send: (batch) => {
      if (changesTools(batch)) for (const server of live) refreshTools(server);
    },
  });
  return (transport, session = {}) => {
    const { scope } = session;
    let key: string | undefined;
    const server = createMcpServer(
      serverOptions(s, transport, scope, {
        onToolStart: (caller) => {
          // A client may call before it says it is initialized: the session is known from its first call.
          key ??= caller.key;
          sessions.begin(caller);
        },
        onToolCall: (call) => {
          sessions.end(call.caller.key);
          return s.audit.recordToolCall(toolRecord(s, transport, call, scope));
        },
      }),
    );
    if (session.clientToken) bindClientToken(server, session.clientToken);
    server.server.oninitialized = () => {
      const caller = callerOf(server, transport, server.server.transport?.sessionId);
      key = caller.key;
      sessions.open(caller);
    };
    live.add(server);
    const closed = server.server.onclose;
    server.server.onclose = () => {
      closed?.();
      live.delete(server);
      if (key) sessions.close(key);
    };
    return server;
  };
}

/**
 * The server of the 2026-07-28 revision for the caller its credential and URL name (HTTP: it answers one request) or
 * its pipe (stdio: it serves the connection): the same tools as a session's, each call counted in the registry under
 * that caller and audited. A stdio connection's server is listed while the connection lasts, and its tools are
 * described again when what they describe changes, as a 2025 session's are.
 */
export function createModernServerFactory(
  s: McpServerServices,
): (caller: ModernCaller, transport?: 'stdio' | 'http', request?: { tool?: string }) => Promise<ModernMcpServer> {
  // A caller with no session is listed while it calls; idle past the HTTP session limit, it is no longer listed.
  const sweep = setInterval(() => {
    const idleMs = s.settings.values.httpSessionIdle * 1000;
    s.sessions.closeIdle(isStatelessCaller, new Date(Date.now() - idleMs));
  }, 15_000);
  sweep.unref();
  const live = new Set<ModernMcpServer>();
  // HTTP: a server that has answered answers the caller's next request for the same tool (modernServerPool.ts).
  const pool = new ModernServerPool<ModernMcpServer>();
  s.hub.subscribe({
    send: (batch) => {
      if (!changesTools(batch)) return;
      pool.clear();
      for (const server of live) refreshModernTools(server);
    },
  });
  // The Tasks extension's tasks outlive the request (HTTP) or connection (stdio) that made them: one registry.
  const tasks = new ModernTasks();
  return async ({ key, scope, token }, transport = 'http', request = {}) => {
    const pooled = transport === 'http' ? callerToolKey({ key, token }, request.tool) : undefined;
    const idle = pooled === undefined ? undefined : pool.take(pooled);
    if (idle) return idle;
    const ticket = pool.ticket();
    const server = await createModernMcpServer(
      {
        ...serverOptions(s, transport, scope, {
          onToolStart: (caller) => s.sessions.begin(caller),
          onToolCall: (call) => {
            s.sessions.end(call.caller.key);
            return s.audit.recordToolCall(toolRecord(s, transport, call, scope));
          },
        }),
        modernTasks: tasks,
      },
      { key, transport, ...(token ? { clientToken: token } : {}) },
      request.tool,
    );
    if (pooled !== undefined) pool.adopt(pooled, server, ticket);
    if (transport === 'stdio') {
      s.sessions.open({ key, transport, protocolVersion: MODERN_REVISION });
      live.add(server);
      const closed = server.server.onclose;
      server.server.onclose = () => {
        closed?.();
        live.delete(server);
        s.sessions.close(key);
      };
    }
    return server;
  };
}
