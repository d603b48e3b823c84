// What a client reaches of other MCP servers directly, where a person opted
// a server in: its accepted tools under their direct names (`fs__write_file`),
// their definitions scrubbed as the review shows them, at most the
// directToolsMax setting; and a direct call, one run of its own through the
// tool gate, the client told while it waits for a person.
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import { redactDeep } from '../log/redactor.ts';
import type { DirectTool } from '../mcp/directTools.ts';
import type { ToolContext } from '../mcp/auditedTools.ts';
import { keepTelling, PROGRESS_EVERY_MS } from '../mcp/executeTool.ts';
import { directToolNames } from './toolNames.ts';
import type { ToolGate } from './toolGate.ts';
import { serverProfile } from '../../../contract/calls.ts';
import type { UpstreamServers } from './upstreamServers.ts';

/** The tools offered directly now: every accepted tool of the servers a person opted in, named, at most the directToolsMax setting. */
export function directList(s: { upstream: UpstreamServers; logger: Logger; redact: (text: string) => string; max: number }): DirectTool[] {
  const { max } = s;
  const offered = s.upstream.directTools();
  const { names, collisions } = directToolNames(offered.map((o) => ({ server: o.server, tool: o.tool.name })));
  for (const line of collisions) s.logger.warn(line);
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
        description: s.redact(typeof tool.description === 'string' ? tool.description : ''),
        inputSchema: redactDeep(tool.inputSchema, s.redact),
        annotations: hints,
      },
    ];
  });
  if (all.length > max) {
    s.logger.warn(
      `${all.length} tools are offered directly; clients get the first ${max} (the directToolsMax setting, --direct-tools-max; execute reaches every one as mcp.<server>.<tool>)`,
    );
  }
  return all.slice(0, max);
}

/**
 * A client's direct call: one run of its own (its id links the client's tool record to the call's), through the tool
 * gate; `recorded` settles once the call's audit records are committed (the tool record waits for it).
 */
export async function callDirect(gate: ToolGate, tool: DirectTool, args: Record<string, unknown>, ctx: ToolContext) {
  const runId = randomUUID();
  const script = `${tool.name}(${JSON.stringify(args)})`;
  // The call's audit records, committed with the client's tool record, which waits for them (RunContext.deferRecord).
  const records: Promise<unknown>[] = [];
  const result = await gate.callDirect(
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
      ...(ctx.trace ? { trace: ctx.trace } : {}),
      deferRecord: (recorded) => {
        // Awaited by the tool record's writer; never an unhandled rejection meanwhile.
        recorded.catch(() => undefined);
        records.push(recorded);
      },
    },
  );
  return { result, runId, recorded: Promise.all(records) };
}
