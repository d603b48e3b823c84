// A loopback proxy that adds `Authorization: Bearer <token>` to every request
// and forwards it, body and response streamed both ways (SSE included), to an
// `airlock serve`. For clients that have no way to send a header, such as the
// official MCP conformance suite.
//
// The client's Host and Origin go through unchanged: the server still judges
// them, so a foreign Host is still refused (403) and a loopback one (the
// proxy's own 127.0.0.1:<port>, what the suite sends by default) is accepted.
// Only the hop-by-hop headers are dropped, and the token replaces any
// Authorization the client sent.
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ConformanceProxy {
  /** http://127.0.0.1:<port>, the proxy's origin. */
  url: string;
  /** The MCP endpoint through the proxy. */
  mcpUrl: string;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { ...headers };
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...listed]) delete out[name];
  return out;
}

/** Starts the proxy on 127.0.0.1 (an ephemeral port) in front of `target` (the server's origin, http://127.0.0.1:<port>). */
export async function startConformanceProxy(target: string, token: string): Promise<ConformanceProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let count = 0;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    count += 1;
    const headers = endToEnd(req.headers);
    headers.authorization = `Bearer ${token}`;
    const out = request(
      // `host` stays the client's: setHost false keeps Node from writing its own.
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
        // Streams (SSE) reach the client as they come: send the head now.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    out.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`conformance proxy: ${error.message}`);
      } else {
        res.destroy();
      }
    });
    // The client gave up (closed a stream, timed out): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer(forward);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    forwarded: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
