// Builds one MCP server instance (one per session: the SDK binds a server to
// a single transport) with Airlock's instructions and tools, every tool
// registered through the audited registry.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { Logger } from '../log/logger.ts';
import { serveModernTasks, type ModernTasks } from './modernTasks.ts';
import { MODERN_REVISION, SERVER_INFO, serverCapabilities } from './serverIdentity.ts';
import { rememberAgreedVersion } from './agreedVersion.ts';
import { registerSearchDocs, type SearchableTools } from './searchDocsTool.ts';
import { serverInstructions } from './instructions.ts';
import { namedOf, type ApiInReach, type NamedApi } from './apisInReach.ts';
import { auditedTools, type AuditedTools, type ToolCallReport } from './auditedTools.ts';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { serveToolTasks } from './toolTasks.ts';
import type { CallerInfo } from '../approvals/types.ts';
import { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { verifySealedRound } from './inClientApproval.ts';
import { messageOf } from '../../../contract/values.ts';
import { modernTools } from './modernTools.ts';
import { keptModernList, type KeptModernList } from './keptModernList.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

/** Registers a tool; may return how to write its description again when what it describes changed. */
/**
 * Registers some of a server's tools (returns how to describe them again). `provides`: which tool names it
 * registers, so a server built for one tool (a modern HTTP request's) skips the rest, and what describing them reads.
 */
export type ToolRegistrar = ((tools: AuditedTools) => void | (() => void)) & { provides?(name: string): boolean };

/** A registrar that says which tools it registers. */
export function providing(register: (tools: AuditedTools) => void | (() => void), provides: (name: string) => boolean): ToolRegistrar {
  return Object.assign(register, { provides });
}

/** Each live server's way to write its tools' descriptions again (and forget the cached tools/list). */
const refreshers = new WeakMap<McpServer, () => void>();

/** Each live server's tools/list answer as JSON text, when it is prepared and nothing in reach is being opened. */
const preparedLists = new WeakMap<McpServer, () => string | undefined>();

/**
 * The answer to a tools/list request (`raw`, as read) from the server's prepared reply, as the line to write:
 * undefined when `raw` is not a plain tools/list (a cursor, no id) or no reply is prepared (the server answers it).
 */
export function preparedAnswer(server: McpServer, raw: unknown): Buffer | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const request = raw as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: { cursor?: unknown } };
  if (request.method !== 'tools/list' || request.jsonrpc !== '2.0' || (typeof request.id !== 'string' && typeof request.id !== 'number')) return undefined;
  if (request.params !== undefined && (typeof request.params !== 'object' || request.params === null || request.params.cursor !== undefined)) return undefined;
  const text = preparedLists.get(server)?.();
  // In the order the SDK writes its answers, so the joined pipe's shim passes the line on unparsed (leanMcpPipe.ts).
  return text === undefined ? undefined : Buffer.from(`{"result":${text},"jsonrpc":"2.0","id":${JSON.stringify(request.id)}}`);
}

/**
 * The APIs a server's tools describe changed (one enabled, disabled, loaded): its descriptions are written
 * again, and a connected client whose tools changed is told (notifications/tools/list_changed).
 */
export function refreshTools(server: McpServer): void {
  refreshers.get(server)?.();
}

export interface McpServerOptions {
  /** The APIs the session reaches that are loaded, in name order (what the descriptions name). */
  apis(): ApiInReach[];
  /** The same once those still loading have loaded or failed (what a search searches). */
  ready(): Promise<ApiInReach[]>;
  /** The APIs the session reaches, loaded or still loading (what the instructions name); default: apis(). */
  named?(): NamedApi[];
  logger: Logger;
  transport: 'stdio' | 'http';
  /** Further tools (execute, diagnostics) registered after search_docs. */
  tools?: ToolRegistrar[];
  hasExecute?: boolean;
  /** Called when a client searches: it will likely run code next, so the engine gets ready in the background. */
  warmUp?: () => void;
  /** Called when each tool call starts (the session registry counts calls in flight). */
  onToolStart?(caller: CallerInfo): void;
  /** Called when each tool call finishes; its result is returned once this settles, and withheld if it throws. */
  onToolCall(report: ToolCallReport): void | Promise<unknown>;
  /** Where each tool call's span and duration go (telemetry on). */
  telemetry?: Telemetry;
  /** Other MCP servers' accepted tools search_docs finds beside the APIs. */
  searchTools?(): SearchableTools[];
  /** The JSON schemas loose tools (registerLoose: another server's tools) are listed with, by tool name. */
  listedSchemas?(): ReadonlyMap<string, unknown>;
  /** Whether an API in reach is being opened (tools/list then waits for it, and no prepared reply is used). */
  opening?(): boolean;
  /** The companion's tasks for 2026-07-28 clients (the Tasks extension), with execute. */
  modernTasks?: ModernTasks;
}

/**
 * The SDK builds a JSON-schema validator (Ajv, with its formats: ~10 ms) for
 * every server, that is every session, although only an elicitation's answer
 * is ever checked with it. One is built on first use and shared.
 */
let ajv: AjvJsonSchemaValidator | undefined;
const sharedValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/**
 * One notifications/tools/list_changed per change: the SDK sends one for every tool registered, updated or
 * removed, so a direct-tools toggle (a dozen tools) or an API change (two descriptions) sent many. Every change
 * made in the same turn of the event loop is told once, after it. A server of either SDK line.
 */
function coalesceToolListChanged(server: { sendToolListChanged(): void; isConnected(): boolean }): void {
  const send = server.sendToolListChanged.bind(server);
  let queued = false;
  server.sendToolListChanged = () => {
    // As the SDK does: a change made before a client is connected (the tools registered as the server is built) is
    // told to no one — the client lists them after initialize.
    if (queued || !server.isConnected()) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      send();
    });
  };
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const atStart = options.apis();
  const taskStore = options.hasExecute ? new InMemoryTaskStore() : undefined;
  const server = new McpServer(
    { ...SERVER_INFO },
    {
      // With execute: task-augmented calls (MCP tasks), each session's tasks in its own store.
      capabilities: serverCapabilities(options.hasExecute ?? false),
      ...(taskStore ? { taskStore } : {}),
      jsonSchemaValidator: sharedValidator,
      instructions: serverInstructions({ apis: options.named?.() ?? atStart.map(namedOf), hasExecute: options.hasExecute ?? false }),
    },
  );
  coalesceToolListChanged(server);
  rememberAgreedVersion(server);
  const tools = auditedTools(server, {
    transport: options.transport,
    report: options.onToolCall,
    ...(options.onToolStart ? { onStart: options.onToolStart } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  const refresh = registerAirlockTools(tools, options, '');
  serveToolTasks(server, tools.taskTools);
  // A session's tasks end with it (their expiry timers too).
  if (taskStore) {
    const closed = server.server.onclose;
    server.server.onclose = () => {
      taskStore.cleanup();
      closed?.();
    };
  }
  // tools/list waits for the APIs in reach being opened (initialize does not): the tools then describe them all.
  const list = cacheToolList(
    server,
    async () => {
      await options.ready();
      for (const again of refresh) again();
    },
    options.listedSchemas,
  );
  refreshers.set(server, () => {
    list.forget();
    for (const again of refresh) again();
  });
  preparedLists.set(server, () => (options.opening?.() ? undefined : list.prepared()));
  return server;
}

/** Each modern server's way to write its tools' descriptions again (a stdio connection's server lives for it). */
const modernRefreshers = new WeakMap<ModernMcpServer, () => void>();

/** The APIs a modern server's tools describe changed: its descriptions are written again and a listening client told. */
export function refreshModernTools(server: ModernMcpServer): void {
  modernRefreshers.get(server)?.();
}

/** Something a modern caller presented was refused (a sealed state, another's task): logged, and audited as an execute call. */
async function recordRefusal(
  options: McpServerOptions,
  caller: Omit<CallerInfo, 'clientName' | 'clientVersion' | 'protocolVersion'>,
  why: string,
): Promise<void> {
  options.logger.child('mcp').warn(`${why}; from ${caller.key}`);
  await options.onToolCall({
    tool: 'execute',
    args: {},
    caller,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    outcome: 'refused',
    bytesOut: 0,
    error: why,
  });
}

/**
 * A server of the 2026-07-28 revision (the v2 SDK) — over HTTP for one request, over stdio for one connection — with
 * the same instructions and tools as a session's server of the 2025 revision, described as they are now: the APIs in
 * reach being opened are waited for first, as a session's tools/list waits for them. Its calls are audited for
 * `caller` (the request's credential and scope, or the pipe), labelled with the name the client declares.
 */
export async function createModernMcpServer(
  options: McpServerOptions,
  caller: Omit<CallerInfo, 'clientName' | 'clientVersion' | 'protocolVersion'>,
  onlyTool?: string,
): Promise<ModernMcpServer> {
  await options.ready();
  const server = new ModernMcpServer(
    { ...SERVER_INFO },
    {
      capabilities: { tools: { listChanged: true } },
      // The cache hints of 2026-07-28 list results, said rather than left to the SDK's defaults: private (what is
      // listed depends on the credential and scope) and not to be reused (the list changes when an API is enabled or
      // a server's tools are accepted; subscriptions/listen says when).
      cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' }, 'server/discover': { ttlMs: 0, cacheScope: 'private' } },
      // A round's sealed state is checked before any handler sees it (inClientApproval.ts); one refused is recorded.
      requestState: {
        verify: async (state, ctx) => {
          try {
            return await verifySealedRound(state, ctx);
          } catch (error) {
            const why = `a requestState was refused (${messageOf(error)}): altered, expired, or made before the companion's last start`;
            // Only execute hands states out (an approval asked in the client): the refusal is audited as its call.
            await recordRefusal(options, caller, why);
            throw error;
          }
        },
      },
      instructions: serverInstructions({ apis: options.named?.() ?? options.apis().map(namedOf), hasExecute: options.hasExecute ?? false }),
    },
  );
  coalesceToolListChanged(server);
  const tools = modernTools(server, caller, {
    transport: options.transport,
    report: options.onToolCall,
    ...(options.onToolStart ? { onStart: options.onToolStart } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.listedSchemas ? { listedSchemas: options.listedSchemas } : {}),
    ...(onlyTool !== undefined ? { onlyTool } : {}),
    ...(options.modernTasks ? { tasks: options.modernTasks } : {}),
  });
  const refresh = registerAirlockTools(tools, options, ' (2026-07-28)');
  if (options.modernTasks && options.hasExecute) {
    // Another caller naming a task is answered as for one that never was; the attempt is recorded, as a resume's is.
    serveModernTasks(server, options.modernTasks, caller.key, (taskId, method) => {
      const why = `${method} named another client's task (${taskId.slice(0, 8)}…): answered as no such task`;
      void recordRefusal(options, caller, why).catch(() => undefined);
    });
  }
  const again = () => {
    for (const one of refresh) one();
  };
  // A connection's server (stdio) lives on: its tools/list waits for the APIs in reach being opened, as a session's
  // does, and then describes them (otherwise the tools were described again when what is served last changed); the
  // answer it gave is kept until they change.
  if (options.transport !== 'stdio') modernRefreshers.set(server, again);
  else {
    const kept = keptModernList(MODERN_REVISION, () => options.opening?.() ?? false);
    keptLists.set(server, kept);
    modernRefreshers.set(server, () => {
      kept.forget();
      again();
    });
    listOncePerChange(
      server,
      async () => {
        if (!options.opening?.()) return;
        await options.ready();
        again();
      },
      kept.forget,
    );
  }
  return server;
}

/** A stdio connection's modern server: its tools/list answer kept until the tools change (keptModernList.ts). */
const keptLists = new WeakMap<ModernMcpServer, KeptModernList>();

/** The kept tools/list answer of a connection's 2026-07-28 server (absent: an HTTP request's server). */
export function keptListOf(server: ModernMcpServer): KeptModernList | undefined {
  return keptLists.get(server);
}

/**
 * A long-lived v2 server's tools/list (a stdio connection's): `before` runs ahead of each, and the answer is built once
 * per change of the tools (the SDK writes every tool's listing again for each request) — forgotten whenever the server
 * says its tools changed. Its handler table is the SDK's; if a future SDK hides it, lists are answered unwaited, uncached.
 */
function listOncePerChange(server: ModernMcpServer, before: () => Promise<void>, changed: () => void): void {
  type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const original = handlers?.get('tools/list');
  if (!handlers || !original) return;
  let cached: Promise<unknown> | undefined;
  const told = server.sendToolListChanged.bind(server);
  server.sendToolListChanged = () => {
    cached = undefined;
    changed();
    told();
  };
  handlers.set('tools/list', async (request, ctx) => {
    await before();
    if ((request as { params?: { cursor?: unknown } }).params?.cursor !== undefined) return original(request, ctx);
    const made = (cached ??= original(request, ctx));
    made.catch(() => {
      if (cached === made) cached = undefined;
    });
    return made;
  });
}

/** search_docs, then the further tools, on a registry of either revision; returns how to write their descriptions again. */
function registerAirlockTools(tools: AuditedTools, options: McpServerOptions, logNote: string): (() => void)[] {
  const log = options.logger.child('mcp');
  const refresh: (() => void)[] = [];
  const only = tools.only;
  if (only === undefined || only === 'search_docs')
    refresh.push(
      registerSearchDocs(tools, {
        apis: options.apis,
        ready: options.ready,
        ...(options.searchTools ? { tools: options.searchTools } : {}),
        onSearch: (query, count, ms) => {
          options.warmUp?.();
          log.debug(`search_docs "${query.slice(0, 80)}" → ${count} results in ${ms.toFixed(1)} ms${logNote}`);
        },
      }),
    );
  for (const register of options.tools ?? []) {
    if (only !== undefined && register.provides && !register.provides(only)) continue;
    const again = register(tools);
    if (again) refresh.push(again);
  }
  return refresh;
}

/**
 * The SDK rebuilds every tool's JSON schema from zod on each tools/list
 * (~1.5 ms here, against ~0.25 ms for a one-tool server). Airlock's tools
 * change only when the APIs in reach do (refreshTools forgets the answer),
 * so the answer is built once per change, and kept as JSON text too: the
 * transports answer a plain tools/list with it before the SDK reads the
 * request (preparedAnswer). If a future SDK hides its handler table, the
 * SDK's own handler stays.
 */
function cacheToolList(
  server: McpServer,
  before: () => Promise<void>,
  schemas?: () => ReadonlyMap<string, unknown>,
): { forget(): void; prepared(): string | undefined } {
  type Handler = (request: unknown, extra: unknown) => Promise<unknown>;
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const original = handlers?.get('tools/list');
  if (!handlers || !original) return { forget: () => undefined, prepared: () => undefined };
  let cached: Promise<unknown> | undefined;
  let text: string | undefined;
  handlers.set('tools/list', async (request, extra) => {
    await before();
    const params = (request as { params?: { cursor?: unknown } }).params;
    if (params?.cursor !== undefined) return original(request, extra);
    if (!cached) {
      const made: Promise<unknown> = original(request, extra)
        .then((answer) => withSchemas(answer, schemas?.()))
        .then((answer) => {
          // Only the answer of the latest build (a change may have come meanwhile).
          if (cached === made) text = JSON.stringify(answer);
          return answer;
        })
        .catch((error: unknown) => {
          if (cached === made) cached = undefined;
          throw error;
        });
      cached = made;
    }
    return cached;
  });
  return {
    forget() {
      cached = undefined;
      text = undefined;
    },
    prepared: () => text,
  };
}

/** A tools/list answer with each loose tool's input schema put back as its server gives it. */
function withSchemas(answer: unknown, schemas: ReadonlyMap<string, unknown> | undefined): unknown {
  if (!schemas || schemas.size === 0) return answer;
  const list = answer as { tools: { name: string; inputSchema: unknown }[] };
  return { ...list, tools: list.tools.map((t) => (schemas.has(t.name) ? { ...t, inputSchema: schemas.get(t.name) } : t)) };
}
