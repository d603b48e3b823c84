// One MCP server per session, from the companion's services: search_docs
// and execute (and the diagnostics tools when the setting asks for them),
// every call recorded in the audit, the session known to the registry from
// its first call or its `initialized` notification until it closes.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpServer, refreshTools, type ToolRegistrar } from '../mcp/createMcpServer.ts';
import { executeInputText, registerExecute } from '../mcp/executeTool.ts';
import { registerDiagnostics, type DiagnosticsContext } from '../mcp/diagnosticsTools.ts';
import { callerOf, type ToolCallReport, type ToolContext } from '../mcp/auditedTools.ts';
import type { ApiInReach, NamedApi } from '../mcp/apisInReach.ts';
import { namedFromProfile } from '../profiles/apiIdentifier.ts';
import { configOf, healthOf } from './companionViews.ts';
import { boundaryText } from './boundaryText.ts';
import type { Services } from './services.ts';
import { registerDirectTools, type DirectTool } from '../mcp/directTools.ts';
import { keepTelling, PROGRESS_EVERY_MS } from '../mcp/executeTool.ts';
import { directToolNames } from '../upstream/toolNames.ts';
import { serverProfile } from '../upstream/toolGate.ts';
import { renderToolCard, toolCall, toolLine, toolOf, toolSearchSource } from '../upstream/toolSearch.ts';
import type { SearchableTools } from '../mcp/searchDocsTool.ts';
import type { ApiOperation } from '../openapi/catalogue.ts';
import { redactDeep } from '../log/redactor.ts';
import { createHash, randomUUID } from 'node:crypto';
import { messageOf } from '../../../contract/values.ts';

export type McpServerServices = Pick<
  Services,
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

export function createMcpServerFactory(s: McpServerServices): (transport: 'stdio' | 'http', session?: SessionOptions) => McpServer {
  const { sessions } = s;
  // When the APIs served change (or a live setting the descriptions quote), every open session's tools are
  // described again, and its client told: an API enabled now is searched and called at the client's next call.
  const live = new Set<McpServer>();
  s.hub.subscribe({
    send: (batch) => {
      if (batch.some((e) => e.type === 'apis-changed' || e.type === 'servers-changed' || e.type === 'settings-applied'))
        for (const server of live) refreshTools(server);
    },
  });
  return (transport, session = {}) => {
    const { scope } = session;
    const schemas = new Map<string, unknown>();
    const tools: ToolRegistrar[] = [
      (registry) =>
        registerExecute(registry, {
          service: s.runs.execute,
          apis: () => apisInReach(s, scope),
          ...(scope ? { scope } : {}),
          boundary: () => boundaryFor(s, scope),
          // A session scoped to named APIs reaches no other server (its runs get no `mcp`).
          ...(scope ? {} : { tools: () => s.upstream.acceptedTools() }),
        }),
      // Other servers' tools offered directly, where a person opted in (unscoped sessions, as for `mcp` in scripts).
      ...(scope
        ? []
        : [
            (registry: Parameters<ToolRegistrar>[0]) =>
              registerDirectTools(registry, { list: () => directList(s), call: (tool, args, ctx) => callDirect(s, tool, args, ctx), schemas }),
          ]),
      // The diagnostics speak of the whole companion (its log, every API's configuration): for unscoped sessions only.
      ...(s.settings.values.diagnosticsTools && !scope
        ? [
            (registry: Parameters<ToolRegistrar>[0]) =>
              registerDiagnostics(registry, {
                logBuffer: s.logs.buffer,
                redact: s.logs.redact,
                health: () => healthOf(s),
                config: () => configOf(s),
                // Only where a person has other servers: a session that opens with none is not shown two idle tools.
                ...(s.upstream.status().length > 0 ? { servers: serverDiagnostics(s) } : {}),
              }),
          ]
        : []),
    ];
    let key: string | undefined;
    const server = createMcpServer({
      apis: () => apisInReach(s, scope),
      named: () => namedInReach(s, scope),
      ready: () => apisInReachReady(s, scope),
      opening: () => s.apis.inScope(scope).some((a) => a.state === 'loading' && !a.preparing),
      logger: s.logs.logger,
      transport,
      hasExecute: true,
      listedSchemas: () => schemas,
      ...(scope ? {} : { searchTools: () => searchableTools(s) }),
      warmUp: () => s.engines.engine.warmUp?.(),
      onToolStart: (caller) => {
        // A client may call before it says it is initialized: the session is known from its first call.
        key ??= caller.key;
        sessions.begin(caller);
      },
      onToolCall: (call) => {
        sessions.end(call.caller.key);
        return s.audit.recordToolCall(toolRecord(s, transport, call, scope));
      },
      tools,
    });
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

/** The tools offered directly now: every accepted tool of the servers a person opted in, named, at most the directToolsMax setting. */
function directList(s: Pick<Services, 'upstream' | 'logs' | 'settings'>): DirectTool[] {
  const max = s.settings.values.directToolsMax;
  const offered = s.upstream.directTools();
  const { names, collisions } = directToolNames(offered.map((o) => ({ server: o.server, tool: o.tool.name })));
  for (const line of collisions) s.logs.logger.warn(line);
  const all = offered.flatMap(({ server, tool }) => {
    const name = names.get(`${server}\0${tool.name}`);
    if (!name) return [];
    const a = (tool.annotations ?? {}) as Record<string, unknown>;
    const hints = Object.fromEntries(
      ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].flatMap((k) => (typeof a[k] === 'boolean' ? [[k, a[k]]] : [])),
    );
    // The definition a person accepted, scrubbed of any secret it holds (as the review shows it).
    return [
      {
        name,
        server,
        tool: tool.name,
        profile: serverProfile(server),
        description: s.logs.redact(typeof tool.description === 'string' ? tool.description : ''),
        inputSchema: redactDeep(tool.inputSchema, s.logs.redact),
        annotations: hints,
      },
    ];
  });
  if (all.length > max) {
    s.logs.logger.warn(
      `${all.length} tools are offered directly; clients get the first ${max} (the directToolsMax setting, --direct-tools-max; execute reaches every one as mcp.<server>.<tool>)`,
    );
  }
  return all.slice(0, max);
}

/** A client's direct call: one run of its own (its id links the client's tool record to the call's), through the tool gate. */
async function callDirect(s: Pick<Services, 'toolGate'>, tool: DirectTool, args: Record<string, unknown>, ctx: ToolContext) {
  const runId = randomUUID();
  const script = `${tool.name}(${JSON.stringify(args)})`;
  const result = await s.toolGate.callDirect(
    { server: tool.server, tool: tool.tool, args, direct: tool.name },
    {
      runId,
      caller: ctx.caller,
      scriptSha256: createHash('sha256').update(script).digest('hex'),
      script,
      control: { whilePaused: (wait) => wait() },
      signal: ctx.signal,
      calls: [],
      ...(ctx.progress ? { onWaiting: (what: string) => keepTelling(ctx.progress!, what, PROGRESS_EVERY_MS) } : {}),
    },
  );
  return { result, runId };
}

/** list_mcp_servers and toggle_mcp_server: the servers' states, and a switch that waits for a person's yes. */
function serverDiagnostics(s: Pick<Services, 'upstream' | 'serverEntries' | 'broker' | 'hub' | 'logs'>): NonNullable<DiagnosticsContext['servers']> {
  const store = s.serverEntries;
  return {
    list: () =>
      s.upstream.status().map((v) => ({
        name: v.name,
        transport: v.transport,
        enabled: v.enabled,
        state: v.state,
        ...(v.toolCount !== undefined ? { toolCount: v.toolCount } : {}),
        ...(v.reason ? { reason: v.reason } : {}),
      })),
    async toggle(name, enabled, ctx) {
      const entry = store.get(name);
      if (!entry) return { text: `No MCP server is named '${name}' (list_mcp_servers lists them).`, isError: true };
      if (entry.enabled === enabled) return { text: `MCP server ${name} is ${enabled ? 'on' : 'off'} already.` };
      const url = `airlock://servers/${name}`;
      const body = JSON.stringify({ name, enabled }, null, 2);
      const decision = await s.broker.request(
        {
          kind: 'api-mutation',
          runId: randomUUID(),
          caller: ctx.caller,
          profile: 'airlock',
          reason: 'mutation',
          rule: 'a client may turn an MCP server on or off only with your yes',
          operationId: 'toggle_mcp_server',
          call: 'toggle_mcp_server',
          summary: `Turn the MCP server ${name} ${enabled ? 'on' : 'off'}`,
          method: 'TOGGLE',
          pathTemplate: 'airlock://servers/{name}',
          url,
          query: {},
          headers: [],
          bodyPreview: body,
          requestHash: createHash('sha256').update(`TOGGLE\n${url}\n${body}`).digest('hex'),
          callIndex: 1,
          earlierCalls: [],
          scriptSha256: '',
          script: `toggle_mcp_server(${JSON.stringify({ name, enabled })})`,
        },
        { signal: ctx.signal },
      );
      if (!decision.approved) return { text: `Not changed: ${decision.reason}`, isError: true };
      await store.setEnabled(name, enabled);
      s.upstream.sync();
      s.logs.logger.info(`MCP server ${name} turned ${enabled ? 'on' : 'off'} by a client (toggle_mcp_server), approved by ${decision.by}`);
      s.hub.publish({ type: 'servers-changed' });
      return { text: `MCP server ${name} is ${enabled ? 'on' : 'off'} (approved by ${decision.by}).` };
    },
  };
}

/** The accepted tools of every enabled server, as search_docs searches them (each index built once per acceptance). */
function searchableTools(s: Pick<Services, 'upstream' | 'logs'>): SearchableTools[] {
  return s.upstream.acceptedTools().flatMap(({ name }) => {
    const accepted = s.upstream.accepted(name);
    if (!accepted || accepted.length === 0) return [];
    let source: ReturnType<typeof toolSearchSource>;
    try {
      source = toolSearchSource(name, accepted);
    } catch (error) {
      // One server's odd schema costs its own tools their place in search, never the others' or the APIs'.
      s.logs.logger.warn(`MCP server ${name}: its tools cannot be indexed for search_docs: ${messageOf(error)}`);
      return [];
    }
    const toolOfOp = (op: ApiOperation) => toolOf(source, op)!;
    return [
      {
        name: serverProfile(name),
        server: name,
        catalogue: source.catalogue,
        search: source.search,
        toolName: (op) => toolOfOp(op).name,
        call: (op) => toolCall(name, toolOfOp(op).name),
        card: (op, rank) => s.logs.redact(renderToolCard(name, toolOfOp(op), rank)),
        line: (op) => s.logs.redact(toolLine(name, toolOfOp(op))),
      },
    ];
  });
}
