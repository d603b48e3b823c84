// The egress gate's second front door, for subprocess engines: a loopback
// HTTP endpoint (POST /call) where each run authenticates with its own
// capability token. No token, a wrong one, or the token of a run that has
// ended → 401; nothing reaches the gate without a live run behind it.
import { http } from '../util/nodeHttp.ts';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { tokensEqual } from '../http/tokenFile.ts';
import { checkHostAndOrigin } from '../http/requestGuards.ts';
import type { ApiCallRequest, ApiCallResult } from './engine.ts';
import { messageOf } from '../../../contract/values.ts';

/** What a run does with each call that arrives with its token (the run's bound `callApi`). */
export type RunCallHandler = (request: ApiCallRequest) => Promise<ApiCallResult>;

export interface GateProxy {
  url: string;
  port: number;
  /** Registers a run; its token is valid until `close()` is called. */
  openRun(handle: RunCallHandler): { token: string; close(): void };
  liveRuns(): number;
  close(): Promise<void>;
}

export async function startGateProxy(options: { logger?: Logger; maxBodyBytes?: number } = {}): Promise<GateProxy> {
  const log = options.logger ?? silentLogger;
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const runs = new Map<string, RunCallHandler>(); // token → run

  const findRun = (header: string | undefined): RunCallHandler | undefined => {
    const m = /^Bearer\s+([0-9a-f]{64})$/i.exec(header ?? '');
    if (!m) return undefined;
    for (const [token, run] of runs) if (tokensEqual(m[1]!, token)) return run;
    return undefined;
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const guard = checkHostAndOrigin(req);
    if (!guard.ok) return reply(403, { error: guard.reason });
    if (req.url !== '/call') return reply(404, { error: 'not found' });
    if (req.method !== 'POST') return reply(405, { error: 'POST only' });
    const run = findRun(req.headers.authorization);
    if (!run) {
      log.warn('gate proxy: refused a call without a live run token');
      req.resume();
      return reply(401, { error: 'no live run for this token' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) {
        reply(413, { error: `request over ${maxBody} bytes` });
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size > maxBody) return;
      let call: ApiCallRequest;
      try {
        call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ApiCallRequest;
        if (!call || typeof call !== 'object' || typeof call.operationId !== 'string') throw new Error('operationId missing');
      } catch (error) {
        return reply(400, { error: `bad call: ${messageOf(error)}` });
      }
      // The run may have ended while the body was in flight.
      if (!findRun(req.headers.authorization)) return reply(401, { error: 'no live run for this token' });
      run(call)
        .then((result) => reply(200, result))
        .catch((error) => {
          log.error(`gate proxy: ${messageOf(error)}`);
          reply(500, { error: 'gate failure' });
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    openRun(handle) {
      const token = randomBytes(32).toString('hex');
      runs.set(token, handle);
      return { token, close: () => void runs.delete(token) };
    },
    liveRuns: () => runs.size,
    close: () =>
      new Promise<void>((resolve) => {
        runs.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
