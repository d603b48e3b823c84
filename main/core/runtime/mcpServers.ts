// One MCP server per session, from the companion's services: search_docs
// and execute (and the diagnostics tools when the setting asks for them),
// every call recorded in the audit, the session known to the registry from
// its first call or its `initialized` notification until it closes.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpServer, type ToolRegistrar } from '../mcp/createMcpServer.ts';
import { executeInputText, registerExecute } from '../mcp/executeTool.ts';
import { registerDiagnostics } from '../mcp/diagnosticsTools.ts';
import { callerOf, type ToolCallReport } from '../mcp/auditedTools.ts';
import { configOf, healthOf } from './companionViews.ts';
import type { Services } from './services.ts';

export type McpServerServices = Pick<Services, 'info' | 'settings' | 'logs' | 'api' | 'keys' | 'audit' | 'broker' | 'engines' | 'runs' | 'sessions' | 'host'>;

/** The audit record of one tool call. */
function toolRecord(s: McpServerServices, transport: 'stdio' | 'http', call: ToolCallReport) {
  const fingerprint = s.keys.credentials.state.fingerprint;
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
    profile: s.api.profile.name,
    ...(call.tool === 'execute' ? { engine: s.engines.engine.name } : {}),
    ...(call.runId ? { runId: call.runId } : {}),
  };
}

export function createMcpServerFactory(s: McpServerServices): (transport: 'stdio' | 'http') => McpServer {
  const { api, sessions } = s;
  const tools: ToolRegistrar[] = [
    (registry) =>
      registerExecute(registry, {
        service: s.runs.execute,
        apiTitle: api.catalogue.title,
        clientNames: api.clientNames,
        boundary: s.engines.state().boundary,
      }),
    ...(s.settings.values.diagnosticsTools
      ? [
          (registry: Parameters<ToolRegistrar>[0]) =>
            registerDiagnostics(registry, { logBuffer: s.logs.buffer, redact: s.logs.redact, health: () => healthOf(s), config: () => configOf(s) }),
        ]
      : []),
  ];
  return (transport) => {
    let key: string | undefined;
    const server = createMcpServer({
      api: { catalogue: api.catalogue, search: api.search, clientNames: api.clientNames, ...(api.profile.alias ? { alias: api.profile.alias } : {}) },
      logger: s.logs.logger,
      transport,
      hasExecute: true,
      warmUp: () => s.engines.engine.warmUp?.(),
      onToolStart: (caller) => {
        // A client may call before it says it is initialized: the session is known from its first call.
        key ??= caller.key;
        sessions.begin(caller);
      },
      onToolCall: (call) => {
        sessions.end(call.caller.key);
        return s.audit.recordToolCall(toolRecord(s, transport, call));
      },
      tools,
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
  };
}
