// A tiny upstream API for gate and engine tests. It echoes what it received
// (method, path, query, headers, body) in several encodings, the way a
// careless API might, so tests can prove the credential never comes back.
// It counts requests, so tests can assert on the API side that a call never
// arrived.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { tempDir } from './paths.ts';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface EchoApi {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startEchoApi(): Promise<EchoApi> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname.endsWith('/redirect-away')) {
        res.writeHead(302, { location: 'http://evil.example/steal' }).end();
        return;
      }
      if (url.pathname.endsWith('/redirect-home')) {
        res.writeHead(302, { location: '/v1/items' }).end();
        return;
      }
      if (url.pathname.endsWith('/leak')) {
        // A careless API that hands the credential back in forms a naive scrub misses.
        const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        const kind = url.searchParams.get('kind');
        const escaped = auth
          .split('')
          .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
          .join('');
        if (kind === 'json-escaped')
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"token":"${escaped}","slash":"${auth.slice(0, 9)}\\/${auth.slice(9)}"}`);
        else if (kind === 'binary')
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.concat([Buffer.from([0, 255]), Buffer.from(auth), Buffer.from([1])]));
        else if (kind === 'unknown') res.writeHead(200, { 'content-type': 'application/x-custom' }).end(Buffer.from(auth).toString('hex').toUpperCase());
        else if (kind === 'mime')
          res.writeHead(200, { 'content-type': 'text/plain' }).end(
            Buffer.from(`${'x'.repeat(70)}${auth}`)
              .toString('base64')
              .replace(/.{76}/g, '$&\r\n'),
          );
        else if (kind === 'fragment') res.writeHead(200, { 'content-type': 'text/plain', 'x-echo-slice': auth.slice(3, 14) }).end(`part ${auth.slice(14)}`);
        else res.writeHead(302, { location: `/v1/items?echo=${encodeURIComponent(auth)}` }).end();
        return;
      }
      const bounce = /\/bounce\/(\d{3})$/.exec(url.pathname);
      if (bounce) {
        // Any method, any redirect status, to `to` (default: an item nobody asked about; `self`: a loop).
        const to = url.searchParams.get('to');
        res.writeHead(Number(bounce[1]), { location: to === 'self' ? req.url! : (to ?? '/v1/items/elsewhere') }).end();
        return;
      }
      if (url.pathname.endsWith('/forward')) {
        // A 307 keeps the method and the body: the redirect target is a second mutation.
        res.writeHead(307, { location: '/v1/items/9' }).end();
        return;
      }
      if (url.pathname.endsWith('/big')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ blob: 'x'.repeat(200_000) }));
        return;
      }
      if (url.pathname.endsWith('/fail')) {
        res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'bad input', echo: req.headers.authorization ?? null }));
        return;
      }
      const everything = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(req.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
        'x-echo-auth': String(req.headers.authorization ?? req.headers['x-api-key'] ?? ''),
        'x-echo-b64': Buffer.from(everything).toString('base64'),
      });
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body,
          base64: Buffer.from(everything).toString('base64'),
          base64url: Buffer.from(everything).toString('base64url'),
          urlEncoded: encodeURIComponent(everything),
          hex: Buffer.from(everything).toString('hex'),
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The echo API's contract as an OpenAPI document, with `url` as its server. */
export function echoDocument(url = 'http://127.0.0.1/v1'): Record<string, any> & { openapi: string } {
  const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
  return {
    openapi: '3.1.0',
    info: { title: 'Echo', version: '1' },
    servers: [{ url }],
    paths: {
      '/items': {
        get: {
          operationId: 'items.list',
          parameters: [
            { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
          ],
          responses: ok,
        },
        post: { operationId: 'items.create', requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } }, responses: ok },
      },
      '/items/{id}': {
        get: { operationId: 'items.get', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok },
        delete: { operationId: 'items.delete', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok },
      },
      '/search': { get: { operationId: 'search.run', responses: ok } },
      '/prefs': {
        get: {
          operationId: 'prefs.get',
          parameters: [
            { name: 'region', in: 'cookie', required: true, schema: { type: 'string' } },
            { name: 'lang', in: 'cookie', schema: { type: 'string' } },
          ],
          responses: ok,
        },
      },
      '/redirect-away': { get: { operationId: 'redirect.away', responses: ok } },
      '/redirect-home': { get: { operationId: 'redirect.home', responses: ok } },
      '/bounce/{status}': Object.fromEntries(
        ['get', 'head', 'options', 'post', 'put', 'patch', 'delete'].map((m) => [
          m,
          {
            operationId: `bounce.${m}`,
            parameters: [
              { name: 'status', in: 'path', required: true, schema: { type: 'integer' } },
              { name: 'to', in: 'query', schema: { type: 'string' } },
            ],
            ...(['post', 'put', 'patch'].includes(m) ? { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } : {}),
            responses: ok,
          },
        ]),
      ),
      '/forward': { post: { operationId: 'forward.create', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: ok } },
      '/big': { get: { operationId: 'big.get', responses: ok } },
      '/leak': { get: { operationId: 'leak.get', parameters: [{ name: 'kind', in: 'query', schema: { type: 'string' } }], responses: ok } },
      '/fail': { get: { operationId: 'fail.get', responses: ok } },
    },
  };
}

/** The echo API's catalogue. */
export function echoCatalogue(): Catalogue {
  return buildCatalogue(echoDocument());
}

/** Writes the echo API's document to `<dir>/echo-openapi.json` and returns its path. */
export function writeEchoSpec(dir: string, url: string): string {
  const file = join(dir, 'echo-openapi.json');
  writeFileSync(file, JSON.stringify(echoDocument(url), null, 2));
  return file;
}

/** A temp data dir, a running echo API and its spec file, cleaned up when the test ends. */
export async function echoFixture(t: { after(fn: () => unknown): void }): Promise<{ dir: string; echo: EchoApi; spec: string }> {
  const { dir, cleanup } = tempDir();
  const echo = await startEchoApi();
  t.after(async () => {
    await echo.close();
    cleanup();
  });
  return { dir, echo, spec: writeEchoSpec(dir, echo.url) };
}
