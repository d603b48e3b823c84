// Other MCP servers' tools offered to a client directly (issue 20), where a
// person opted in for that server: each accepted tool as `<server>__<tool>`,
// with the definition the person accepted (description, input schema,
// annotations), beside search_docs and execute. A call goes through the same
// tool gate as `mcp.<server>.<tool>` in a script. The list is capped (Cursor
// reads its first 40 tools, Copilot refuses more than 128): execute reaches
// the rest. It follows the servers: a tool accepted, changed or withdrawn is
// added, described again or removed, and the client is told.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditedTools, RegisteredToolText, ToolContext } from './auditedTools.ts';

/** One tool offered directly. */
export interface DirectTool {
  /** Its name for the client (`fs__write_file`). */
  name: string;
  server: string;
  tool: string;
  /** What its calls are audited under (`mcp:<server>`). */
  profile: string;
  description: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface DirectToolsContext {
  /** The tools to offer now, in order (already capped and named). */
  list(): DirectTool[];
  /** Calls one through the gate, as this client. */
  call(tool: DirectTool, args: Record<string, unknown>, ctx: ToolContext): Promise<{ result: CallToolResult; runId: string; recorded?: Promise<unknown> }>;
  /** Where the listed schemas are kept for tools/list (the name → the server's input schema). */
  schemas: Map<string, unknown>;
}

/** Registers the direct tools; the function it returns brings them in line with `list()` again. */
export function registerDirectTools(tools: AuditedTools, ctx: DirectToolsContext): () => void {
  const registered = new Map<string, { handle: RegisteredToolText; text: string; tool: DirectTool }>();
  const sync = () => {
    const wanted = new Map(ctx.list().map((t) => [t.name, t]));
    for (const [name, r] of registered) {
      const now = wanted.get(name);
      if (!now || now.server !== r.tool.server || now.tool !== r.tool.tool || JSON.stringify(now) !== r.text) {
        r.handle.remove();
        registered.delete(name);
        ctx.schemas.delete(name);
      }
    }
    for (const [name, tool] of wanted) {
      if (registered.has(name)) continue;
      const title = `${tool.tool} (MCP server ${tool.server}, through Airlock)`;
      // Known before it is registered: a registry that lists the schema as it registers reads it there.
      ctx.schemas.set(name, tool.inputSchema);
      const handle = tools.registerLoose(
        name,
        {
          title,
          description: `[${tool.server}, through Airlock: calls that may change something wait for a person] ${tool.description}`,
          annotations: { ...tool.annotations, title },
        },
        async (args, toolCtx) => {
          const { result, runId, recorded } = await ctx.call(tool, args, toolCtx);
          return { result, runId, profile: tool.profile, ...(result.isError ? { outcome: 'error' } : {}), ...(recorded ? { recorded } : {}) };
        },
      );
      registered.set(name, { handle, text: JSON.stringify(tool), tool });
    }
  };
  sync();
  return sync;
}
