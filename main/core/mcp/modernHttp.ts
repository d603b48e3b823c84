// The 2026-07-28 revision of MCP over HTTP, beside the 2025 one on the same
// /mcp: a request that carries the revision's `_meta` envelope (or names a
// modern revision in its MCP-Protocol-Version header) is answered here, by
// the v2 SDK's per-request handler (server/discover, errors under the
// request's id, the unsupported-version error, subscriptions/listen); any
// other goes on to the sessions of the 2025 revision (httpMcpEndpoint.ts).
// The SDK's own classifier decides (isLegacyRequest), so the two can never
// disagree on which leg answers.
//
// There is no session: who calls is the credential the request was let in
// with (the companion's token or a client's own, checked before this) and
// the APIs it reaches (httpCredential.ts). That pair is the caller key
// grants, limits and held runs are bound to; a client's self-declared name
// only labels it.
//
// A plain tools/call of one of Airlock's tools is answered without the SDK
// (modernDirectCall.ts), with the tools of a server built once for its
// caller and tool; any other request, and a call that is not plain, is the
// SDK's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import {
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  createMcpHandler,
  isLegacyRequest,
  type McpServer as ModernMcpServer,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log/logger.ts';
import { readScope } from './sessionScope.ts';
import { MODERN_REVISION } from './stdioRevisions.ts';
import { readCredential } from './httpCredential.ts';
import { isPlainModernList } from './keptModernList.ts';
import { callerToolKey } from './modernServerPool.ts';
import { callDirect, directToolsOf, plainModernCall, type DirectTools, type PlainCall } from './modernDirectCall.ts';
import type { ClientTokenView } from '../http/clientTokens.ts';
import type { ClientTokenRef } from '../../../contract/approvals.ts';

/** Who a modern request is: the caller key its credential and scope make, and the scope. */
export interface ModernCaller {
  key: string;
  scope: string[] | undefined;
  /** The client's own token it came with, if any. */
  token?: ClientTokenRef;
}

export interface ModernMcpOptions {
  /**
   * The server that answers one request, for its caller; `tool`: the request calls that tool (its `Mcp-Name`, which the
   * SDK has checked against the body), the only one the server needs.
   */
  createServer(caller: ModernCaller, request?: { tool?: string }): ModernMcpServer | Promise<ModernMcpServer>;
  logger: Logger;
  /** The clients' own tokens: a request with one is that client, with its scope. */
  clientToken?: (token: string) => ClientTokenView | undefined;
}

export interface ModernMcp {
  /** Whether the request is of the 2026-07-28 revision (this leg answers it), from its headers and parsed body. */
  claims(req: IncomingMessage, body: unknown): Promise<boolean>;
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  /** Tells the clients listening (subscriptions/listen) that the tools changed. */
  toolsChanged(): void;
  close(): Promise<void>;
}

/** The request's headers as a web-standard Headers (what the SDK's classifier reads). */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** One request (not a batch) that says it is of 2026-07-28 in its `MCP-Protocol-Version` header and its envelope alike. */
function speaksModern(req: IncomingMessage, body: unknown): boolean {
  if (req.headers['mcp-protocol-version'] !== MODERN_REVISION || !body || typeof body !== 'object' || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return meta?.[PROTOCOL_VERSION_META_KEY] === MODERN_REVISION;
}

/**
 * A tools/list of this revision whose answer may be one kept for its caller: the first page, headers and envelope as
 * the SDK accepts them (a request the SDK would refuse is never answered from what was kept: it goes to the SDK).
 */
function plainList(req: IncomingMessage, body: unknown): boolean {
  if (!speaksModern(req, body) || req.headers['mcp-method'] !== 'tools/list') return false;
  if (!/application\/json/.test(req.headers['content-type'] ?? '') || !/application\/json/.test(req.headers.accept ?? '')) return false;
  return isPlainModernList(body, MODERN_REVISION);
}

/**
 * A tools/call of this revision that may be answered directly (modernDirectCall.ts): plain, its `Mcp-Method` and
 * `Mcp-Name` headers naming what its body does, sent as JSON.
 */
function plainCall(req: IncomingMessage, body: unknown): PlainCall | undefined {
  if (!speaksModern(req, body) || req.headers['mcp-method'] !== 'tools/call' || !/application\/json/.test(req.headers['content-type'] ?? '')) return undefined;
  const call = plainModernCall(body, MODERN_REVISION);
  return call && req.headers['mcp-name'] === call.name ? call : undefined;
}

/** How many callers' direct-call tables (one per caller and tool) are kept at once. */
const MAX_DIRECT = 256;

/** How many callers' tools/list answers are kept at once. */
const MAX_KEPT_LISTS = 64;

/** A tools/list answer kept for one caller: the SDK's headers and result, as it gave them. */
interface KeptList {
  headers: Record<string, string>;
  result: string;
}

export function createModernMcp(options: ModernMcpOptions): ModernMcp {
  const log = options.logger;
  // The tools/list answer of each caller (its credential and scope), kept until the tools change (issue 35 §4: the
  // SDK builds a server and writes every tool's listing for each request, ~3 ms here against ~0.2 ms for the 2025
  // revision's prepared answer). The first request of each caller, and any that is not plain, is the SDK's.
  const lists = new Map<string, KeptList>();
  let generation = 0;
  // Who each request is, read once in serve (its credential and scope) and handed to the server's factory with it.
  const callers = new WeakMap<Request, ModernCaller>();
  const handler = createMcpHandler(
    async (ctx) => {
      const request = ctx.requestInfo as Request | undefined;
      const caller = request ? callers.get(request) : undefined;
      // A request whose URL or credential is refused never gets here (answered in serve); reach nothing, to be sure.
      if (!caller) return options.createServer({ key: 'http:refused', scope: [] });
      const headers = request?.headers;
      const tool = headers?.get('mcp-method') === 'tools/call' ? (headers.get('mcp-name') ?? undefined) : undefined;
      return options.createServer(caller, tool !== undefined ? { tool } : {});
    },
    { legacy: 'reject', onerror: (error) => log.debug(`mcp 2026-07-28: ${error.message}`) },
  );
  // Each caller's tools for direct calls (a server built for the caller and the tool, kept until the tools change):
  // a plain call is answered with them, without the SDK's per-request handler, transport and web Response.
  const direct = new Map<string, DirectTools>();
  const directFor = async (caller: ModernCaller, tool: string): Promise<DirectTools> => {
    const key = callerToolKey(caller, tool);
    const known = direct.get(key);
    if (known) return known;
    const at = generation;
    const tools = directToolsOf(await options.createServer(caller, { tool }));
    // Kept only if it has the tool, and the tools did not change while it was built.
    if (at === generation && tools.has(tool)) {
      if (direct.size >= MAX_DIRECT) direct.delete(direct.keys().next().value!);
      direct.set(key, tools);
    }
    return tools;
  };
  /** Answers a plain call directly; false: the SDK answers it (a tool not Airlock's, arguments its schema refuses). */
  const answeredDirectly = async (caller: ModernCaller, call: PlainCall, res: ServerResponse): Promise<boolean> => {
    // The client hanging up cancels the call (a run waiting for a person is withdrawn), as the SDK's request signal
    // does — from the start: building the caller's server may wait for the APIs in reach to open.
    const controller = new AbortController();
    const gone = () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    };
    res.once('close', gone);
    // A server that cannot be built is the SDK's to report, as for any other request.
    const tools = await directFor(caller, call.name).catch(() => undefined);
    // A client gone before its call could start: nothing runs, and nobody is left to answer.
    if (controller.signal.aborted) return true;
    const message = tools?.has(call.name) ? await callDirect(tools, call, controller.signal).catch(() => undefined) : undefined;
    if (!message) {
      res.off('close', gone);
      return false;
    }
    const text = JSON.stringify(message);
    if (!res.destroyed) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    }
    return true;
  };
  // What serve read of each request, for the one listener that hands it to the SDK.
  const exchanges = new WeakMap<IncomingMessage, { caller: ModernCaller; body: unknown; list: boolean; at: number }>();
  const listener = getRequestListener(
    async (request, env) => {
      // Served on Airlock's HTTP/1.1 server only: its request and response.
      const { incoming, outgoing } = env as unknown as { incoming: IncomingMessage; outgoing: ServerResponse };
      const { caller, body, list, at } = exchanges.get(incoming)!;
      callers.set(request, caller);
      const response = await handler.fetch(request, { parsedBody: body });
      // A JSON answer (not a stream) is written as the SDK's bytes: @hono/node-server would read it back as a stream
      // (~4 % of the companion's time per request in a profile, and the garbage that makes).
      if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) return response;
      const bytes = Buffer.from(await response.arrayBuffer());
      if (list && response.status === 200) keepList(caller.key, response.headers, bytes.toString('utf8'), at);
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) if (name !== 'content-length') headers[name] = value;
      headers['content-length'] = String(bytes.length);
      outgoing.writeHead(response.status, headers);
      outgoing.end(bytes);
      return RESPONSE_ALREADY_SENT;
    },
    { overrideGlobalObjects: false },
  );
  /** A plain tools/list's answer, kept for its caller if the tools did not change while it was built, and only a result. */
  const keepList = (key: string, responseHeaders: Headers, text: string, at: number) => {
    const answer = JSON.parse(text) as { result?: unknown };
    if (answer.result === undefined || at !== generation) return;
    const headers = Object.fromEntries([...responseHeaders].filter(([name]) => name !== 'content-length'));
    // One per caller; a bounded number of them (each scope a client names is a caller of its own).
    if (lists.size >= MAX_KEPT_LISTS) lists.delete(lists.keys().next().value!);
    lists.set(key, { headers, result: JSON.stringify(answer.result) });
  };
  return {
    async claims(req, body) {
      if (req.method !== 'POST') return false;
      // The common case, cheaply: a request of this revision whose header and envelope agree is this leg's (the SDK
      // classifies it again in full when it serves it, and answers one it refuses with its own error). The full
      // classification was ~0.25 ms of every modern request here.
      if (speaksModern(req, body)) return true;
      const request = new Request(`http://127.0.0.1${req.url ?? '/mcp'}`, { method: 'POST', headers: headersOf(req) });
      return !(await isLegacyRequest(request, body));
    },
    async serve(req, res, body) {
      // A client choosing this revision asks server/discover first, once: said in the log, which client it was.
      const message = body as { method?: unknown; params?: { _meta?: Record<string, { name?: unknown } | undefined> } } | undefined;
      if (message?.method === 'server/discover') {
        const name = message.params?._meta?.[CLIENT_INFO_META_KEY]?.name;
        log.debug(`mcp 2026-07-28: server/discover from ${typeof name === 'string' ? name.slice(0, 100) : 'a client that gives no name'}`);
      }
      const scoped = readScope(req.url);
      const who = scoped.ok ? readCredential(req.headers.authorization, scoped.scope, options.clientToken) : scoped;
      if (!who.ok) {
        const id = body && typeof body === 'object' && 'id' in body ? (body as { id: unknown }).id : null;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: who.error } }));
        return;
      }
      const { key, scope, token } = who.credential;
      const caller: ModernCaller = { key, scope, ...(token ? { token } : {}) };
      const list = plainList(req, body);
      const kept = list ? lists.get(key) : undefined;
      if (kept) {
        res.writeHead(200, kept.headers);
        res.end(`{"jsonrpc":"2.0","id":${JSON.stringify((body as { id: unknown }).id)},"result":${kept.result}}`);
        return;
      }
      const call = list ? undefined : plainCall(req, body);
      if (call && (await answeredDirectly(caller, call, res))) return;
      exchanges.set(req, { caller, body, list, at: generation });
      await listener(req, res);
    },
    toolsChanged: () => {
      generation++;
      lists.clear();
      direct.clear();
      handler.notify.toolsChanged();
    },
    close: () => handler.close(),
  };
}
