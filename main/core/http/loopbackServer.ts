// The loopback HTTP server that carries MCP Streamable HTTP, the joined
// stdio pipe (an HTTP Upgrade), the control API and the web UI. It binds
// 127.0.0.1 unless told otherwise with an explicitly dangerous flag,
// validates Host and Origin on every request and every upgrade (403) and
// checks the route's bearer token in constant time (401).
//
// It can bind before everything it serves is built (openLoopbackServer): the
// routes given at once are served at once, and a request for any other path
// (or an upgrade) waits, past the same doors, until serve() hands over the
// rest. A companion thus listens, and answers MCP's initialize, while its
// core is still loading.
import type { IncomingMessage, ServerResponse, Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { http } from '../util/nodeHttp.ts';
import type { AddressInfo } from 'node:net';
import { AirlockError } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import { bearerOf, checkBearer, checkHostAndOrigin, isLoopbackAddress, type GuardOptions } from './requestGuards.ts';
import { messageOf } from '../../../contract/values.ts';

export type RouteAuth = 'none' | 'mcp' | 'control';

export interface Route {
  /** Exact path, or a prefix ending in `/`. */
  path: string;
  auth: RouteAuth;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> | void;
}

/** A path that switches protocols (HTTP Upgrade): after the guards pass, the handler owns the socket. */
export interface UpgradeRoute {
  path: string;
  auth: Exclude<RouteAuth, 'none'>;
  /** The `Upgrade` token the client must ask for. */
  protocol: string;
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface LoopbackServerOptions {
  host: string;
  port: number;
  allowNonLoopback: boolean;
  /** `mcpClients`: whether a bearer token is one of the HTTP clients' own (clientTokens.ts), let in to /mcp too. */
  tokens: { mcp: string; control?: string; mcpClients?: (token: string) => boolean };
  routes: Route[];
  upgrades?: UpgradeRoute[];
  logger: Logger;
}

export interface OpeningServerOptions extends Omit<LoopbackServerOptions, 'upgrades'> {
  /** The `Upgrade` protocols serve() will route: an upgrade asking for one waits for it; any other is an ordinary request. */
  upgradeProtocols: string[];
}

export interface LoopbackServer {
  host: string;
  port: number;
  /** Base URL, e.g. http://127.0.0.1:7339 */
  url: string;
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** A bound server that serves its first routes now and the rest once serve() is called. */
export interface OpeningServer extends LoopbackServer {
  /** Adds the remaining routes and upgrades; what waited for them is served now. */
  serve(routes: Route[], upgrades: UpgradeRoute[]): void;
  /** How many requests and upgrades wait for serve(). */
  waiting(): number;
}

/** Binds and serves every route at once. */
export async function startLoopbackServer(options: LoopbackServerOptions): Promise<LoopbackServer> {
  const upgrades = options.upgrades ?? [];
  const server = await openLoopbackServer({ ...options, upgradeProtocols: upgrades.map((u) => u.protocol) });
  server.serve([], upgrades);
  const { serve: _serve, waiting: _waiting, ...served } = server;
  return served;
}

/** Binds now and serves `options.routes`; requests for other paths and upgrades wait until serve() is called. */
export async function openLoopbackServer(options: OpeningServerOptions): Promise<OpeningServer> {
  const { host, logger } = options;
  const loopback = isLoopbackAddress(host);
  if (!loopback && !options.allowNonLoopback) {
    throw new AirlockError('usage', `--host ${host} is not a loopback address; Airlock binds 127.0.0.1 only`, {
      hint: 'add --dangerously-allow-non-loopback to expose it to the network anyway',
    });
  }
  const guard: GuardOptions = loopback ? {} : host === '0.0.0.0' || host === '::' ? { anyHost: true } : { extraHosts: [host.toLowerCase()] };
  if (!loopback) logger.warn(`DANGER: binding ${host}: the server is reachable from the network (the bearer token is still required)`);

  let routes = [...options.routes].sort((a, b) => b.path.length - a.path.length);
  let upgrades: UpgradeRoute[] = [];
  const served = Promise.withResolvers<void>();
  let ready = false;
  // What waits for serve(): bounded, and let go when the server closes (a start that failed never serves).
  const HELD_MAX = 256;
  const heldSockets = new Set<Duplex>();
  const holdFor = async (socket: Duplex): Promise<boolean> => {
    if (heldSockets.size >= HELD_MAX) return false;
    heldSockets.add(socket);
    try {
      await served.promise;
    } finally {
      heldSockets.delete(socket);
    }
    return !socket.destroyed;
  };
  // Only the upgrades Airlock serves are upgrades; anything else (`Upgrade: h2c` from curl --http2, say) is an
  // ordinary request (Node ≥ 24.9; older runtimes hand every upgrade to the listener below, which refuses the others).
  const isOurUpgrade = (req: IncomingMessage) => options.upgradeProtocols.includes(String(req.headers.upgrade ?? '').toLowerCase());
  const findRoute = (pathname: string) => routes.find((r) => (r.path.endsWith('/') ? pathname.startsWith(r.path) : pathname === r.path));
  const server: Server = http.createServer({ shouldUpgradeCallback: isOurUpgrade } as ServerOptions, (req, res) => {
    void handle(req, res).catch((error) => {
      logger.error(`request ${req.method} ${req.url} failed: ${messageOf(error)}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    });
  });

  /** The request carries one of the HTTP clients' own tokens (checked after the MCP token). */
  const clientToken = (req: IncomingMessage): boolean => {
    const given = bearerOf(req);
    if (given === undefined || !options.tokens.mcpClients) return false;
    try {
      return options.tokens.mcpClients(given);
    } catch (error) {
      // A broken token file lets no client token in (the MCP token still works), and says why.
      logger.warn(`client tokens cannot be read: ${messageOf(error)}`);
      return false;
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = checkHostAndOrigin(req, guard);
    if (!verdict.ok) {
      logger.warn(`refused ${req.method} ${req.url}: ${verdict.reason}`);
      return sendJson(res, verdict.status, { error: verdict.reason });
    }
    // A request-target that is not a URL, or a path that is not valid percent-encoding, is the client's error: 400, never a crash.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
      decodeURIComponent(url.pathname);
    } catch {
      return sendJson(res, 400, { error: { code: 'bad_input', message: 'the request path is not valid (bad percent-encoding?)' } });
    }
    let route = findRoute(url.pathname);
    if (!route && !ready) {
      if (!(await holdFor(req.socket))) {
        if (!res.headersSent && !req.socket.destroyed) sendJson(res, 503, { error: 'Airlock is starting; retry shortly' }, { 'retry-after': '1' });
        return;
      }
      route = findRoute(url.pathname);
    }
    if (!route) return sendJson(res, 404, { error: `no route for ${url.pathname}` });
    if (route.auth !== 'none') {
      const token = route.auth === 'mcp' ? options.tokens.mcp : options.tokens.control;
      const auth = token ? checkBearer(req, token) : ({ ok: false, status: 401, reason: 'not available' } as const);
      if (!auth.ok && !(route.auth === 'mcp' && clientToken(req))) {
        logger.warn(`refused ${req.method} ${url.pathname}: ${auth.reason}`);
        return sendJson(res, 401, { error: auth.reason }, { 'www-authenticate': `Bearer realm="airlock", error="invalid_token"` });
      }
    }
    await route.handle(req, res, url);
  }

  // An upgrade passes the same doors as a request; anything refused gets a plain HTTP answer and the socket is closed.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (ready) return upgrade(req, socket, head);
    // Held until the upgrades are served, once past the Host and Origin check.
    if (!checkHostAndOrigin(req, guard).ok) return upgrade(req, socket, head);
    void holdFor(socket).then((go) => {
      if (go) upgrade(req, socket, head);
      else socket.destroy();
    });
  });
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      logger.warn(`refused upgrade ${req.url}: ${reason}`);
      const body = JSON.stringify({ error: reason });
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      // Destroyed once the answer is out: a client that keeps its side open would otherwise hold the socket (and shutdown) forever.
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra.join('')}connection: close\r\n\r\n${body}`,
        () => socket.destroy(),
      );
      setTimeout(() => socket.destroy(), 2000).unref();
    };
    const verdict = checkHostAndOrigin(req, guard);
    if (!verdict.ok) return refuse(verdict.status, verdict.reason);
    const path = (req.url ?? '').split('?')[0];
    const route = upgrades.find((u) => u.path === path);
    const wanted = String(req.headers.upgrade ?? '').toLowerCase();
    if (!route || route.protocol !== wanted) return refuse(404, `no upgrade to '${wanted}' at ${path}`);
    if (req.method !== 'GET') return refuse(405, `an upgrade to '${wanted}' is a GET`);
    const token = route.auth === 'mcp' ? options.tokens.mcp : options.tokens.control;
    const auth = token ? checkBearer(req, token) : ({ ok: false, status: 401, reason: 'not available' } as const);
    if (!auth.ok && !(route.auth === 'mcp' && clientToken(req)))
      return refuse(401, auth.reason, { 'www-authenticate': `Bearer realm="airlock", error="invalid_token"` });
    route.handle(req, socket, head);
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE') {
        reject(
          new AirlockError('conflict', `port ${options.port} on ${host} is already in use`, {
            hint: 'is another airlock serve running? `airlock doctor` tells; or pass --port 0 for a free port',
          }),
        );
      } else if (error.code === 'EACCES') {
        reject(new AirlockError('conflict', `no permission to bind ${host}:${options.port}`, { hint: 'use a port above 1024' }));
      } else reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port, host);
  });
  server.on('error', (error) => logger.error(`http server: ${error.message}`));
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    url: `http://${shownHost}:${port}`,
    waiting: () => heldSockets.size,
    serve(more, moreUpgrades) {
      const unknown = moreUpgrades.find((u) => !options.upgradeProtocols.includes(u.protocol));
      if (unknown) throw new Error(`upgrade to '${unknown.protocol}' was not declared when the server was opened`);
      routes = [...routes, ...more].sort((a, b) => b.path.length - a.path.length);
      upgrades = [...upgrades, ...moreUpgrades];
      ready = true;
      served.resolve();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of heldSockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Reads a request body up to `max` bytes; rejects with status 413 past it.
 * The rest of an oversized body is read and dropped (for a bounded time) so
 * the 413 reaches the client instead of a reset connection.
 */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        req.off('data', onData);
        req.on('data', () => undefined);
        setTimeout(() => req.destroy(), 5000).unref();
        reject(Object.assign(new Error(`request body over ${max} bytes`), { status: 413 }));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
