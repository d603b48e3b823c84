// The joined stdio path, shim side: one loopback connection to the companion,
// upgraded (bearer token in the request, as for /mcp) to newline-delimited
// JSON-RPC — the same lines the client writes on stdin, the same lines it
// reads on stdout. One write and one read per message, Nagle off. Only
// node:http through require (the shim must start fast).
//
// It has the shape of the HTTP link (leanMcpHttp.ts), so the forwarder does
// not care which one it holds; a companion that does not offer the pipe
// (an older version) answers the upgrade with 404 and the forwarder falls
// back to Streamable HTTP.
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { HttpStatusError, type LeanMcpHttp } from './leanMcpHttp.ts';
import { JsonLineReader, jsonLineWriter } from './jsonLines.ts';
import { PIPE_PATH, PIPE_PROTOCOL } from './pipeProtocol.ts';

const { request } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** The companion's lines are trusted to be protocol; this only bounds a runaway. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * The id of an answer, read off the end of its line: the companion's answers
 * end with `"jsonrpc":"2.0","id":<id>}` (the MCP SDK writes `{ result,
 * jsonrpc, id }`), and the forwarder needs nothing else of them, so a large
 * answer (tools/list, a search) is passed on without being parsed. Any other
 * line is parsed whole. The companion is this user's own process; the client
 * still parses what it gets.
 */
const ANSWER_TAIL = /^\{"result":.*,"jsonrpc":"2\.0","id":(-?\d{1,15}|"[^"\\]{0,200}")\}$/s;
export function peekAnswer(line: Buffer): { jsonrpc: '2.0'; id: string | number; result: true } | undefined {
  if (line.length < 40 || line[0] !== 0x7b || line[line.length - 1] !== 0x7d) return undefined;
  const head = line.subarray(0, 10).toString('latin1');
  const tail = line.subarray(Math.max(0, line.length - 240)).toString('latin1');
  const m = ANSWER_TAIL.exec(head + '…' + tail);
  if (!m) return undefined;
  return { jsonrpc: '2.0', id: m[1]!.startsWith('"') ? m[1]!.slice(1, -1) : Number(m[1]), result: true };
}

/** A link whose loss ends its session: what it held will never be answered. */
export class PipeClosedError extends Error {}

/** Opens the pipe; rejects with HttpStatusError(404) when the companion does not offer it. */
export function openLeanMcpPipe(mcpUrl: string, token: string, timeoutMs = 10_000): Promise<LeanMcpHttp> {
  const url = new URL(PIPE_PATH, mcpUrl);
  // The session's scope (`?api=…`) travels with the upgrade.
  url.search = new URL(mcpUrl).search;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, connection: 'Upgrade', upgrade: PIPE_PROTOCOL },
      timeout: timeoutMs,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to the upgrade within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => reject(new HttpStatusError(res.statusCode ?? 0, body.trim())));
    });
    req.on('upgrade', (_res, socket: Socket, head: Buffer) => resolve(linkOver(socket, head)));
    req.end();
  });
}

function linkOver(socket: Socket, head: Buffer): LeanMcpHttp {
  socket.setNoDelay(true);
  socket.setTimeout(0);
  socket.setKeepAlive(true, 30_000);
  let closed = false;
  const writeLine = jsonLineWriter(socket);
  const reader = new JsonLineReader(
    {
      value: (raw, line) => {
        if (raw && typeof raw === 'object') link.onmessage?.(raw as Record<string, unknown>, line);
      },
      refused: (_code, message) => link.onerror?.(new Error(`the companion sent a line that is not a message: ${message}`)),
    },
    MAX_ANSWER_BYTES,
    peekAnswer,
  );
  socket.on('data', reader.push);
  socket.on('error', () => undefined);
  socket.once('close', () => {
    if (!closed) link.onerror?.(new PipeClosedError('the connection to the companion closed'));
    closed = true;
  });
  const link: LeanMcpHttp = {
    send(message, line) {
      if (closed || socket.destroyed) return Promise.reject(new PipeClosedError('the connection to the companion is closed'));
      // A write error, or the companion closing the pipe before it took the line, fails this send (forward() retries).
      return writeLine(message, line).then(() => {
        if (socket.destroyed) throw new PipeClosedError('the connection to the companion closed');
      });
    },
    async terminate() {
      closed = true;
      socket.end();
    },
    close() {
      closed = true;
      socket.destroy();
    },
  };
  if (head.length > 0) queueMicrotask(() => reader.push(head));
  return link;
}
