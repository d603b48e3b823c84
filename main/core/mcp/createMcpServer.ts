// Builds one MCP server instance (one per session: the SDK binds a server to
// a single transport) with Airlock's tools and instructions.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AirlockCore } from '../runtime/airlockCore.ts';
import { registerSearchDocs } from './searchDocsTool.ts';
import { serverInstructions } from './instructions.ts';

export type ToolRegistrar = (server: McpServer) => void;

/** One finished tool call, for the audit store (recorded before the result goes back). */
export interface ToolCallReport {
  tool: string;
  args: unknown;
  startedAt: string;
  durationMs: number;
  client: { name: string; version: string } | undefined;
  sessionId: string | undefined;
  result: (CallToolResult & object) | undefined;
  bytesOut: number;
  error?: string;
}

export interface McpServerOptions {
  core: AirlockCore;
  /** Further tools (execute, diagnostics) registered after search_docs. */
  tools?: ToolRegistrar[];
  hasExecute?: boolean;
  /** Called synchronously when each tool call finishes, before its result is returned. */
  onToolCall?(report: ToolCallReport): void;
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const { core } = options;
  const { catalogue, search, profile } = core.api;
  const server = new McpServer(
    { name: 'airlock', title: 'Airlock', version: core.version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: serverInstructions({
        apiTitle: catalogue.title,
        operationCount: catalogue.operations.length,
        clientNames: core.clientNames,
        hasExecute: options.hasExecute ?? false,
      }),
    },
  );
  const log = core.logger.child('mcp');
  if (options.onToolCall) auditEveryTool(server, options.onToolCall);
  registerSearchDocs(server, {
    catalogue,
    search,
    ...(profile.alias ? { alias: profile.alias } : {}),
    onSearch: (query, count, ms) => log.debug(`search_docs "${query.slice(0, 80)}" → ${count} results in ${ms.toFixed(1)} ms`),
  });
  for (const register of options.tools ?? []) register(server);
  return server;
}

/**
 * Wraps every tool registered on this server so each call is reported — with
 * its client, timing, size and outcome — before its result leaves.
 */
function auditEveryTool(server: McpServer, report: (r: ToolCallReport) => void): void {
  const register = server.registerTool.bind(server) as (...args: any[]) => any;
  (server as { registerTool: unknown }).registerTool = (name: string, config: unknown, handler: (...a: any[]) => Promise<CallToolResult>) =>
    register(name, config, async (...args: any[]) => {
      const started = performance.now();
      const startedAt = new Date().toISOString();
      const extra = args[args.length - 1] as { sessionId?: string };
      const input = args.length > 1 ? args[0] : {};
      const base = () => ({
        tool: name,
        args: input,
        startedAt,
        durationMs: performance.now() - started,
        client: server.server.getClientVersion(),
        sessionId: extra?.sessionId,
      });
      let result: CallToolResult;
      try {
        result = await handler(...args);
      } catch (error) {
        report({ ...base(), result: undefined, bytesOut: 0, error: (error as Error).message });
        throw error;
      }
      try {
        report({ ...base(), result, bytesOut: Buffer.byteLength(JSON.stringify(result.content ?? [])) });
      } catch (error) {
        // Fail closed: a tool call that cannot be audited does not hand its result back.
        return {
          isError: true,
          content: [
            {
              type: 'text',
              text: `The audit log could not record this call (${(error as Error).message}), so its result is withheld. The person running Airlock should check its log.`,
            },
          ],
        };
      }
      return result;
    });
}
