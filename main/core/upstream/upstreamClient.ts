// Airlock as the MCP client of a stdio server: start it (childProcess.ts)
// with the environment its entry allows, talk over bounded lines
// (childTransport.ts), list its tools, call one within the entry's timeout
// (reset by progress notifications), and stop its process group. A server
// that cannot be started or does not answer `initialize` is refused with
// why, and the last lines it wrote to stderr. A stdio server is spoken to
// with the v2 SDK's client, which asks `server/discover` first: a server of
// MCP 2026-07-28 is spoken to in that revision, any other falls back to
// `initialize` and 2025 as before. So is a remote one (httpConnection.ts),
// with the client `airlockClient` makes.
import { Client as ModernClient } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AirlockError } from '../util/errors.ts';
import { AIRLOCK_VERSION } from '../util/version.ts';
import { startChild, type ChildExit, type StartedChild } from './childProcess.ts';
import { ChildTransport } from './childTransport.ts';
import type { StdioServerEntry } from './serverEntry.ts';
import { messageOf } from '../../../contract/values.ts';

export interface UpstreamConnection {
  /** The server's tools, as it lists them (every page). */
  tools(): Promise<Tool[]>;
  /** Calls a tool; fails after the entry's timeout without an answer or a progress notification. */
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallToolResult>;
  /** The last lines the server wrote to stderr. */
  stderrTail(): string[];
  /** Settles when the server's process has exited. */
  readonly exited: Promise<ChildExit>;
  /** Ends the session and stops the server's process group. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The child's whole environment (childEnvironment.ts). */
  env: Record<string, string>;
  /** Where the server's stderr lines and refused messages go (the live log), already redacted. */
  log(line: string): void;
  /** Scrubs the secrets the server was given from what it says (stderr lines, the reason it failed). */
  redact?(text: string): string;
  maxMessageBytes?: number;
  /** The server said its tools changed (`notifications/tools/list_changed`). */
  onToolsChanged?(): void;
  /** Answers the server's questions (elicitation); absent, it cannot ask. */
  elicit?: ElicitHandler;
}

/** The most pages and tools a tools/list is read for: a server that never stops paging is cut off. */
export const MAX_TOOL_PAGES = 100;
export const MAX_TOOLS = 5000;
/** However much progress a server reports, a call ends after this many times its timeout. */
export const MAX_TOTAL_TIMEOUT_FACTOR = 10;

export async function connectStdio(name: string, entry: StdioServerEntry, options: ConnectOptions): Promise<UpstreamConnection> {
  const redact = options.redact ?? ((text: string) => text);
  let child: StartedChild;
  try {
    child = startChild({ command: entry.command, args: entry.args, env: options.env, onStderrLine: (line) => options.log(redact(`${name} stderr: ${line}`)) });
  } catch (error) {
    throw new AirlockError('config', `MCP server ${name}: ${entry.command} could not be started: ${messageOf(error)}`);
  }
  const transport = new ChildTransport({
    from: child.process.stdout,
    to: child.process.stdin,
    ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
    onRefused: (why) => options.log(redact(`${name}: ${why}`)),
  });
  const client = airlockClient(options.onToolsChanged, options.elicit);
  const failed = (why: string) => {
    const tail = child.stderrTail().filter((l) => l.trim());
    return new AirlockError(
      'config',
      redact(`MCP server ${name} (${entry.command}) ${why}${tail.length > 0 ? `; its last lines: ${tail.slice(-5).join(' | ')}` : ''}`),
    );
  };
  try {
    await Promise.race([
      client.connect(transport as never, { timeout: entry.timeoutMs }),
      child.exited.then(async ({ code, signal, error }) => {
        await child.outputDone;
        return Promise.reject(failed(error ? `could not be started: ${error.message}` : `exited before it answered (${signal ?? `code ${code}`})`));
      }),
    ]);
  } catch (error) {
    // Its pipes close a moment before its exit is known: a server that died says how, not "connection closed".
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([child.exited, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 500)))]);
    clearTimeout(timer);
    await client.close().catch(() => undefined);
    await child.stop();
    if (error instanceof AirlockError) throw error;
    if (exit) await child.outputDone;
    if (exit) throw failed(exit.error ? `could not be started: ${exit.error.message}` : `exited before it answered (${exit.signal ?? `code ${exit.code}`})`);
    throw failed(`did not answer initialize: ${messageOf(error)}`);
  }
  return {
    ...clientCalls(toolCaller(client), entry.timeoutMs, failed),
    stderrTail: () => child.stderrTail(),
    exited: child.exited,
    async close() {
      await client.close().catch(() => undefined);
      await child.stop();
    },
  };
}

/** The options a tool call is made with, as both SDK lines take them. */
interface CallOptions {
  timeout: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeout: number;
  onprogress: () => void;
  signal?: AbortSignal;
}

/** What the calls need of a client. */
export interface ToolCaller {
  listTools(params: { cursor?: string }, options: { timeout: number }): Promise<{ tools: Tool[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, options: CallOptions): Promise<CallToolResult>;
}

/**
 * A client's calls. `pages`: one page of tools per request, walked (and a server that never stops paging cut off) in
 * clientCalls. `sdk` (a remote server): the SDK walks the pages itself (at most MAX_TOOL_PAGES) and keeps the list,
 * which it needs for MCP 2026-07-28 over HTTP (SEP-2243): it leaves out a tool whose `x-mcp-header` declarations are
 * invalid, and sends a tool's designated arguments again as `Mcp-Param-*` headers on each call.
 */
export function toolCaller(client: ModernClient, walk: 'pages' | 'sdk' = 'pages'): ToolCaller {
  return {
    listTools: (params, options) =>
      (walk === 'sdk' && !params.cursor ? client.listTools(undefined, options) : client.request({ method: 'tools/list', params }, options)) as Promise<{
        tools: Tool[];
        nextCursor?: string;
      }>,
    callTool: (params, options) => client.callTool(params, options) as Promise<CallToolResult>,
  };
}

/** The calls every connection makes the same way, whatever carries them: every page of tools, one tool within the timeout. */
export function clientCalls(client: ToolCaller, timeoutMs: number, failed: (why: string) => Error): Pick<UpstreamConnection, 'tools' | 'call'> {
  return {
    async tools() {
      const all: Tool[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= MAX_TOOL_PAGES) throw failed(`listed its tools over more than ${MAX_TOOL_PAGES} pages`);
        const answer = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        all.push(...answer.tools);
        if (all.length > MAX_TOOLS) throw failed(`lists more than ${MAX_TOOLS} tools`);
        cursor = answer.nextCursor;
        if (!cursor) return checkedTools(all, failed);
        if (seen.has(cursor)) throw failed('gave a tools/list cursor it had given before');
        seen.add(cursor);
      }
    },
    async call(tool, args, callOptions = {}) {
      return await client.callTool(
        { name: tool, arguments: args },
        {
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: timeoutMs * MAX_TOTAL_TIMEOUT_FACTOR,
          // A progress token is sent, so a server can say it is still working.
          onprogress: () => undefined,
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        },
      );
    },
  };
}

/** A question a server asks the person (elicitation): the answer, or undefined when the person declined. */
export type ElicitHandler = (message: string, schema: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;

/**
 * Airlock as an MCP client (the v2 SDK's), told when the server's tools change. It asks `server/discover` first and
 * speaks MCP 2026-07-28 to a server that does, else `initialize` and the 2025 revision the server agrees to. With
 * `elicit`, it declares elicitation and answers a server's question through it (a request of the server's in 2025,
 * an `input_required` answer in 2026-07-28), with the schema's defaults filled in for what the answer leaves out
 * (SEP-1034); without, a server cannot ask (the capability is not declared).
 */
export function airlockClient(onToolsChanged?: () => void, elicit?: ElicitHandler): ModernClient {
  const client = new ModernClient(
    { name: 'airlock', version: AIRLOCK_VERSION },
    { capabilities: elicit ? { elicitation: {} } : {}, versionNegotiation: { mode: 'auto' }, listMaxPages: MAX_TOOL_PAGES },
  );
  client.setNotificationHandler('notifications/tools/list_changed', () => onToolsChanged?.());
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; mode?: string; requestedSchema?: { properties?: Record<string, { default?: unknown }> } };
      // Only the form mode is declared (a page to open, URL mode, is not asked): one sent anyway is declined.
      if (params.mode === 'url') return { action: 'decline' };
      const schema = params.requestedSchema ?? {};
      const answer = await elicit(params.message, schema as Record<string, unknown>);
      if (!answer) return { action: 'decline' };
      return { action: 'accept', content: { ...withDefaults(schema), ...answer } as Record<string, string | number | boolean | string[]> };
    });
  }
  return client;
}

/** The defaults an elicitation schema gives its fields. */
export function withDefaults(schema: { properties?: Record<string, { default?: unknown }> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema.properties ?? {}).flatMap(([k, p]) => (p && p.default !== undefined ? [[k, p.default]] : [])));
}

/**
 * A tool list Airlock can pin: one definition per name (two would let a review see one and a call run the other),
 * and no name an object would treat as its prototype.
 */
function checkedTools(tools: Tool[], failed: (why: string) => Error): Tool[] {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (tool.name === '__proto__') throw failed('lists a tool named __proto__, which Airlock refuses');
    if (seen.has(tool.name)) throw failed(`lists two tools named ${JSON.stringify(tool.name.slice(0, 100))}`);
    seen.add(tool.name);
  }
  return tools;
}
