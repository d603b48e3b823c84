// One HTTP exchange with the API origin over node:http(s), connecting to the
// address the address policy pinned (the Host header and TLS server name stay
// the configured host). Bounded: a response larger than `maxBytes` is cut and
// reported; `signal` (run ended, timeout) aborts the exchange.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { http, https } from '../util/nodeHttp.ts';
import { createGunzip, createInflate, createBrotliDecompress } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { PinnedAddress } from '../util/addressPolicy.ts';
import type { UpstreamRequest } from './requestBuilder.ts';

/** A request as it leaves (the key in its place), where it goes, and its bounds. */
export interface UpstreamExchange extends UpstreamRequest {
  origin: URL; // protocol, hostname, port of the API
  pinned: PinnedAddress;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  statusText?: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

export type Transport = (exchange: UpstreamExchange) => Promise<UpstreamResponse>;

export const nodeTransport: Transport = (x) =>
  new Promise((resolve, reject) => {
    const isHttps = x.origin.protocol === 'https:';
    const requestFn = isHttps ? https.request : http.request;
    const port = x.origin.port ? Number(x.origin.port) : isHttps ? 443 : 80;
    const hostHeader = x.origin.port ? `${x.origin.hostname}:${x.origin.port}` : x.origin.hostname;
    const req = requestFn({
      host: x.origin.hostname.replace(/^\[|\]$/g, ''),
      port,
      method: x.method,
      path: x.pathAndQuery,
      headers: { ...x.headers, host: hostHeader, 'accept-encoding': 'gzip, deflate, br', ...(x.body ? { 'content-length': String(x.body.length) } : {}) },
      // The connection goes to the address that was checked, whatever DNS says now.
      lookup: (_hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
        if (options?.all) callback(null, [{ address: x.pinned.address, family: x.pinned.family }]);
        else callback(null, x.pinned.address, x.pinned.family);
      },
      ...(isHttps ? { servername: x.origin.hostname.replace(/^\[|\]$/g, '') } : {}),
      timeout: x.timeoutMs,
      signal: x.signal,
    } as any);
    req.on('timeout', () => req.destroy(new Error(`no response within ${x.timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => void readResponse(res, x.maxBytes).then(resolve, reject));
    req.end(x.body);
  });

/** The response, decoded (gzip, deflate, br), its body cut at `maxBytes` (then marked truncated). */
function readResponse(res: IncomingMessage, maxBytes: number): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
    let stream: Readable = res;
    if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(createGunzip());
    else if (encoding === 'deflate') stream = res.pipe(createInflate());
    else if (encoding === 'br') stream = res.pipe(createBrotliDecompress());
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    stream.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        res.destroy();
        finish();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const headers = { ...res.headers };
      delete headers['content-encoding'];
      delete headers['content-length'];
      resolve({
        status: res.statusCode ?? 0,
        ...(res.statusMessage ? { statusText: res.statusMessage } : {}),
        headers,
        body: Buffer.concat(chunks),
        truncated,
      });
    };
    stream.on('end', finish);
    stream.on('error', (error) => (truncated ? finish() : reject(error)));
  });
}
