// The built-in demo Events API, served in-process on 127.0.0.1 so a first run
// needs no account and no network. It implements exactly the contract in
// resources/demo-api/openapi.yaml (routes, status codes, error bodies) over
// the SQLite-backed demo store. It listens on loopback only, accepts only a
// loopback Host header (no DNS rebinding), and, given `expectedKey`, refuses
// requests without that bearer token (constant-time compare).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../util/nodeHttp.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { DemoApiError, LIST_ARRAY_PARAMETERS, describe, parseListQuery, type ErrorDetail } from './demoModel.ts';
import { openDemoStore, type DemoStore } from './demoStore.ts';
import { resourcePath } from '../util/installPaths.ts';

export interface DemoRequestInfo {
  method: string;
  /** The request target as received: path and query string. */
  path: string;
  /** Every request header, Authorization included: never log these as they are. */
  headers: Record<string, string | string[] | undefined>;
}

export interface DemoServerOptions {
  /** Directory of the demo data; the database is `<dataDir>/events.sqlite`. */
  dataDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  logger?: Logger;
  now?: () => Date;
  /** When set, every request needs `Authorization: Bearer <expectedKey>` (else 401). */
  expectedKey?: string;
  /** Called for each request before it is handled (including those later refused). */
  onRequest?: (info: DemoRequestInfo) => void;
}

export interface DemoServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEMO_DB_FILE = 'events.sqlite';
export const MAX_BODY_BYTES = 1024 * 1024;

/** Absolute path of the demo API's OpenAPI document. */
export function demoSpecPath(): string {
  return resourcePath('demo-api', 'openapi.yaml');
}

type Handler = (ctx: RequestContext) => Promise<Reply> | Reply;

interface RequestContext {
  req: IncomingMessage;
  url: URL;
  /** The `{eventId}` segment, decoded. */
  eventId: string;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Route {
  pattern: RegExp;
  methods: Record<string, Handler>;
}

export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const logger = options.logger ?? silentLogger;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new AirlockError('usage', `the demo server port must be an integer from 0 to 65535, not ${port}`);
  }
  const store = openDemoStore({ file: join(options.dataDir, DEMO_DB_FILE), logger, ...(options.now ? { now: options.now } : {}) });
  const expectedDigest = options.expectedKey === undefined ? undefined : sha256(options.expectedKey);
  let origin = 'http://127.0.0.1';
  let allowedHosts = new Set<string>();

  const routes = buildRoutes(store, () => origin);

  const server = http.createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    try {
      options.onRequest?.({ method, path: target, headers: { ...req.headers } });
    } catch (error) {
      logger.warn(`demo onRequest hook failed: ${errorMessage(error)}`);
    }
    let reply: Reply;
    try {
      reply = await route(req, method, target);
    } catch (error) {
      if (error instanceof DemoApiError) {
        reply = { status: error.status, body: error.toBody() };
      } else {
        logger.error(`demo API ${method} failed: ${errorMessage(error)}`);
        reply = { status: 500, body: new DemoApiError(500, 'internal', 'The demo API failed unexpectedly; see the Airlock log.').toBody() };
      }
    }
    send(res, reply);
    logger.debug(`${method} ${target.split('?')[0]} ${reply.status}`);
  }

  async function route(req: IncomingMessage, method: string, target: string): Promise<Reply> {
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
      throw new DemoApiError(403, 'forbidden_host', `The demo API only answers requests addressed to ${origin}.`, [
        { in: 'header', field: 'host', message: `must be ${[...allowedHosts].join(' or ')}` },
      ]);
    }
    if (expectedDigest && !bearerMatches(req.headers.authorization, expectedDigest)) {
      throw new DemoApiError(401, 'unauthorized', 'Missing or wrong demo API key: send Authorization: Bearer <key>.');
    }
    const url = new URL(target, origin);
    const pathname = url.pathname.replace(/\/+$/, '') || '/';
    for (const r of routes) {
      const m = r.pattern.exec(pathname);
      if (!m) continue;
      const handler = r.methods[method];
      if (!handler) {
        const allow = Object.keys(r.methods).join(', ');
        const error = new DemoApiError(405, 'method_not_allowed', `${method} is not allowed on ${pathname}; allowed: ${allow}.`);
        return { status: 405, body: error.toBody(), headers: { allow } };
      }
      let eventId = '';
      if (m[1] !== undefined) {
        try {
          eventId = decodeURIComponent(m[1]);
        } catch {
          throw notFound(m[1]);
        }
      }
      return handler({ req, url, eventId });
    }
    throw new DemoApiError(404, 'not_found', `No such path: ${pathname}. This is the Airlock demo Events API: see GET /openapi.yaml.`);
  }

  function send(res: ServerResponse, reply: Reply): void {
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...reply.headers };
    if (reply.status === 401) headers['www-authenticate'] = 'Bearer realm="airlock-demo"';
    if (reply.body === undefined) {
      res.writeHead(reply.status, headers).end();
      return;
    }
    const isText = typeof reply.body === 'string';
    const payload = isText ? (reply.body as string) : JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
    headers['content-length'] = String(Buffer.byteLength(payload));
    res.writeHead(reply.status, headers).end(payload);
  }

  await new Promise<void>((resolvePromise, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      store.close();
      reject(
        error.code === 'EADDRINUSE'
          ? new AirlockError('conflict', `cannot start the demo API: port ${port} on 127.0.0.1 is in use`, {
              hint: 'choose another port, or 0 for any free port',
            })
          : new AirlockError('internal', `cannot start the demo API: ${error.message}`, { cause: error }),
      );
    };
    server.once('error', onError);
    server.listen({ host: '127.0.0.1', port }, () => {
      server.off('error', onError);
      resolvePromise();
    });
  });
  server.on('error', (error) => logger.error(`demo API server error: ${errorMessage(error)}`));

  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  origin = `http://127.0.0.1:${actualPort}`;
  allowedHosts = new Set([`127.0.0.1:${actualPort}`, `localhost:${actualPort}`]);

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port: actualPort,
    close() {
      closing ??= new Promise<void>((resolvePromise) => {
        server.close(() => {
          store.close();
          resolvePromise();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function buildRoutes(store: DemoStore, origin: () => string): Route[] {
  return [
    {
      pattern: /^\/events$/,
      methods: {
        GET: ({ url }) => ({ status: 200, body: store.list(parseListQuery(listQueryFrom(url.searchParams))) }),
        POST: async ({ req, url }) => {
          noQuery(url);
          const created = store.create(await readJsonBody(req));
          return { status: 201, body: created, headers: { location: `/events/${encodeURIComponent(created.id)}` } };
        },
      },
    },
    {
      pattern: /^\/events\/([^/]+)$/,
      methods: {
        GET: ({ url, eventId }) => {
          noQuery(url);
          return { status: 200, body: found(store.get(eventId), eventId) };
        },
        PUT: async ({ req, url, eventId }) => {
          noQuery(url);
          const body = await readJsonBody(req);
          return { status: 200, body: found(store.replace(eventId, body), eventId) };
        },
        PATCH: async ({ req, url, eventId }) => {
          noQuery(url);
          const body = await readJsonBody(req);
          return { status: 200, body: found(store.patch(eventId, body), eventId) };
        },
        DELETE: ({ url, eventId }) => {
          noQuery(url);
          if (!store.delete(eventId)) throw notFound(eventId);
          return { status: 204 };
        },
      },
    },
    {
      pattern: /^\/categories$/,
      methods: {
        GET: ({ url }) => {
          noQuery(url);
          return { status: 200, body: { data: store.categories() } };
        },
      },
    },
    {
      pattern: /^\/openapi\.yaml$/,
      methods: {
        GET: async ({ url }) => {
          noQuery(url);
          const { parseDocument } = await import('yaml');
          const document = parseDocument(await readFile(demoSpecPath(), 'utf8'));
          document.set('servers', [{ url: origin(), description: 'This demo server.' }]);
          return { status: 200, body: document.toString(), headers: { 'content-type': 'application/yaml; charset=utf-8' } };
        },
      },
    },
  ];
}

/** The list query as the store expects it: arrays from repeated or comma-separated values, numbers and booleans parsed. */
function listQueryFrom(params: URLSearchParams): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    if (LIST_ARRAY_PARAMETERS.has(name)) {
      raw[name] = values.flatMap((v) => v.split(',')).map((v) => v.trim());
    } else if (values.length > 1) {
      details.push({ in: 'query', field: name, message: 'must be given once' });
    } else {
      const value = values[0]!;
      if (name === 'limit' && /^[+-]?\d+$/.test(value)) raw[name] = Number(value);
      else if (name === 'free' && (value === 'true' || value === 'false')) raw[name] = value === 'true';
      else raw[name] = value;
    }
  }
  if (details.length > 0) throw invalidQuery(details);
  return raw;
}

function noQuery(url: URL): void {
  const names = [...new Set(url.searchParams.keys())];
  if (names.length > 0) {
    throw invalidQuery(names.map((field) => ({ in: 'query', field, message: 'is not a known parameter (this operation takes none)' })));
  }
}

function invalidQuery(details: ErrorDetail[]): DemoApiError {
  return new DemoApiError(400, 'invalid_parameter', `Invalid query parameter${details.length > 1 ? 's' : ''}: ${describe(details)}.`, details);
}

function found<T>(value: T | undefined, eventId: string): T {
  if (value === undefined) throw notFound(eventId);
  return value;
}

function notFound(eventId: string): DemoApiError {
  return new DemoApiError(404, 'not_found', `No event with id ${JSON.stringify(eventId)}.`, [
    { in: 'path', field: 'eventId', message: 'does not match any event; list events to find ids' },
  ]);
}

/** Reads and parses a JSON body: 413 over 1 MB, 400 when missing or malformed, 415 when not sent as JSON. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    throw new DemoApiError(400, 'missing_body', 'This operation needs a JSON body.', [{ in: 'body', field: '(body)', message: 'is required' }]);
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new DemoApiError(
      415,
      'unsupported_media_type',
      `Send the body as JSON with Content-Type: application/json (got ${type ? JSON.stringify(type) : 'no Content-Type'}).`,
      [{ in: 'header', field: 'content-type', message: 'must be application/json' }],
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DemoApiError(400, 'invalid_json', `The body is not valid JSON: ${errorMessage(error)}`, [
      { in: 'body', field: '(body)', message: 'is not valid JSON' },
    ]);
  }
}

function tooLarge(): DemoApiError {
  return new DemoApiError(413, 'payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes (1 MB).`);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m !== null && timingSafeEqual(sha256(m[1]!), expectedDigest);
}
