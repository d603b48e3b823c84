// Builds one MCP server instance (one per session: the SDK binds a server to
// a single transport) with Airlock's instructions and tools, every tool
// registered through the audited registry.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AirlockCore } from '../runtime/airlockCore.ts';
import { registerSearchDocs } from './searchDocsTool.ts';
import { serverInstructions } from './instructions.ts';
import { auditedTools, type AuditedTools, type ToolCallReport } from './auditedTools.ts';

export type ToolRegistrar = (tools: AuditedTools) => void;

export interface McpServerOptions {
  core: AirlockCore;
  transport: 'stdio' | 'http';
  /** Further tools (execute, diagnostics) registered after search_docs. */
  tools?: ToolRegistrar[];
  hasExecute?: boolean;
  /** Called synchronously when each tool call finishes, before its result is returned. */
  onToolCall(report: ToolCallReport): void;
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
  const tools = auditedTools(server, { transport: options.transport, report: options.onToolCall });
  registerSearchDocs(tools, {
    catalogue,
    search,
    ...(profile.alias ? { alias: profile.alias } : {}),
    onSearch: (query, count, ms) => log.debug(`search_docs "${query.slice(0, 80)}" → ${count} results in ${ms.toFixed(1)} ms`),
  });
  for (const register of options.tools ?? []) register(tools);
  return server;
}
