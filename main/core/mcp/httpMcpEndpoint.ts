// MCP Streamable HTTP on /mcp (POST, GET, DELETE), one SDK transport and one
// server per session, bound to the token it was opened with; a sessionless
// request of the 2026-07-28 revision goes to its own leg (modernHttp.ts). Bounded without locking anyone out: a session idle for
// `idleMs` (no request, nothing in flight, no open event stream: its client
// went away without a DELETE) expires, and when the session cap is reached
// the oldest idle session is evicted to make room. A client that
// drops the connection of a POST before its answer is treated as cancelling
// the requests in it, so a call waiting for a person is withdrawn.
//
// The SDK's web-standard transport is used (with the same Node adapter the
// SDK's Node transport wraps it in), so that a session whose `initialize`
// was answered while the companion started (earlyHttpMcp.ts) can be opened
// under its id and shown that `initialize` without a client connection.
import { readScope } from './sessionScope.ts';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { preparedAnswer } from './createMcpServer.ts';
import { traceExchange } from './requestTracing.ts';
import { httpSessionKey } from './sessionRegistry.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { GOING_AWAY, GOING_AWAY_CODE } from './goingAway.ts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../log/logger.ts';
import { sendJson, type Route } from '../http/loopbackServer.ts';
import { readMcpBody } from './mcpRequestBody.ts';
import type { EarlySession, McpTakeover } from './earlyHttpMcp.ts';
import type { ModernMcp } from './modernHttp.ts';
import type { ClientTokenView } from '../http/clientTokens.ts';
import { readCredential, sessionCredential } from './httpCredential.ts';
import type { ClientTokenRef } from '../../../contract/approvals.ts';

const DEFAULT_IDLE_MS = 30 * 60_000;
/** How often idle sessions are looked for (they are also looked for before each new session). */
const SWEEP_EVERY_MS = 15_000;

type Transport = WebStandardStreamableHTTPServerTransport;

/** Serves one Node request through a web-standard transport (as the SDK's StreamableHTTPServerTransport does). */
function serveNode(transport: Transport, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const listener = getRequestListener((request) => transport.handleRequest(request, { parsedBody: body }), { overrideGlobalObjects: false });
  return Promise.resolve(listener(req, res));
}

interface Session {
  transport: Transport;
  server: McpServer;
  lastSeen: number;
  inFlight: number;
  /** Event streams (GET) the client holds open: a client listening is not gone. */
  streams: number;
  /** The ids of the requests in flight (each answered with an error if the companion goes first). */
  pending: Set<string | number>;
  /** A hash of the bearer token it was opened with: a request with another token does not find it. */
  credential: string;
}

export interface McpEndpointOptions {
  /** A server for a new session; `scope` is what its URL names (absent: every API). */
  createServer: (scope: string[] | undefined, clientToken?: ClientTokenRef) => McpServer;
  logger: Logger;
  maxSessions?: number;
  /** A session with no request, call or stream for this long expires (default 30 min); read at each sweep (a live setting). */
  idleMs?: number | (() => number);
  /** A request arrived in this session (the registry's "last seen"). */
  onSeen?: (sessionId: string) => void;
  /** Where each request's span goes (telemetry on); a tools/call's is opened by its tool. */
  telemetry?: Telemetry;
  now?: () => number;
  /** The clients' own tokens: a session opened with one reaches what its token allows. */
  clientToken?: (token: string) => ClientTokenView | undefined;
  /** The 2026-07-28 revision's leg: a request it claims (no session, the revision's envelope) is answered there. */
  modern?: ModernMcp;
}

export interface McpEndpoint extends McpTakeover {
  route: Route;
  sessionCount(): number;
  /** Closes sessions idle past the limit (also run on a timer and before each new session). */
  sweep(): number;
  /** Ends every session (the token was rotated): their clients must initialize again, with the new token. */
  endAll(why: string): number;
  /** Answers every request in flight with a JSON-RPC error under its id (`why`) on its own stream, then ends every session. */
  close(why?: string): Promise<void>;
}

/** The request takes a JSON answer (Streamable HTTP: a client accepts JSON and an event stream). */
function acceptsJson(req: IncomingMessage): boolean {
  return /application\/json|\*\/\*/.test(req.headers.accept ?? '');
}

/** The request names no protocol version, or one the SDK serves (it refuses the others itself). */
function knownVersion(req: IncomingMessage): boolean {
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}

/** The ids of the JSON-RPC requests (not notifications) in a POST body. */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) =>
    m && typeof m === 'object' && 'method' in m && 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
  );
}

export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const sessions = new Map<string, Session>();
  const max = options.maxSessions ?? 64;
  const idle = options.idleMs ?? DEFAULT_IDLE_MS;
  const idleMs = typeof idle === 'function' ? idle : () => idle;
  const now = options.now ?? Date.now;
  const log = options.logger;

  const end = (id: string, why: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    log.info(`mcp session ${id.slice(0, 8)} ${why}`);
    void s.server.close().catch(() => undefined);
  };

  function sweep(): number {
    let n = 0;
    const limit = idleMs();
    for (const [id, s] of sessions) {
      if (s.inFlight === 0 && s.streams === 0 && now() - s.lastSeen > limit) {
        end(id, `expired: no request for ${Math.round((now() - s.lastSeen) / 1000)} s (the limit is ${Math.round(limit / 1000)} s, --http-session-idle)`);
        n++;
      }
    }
    return n;
  }
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();

  /** Makes room for a new session: the oldest idle one goes. False when every session is busy. */
  function makeRoom(): boolean {
    sweep();
    if (sessions.size < max) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) if (entry[1].inFlight === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    if (!oldest) return false;
    end(oldest[0], `evicted (the ${max}-session cap was reached; it was the oldest idle)`);
    return true;
  }

  /** A transport for a new session, registered once its `initialize` is handled. */
  function openSession(
    scope: string[] | undefined,
    sessionId: string,
    credential: string,
    clientToken: ClientTokenRef | undefined,
  ): { server: McpServer; transport: Transport } {
    const server = options.createServer(scope, clientToken);
    const transport: Transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, server, lastSeen: now(), inFlight: 0, streams: 0, pending: new Set(), credential });
        log.info(`mcp session ${sid.slice(0, 8)} opened (${sessions.size} live)`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && sessions.delete(transport.sessionId)) log.info(`mcp session ${transport.sessionId.slice(0, 8)} closed`);
    };
    return { server, transport };
  }

  /** Opens a session whose `initialize` was answered early: its server sees that `initialize`; its answer is dropped. */
  async function adopt(early: EarlySession): Promise<void> {
    if (!makeRoom()) throw new Error(`all ${max} sessions are busy`);
    const { server, transport } = openSession(early.scope, early.sessionId, early.credential, early.clientToken);
    await server.connect(transport);
    const answer = await transport.handleRequest(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(early.initialize),
      }),
      { parsedBody: early.initialize },
    );
    const text = await answer.text();
    if (!answer.ok || !sessions.has(early.sessionId) || /^data: .*"error":/m.test(text)) {
      sessions.delete(early.sessionId);
      void server.close().catch(() => undefined);
      throw new Error(`the server refused the initialize it was shown (${answer.status})`);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, preread?: { body: unknown }): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    let body: unknown;
    if (req.method === 'POST') {
      const read = preread ?? (await readMcpBody(req, res));
      if (!read) return;
      body = read.body;
      // Each request of the POST a span (telemetry on), until its answer is written, whoever writes it.
      if (options.telemetry?.enabled) {
        const version = req.headers['mcp-protocol-version'];
        const done = traceExchange(options.telemetry, body, {
          key: id ? httpSessionKey(id) : 'http:stateless',
          transport: 'http',
          ...(id ? { sessionId: id } : {}),
          ...(typeof version === 'string' ? { protocolVersion: version.slice(0, 20) } : {}),
        });
        res.once('close', () => done(res.statusCode));
      }
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, POST, DELETE' });
    }

    if (id) {
      const found = sessions.get(id);
      // A session is found only with the token it was opened with: another client that learns its id gets nothing.
      const session = found && found.credential === sessionCredential(req.headers.authorization) ? found : undefined;
      if (!session) return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'session not found: initialize again' }, id: null });
      session.lastSeen = now();
      options.onSeen?.(id);
      if (req.method === 'GET') {
        // A client listening on its stream is there; when the stream closes, the idle clock starts.
        session.streams++;
        res.on('close', () => {
          session.streams--;
          session.lastSeen = now();
        });
      }
      if (req.method !== 'POST') return serveNode(session.transport, req, res, body);
      // A plain tools/list is answered from the session server's prepared reply, as JSON, before the SDK reads it.
      const prepared = acceptsJson(req) && knownVersion(req) ? preparedAnswer(session.server, body) : undefined;
      if (prepared) {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id, 'content-length': prepared.length });
        res.end(prepared);
        return;
      }
      session.inFlight++;
      const ids = requestIds(body);
      for (const requestId of ids) session.pending.add(requestId);
      // The client dropped the connection before its answer: its requests are cancelled (pending approvals withdrawn).
      res.on('close', () => {
        session.inFlight--;
        for (const requestId of ids) session.pending.delete(requestId);
        session.lastSeen = now();
        if (res.writableFinished || ids.length === 0 || !sessions.has(id)) return;
        for (const requestId of ids) {
          session.transport.onmessage?.({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'the client closed the connection' },
          } as JSONRPCMessage);
        }
      });
      return serveNode(session.transport, req, res, body);
    }
    // No session and not initialize: a request of the stateless 2026-07-28 revision is answered by its own leg.
    if (options.modern && req.method === 'POST' && !isInitializeRequest(body) && (await options.modern.claims(req, body)))
      return options.modern.serve(req, res, body);
    if (req.method === 'POST' && isInitializeRequest(body)) {
      if (!makeRoom()) return sendJson(res, 503, { jsonrpc: '2.0', error: { code: -32000, message: `all ${max} sessions are busy; retry shortly` }, id: null });
      const scoped = readScope(req.url);
      const who = scoped.ok ? readCredential(req.headers.authorization, scoped.scope, options.clientToken) : scoped;
      if (!who.ok) return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32602, message: who.error }, id: null });
      const { server, transport } = openSession(who.credential.scope, randomUUID(), sessionCredential(req.headers.authorization), who.credential.token);
      await server.connect(transport);
      return serveNode(transport, req, res, body);
    }
    return sendJson(res, 400, sessionlessAnswer(body));
  }

  return {
    route: { path: '/mcp', auth: 'mcp', handle: (req, res) => handle(req, res) },
    handle,
    adopt,
    sessionCount: () => sessions.size,
    sweep,
    endAll(why) {
      const ids = [...sessions.keys()];
      for (const id of ids) end(id, why);
      return ids.length;
    },
    async close(why = GOING_AWAY) {
      clearInterval(timer);
      const all = [...sessions.values()];
      sessions.clear();
      // Every call still waiting gets its answer, on its own stream, before the session ends.
      await Promise.allSettled(
        all.flatMap((s) =>
          [...s.pending].map((id) => s.transport.send({ jsonrpc: '2.0', id, error: { code: GOING_AWAY_CODE, message: why } } as JSONRPCMessage)),
        ),
      );
      await Promise.allSettled([...all.map((s) => s.server.close()), options.modern?.close()]);
    },
  };
}

/** Where a request of the stateless 2026-07-28 revision names its protocol version. */
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/**
 * The answer to a request that comes with no session and is not `initialize`: it carries the request's own id (a
 * client can match it; `null` only when the body has none). Where no modern leg is given (the companion always gives
 * one), a request of the stateless revision (its version in `_meta`) gets -32602 with the versions spoken, so its
 * client falls back to `initialize`; any other is told to send `initialize` first.
 */
export function sessionlessAnswer(body: unknown): JSONRPCMessage {
  const message = Array.isArray(body) && body.length === 1 ? body[0] : body;
  const record = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
  const id = typeof record.id === 'string' || typeof record.id === 'number' ? record.id : null;
  const params = typeof record.params === 'object' && record.params !== null ? (record.params as Record<string, unknown>) : {};
  const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
  const requested = meta[META_PROTOCOL_VERSION];
  if (typeof requested === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(requested)) {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32602,
        message: `unsupported protocol version ${requested}: this server speaks ${SUPPORTED_PROTOCOL_VERSIONS[0]} and earlier, after initialize`,
        data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
      },
    } as unknown as JSONRPCMessage;
  }
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32000, message: 'no session: send initialize first (without an Mcp-Session-Id header)' },
  } as unknown as JSONRPCMessage;
}
