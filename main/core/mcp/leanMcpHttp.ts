// A minimal MCP Streamable HTTP client for the stdio forwarder: POST each
// message (JSON or an SSE stream back), the session id and protocol version
// carried from the initialize exchange, the standalone GET stream for the
// server's own messages, DELETE at the end. Only node:http: the forwarder
// starts in a few tens of milliseconds because it loads neither the MCP SDK
// nor zod (the companion validates every message anyway).
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';

// Measured on Node 24: `import … from 'node:http'` costs ~30 ms (the ESM
// namespace of the builtin is built eagerly), require ~5 ms.
const { Agent, request } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export interface LeanMcpHttp {
  /**
   * Resolves once the companion has taken the message (an SSE answer keeps streaming in the background).
   * `line`, when given, is the message's JSON as the client wrote it, for a link that passes lines on.
   */
  send(message: Record<string, unknown>, line?: Buffer): Promise<void>;
  /** Ends the session on the companion (DELETE). */
  terminate(): Promise<void>;
  /** Drops every connection at once. */
  close(): void;
  /** `line`: the message's JSON as the companion wrote it, when the link has it. */
  onmessage?: (message: Record<string, unknown>, line?: Buffer) => void;
  onerror?: (error: Error) => void;
}

export class HttpStatusError extends Error {
  readonly status: number;
  /** The companion's reason, when its body is `{"error": "…"}`. */
  readonly reason: string | undefined;
  constructor(status: number, body: string) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.status = status;
    this.reason = reasonOf(body);
  }
}

function reasonOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

export function createLeanMcpHttp(mcpUrl: string, token: string): LeanMcpHttp {
  const url = new URL(mcpUrl);
  const agent = new Agent({ keepAlive: true });
  const open = new Set<IncomingMessage>();
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let closed = false;

  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    accept: 'application/json, text/event-stream',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
    ...extra,
  });

  const emit = (value: unknown) => {
    for (const message of Array.isArray(value) ? value : [value]) {
      if (!message || typeof message !== 'object') continue;
      const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
      if (result && typeof result.protocolVersion === 'string' && result.serverInfo) protocolVersion = result.protocolVersion;
      lean.onmessage?.(message as Record<string, unknown>);
    }
  };

  /** Reads `data:` events of an SSE body as they come; reports a stream that breaks. */
  const readEvents = (res: IncomingMessage) => {
    open.add(res);
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue;
        try {
          emit(JSON.parse(data));
        } catch {
          // Not JSON: not an MCP message.
        }
      }
    });
    const done = (error?: Error) => {
      if (!open.delete(res)) return;
      if (error && !closed) lean.onerror?.(error);
    };
    res.on('end', () => done());
    res.on('aborted', () => done(new Error('the event stream was cut')));
    res.on('error', (e) => done(e));
  };

  const exchange = (method: 'POST' | 'GET' | 'DELETE', body?: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        url,
        { method, agent, headers: headers(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) },
        (res) => {
          const sid = res.headers['mcp-session-id'];
          if (typeof sid === 'string') sessionId = sid;
          resolve(res);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const text = (res: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
      res.on('error', () => resolve(body));
    });

  const lean: LeanMcpHttp = {
    async send(message) {
      const res = await exchange('POST', JSON.stringify(message));
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode === 202) {
        res.resume();
      } else if (res.statusCode === 200 && type.startsWith('text/event-stream')) {
        readEvents(res);
      } else if (res.statusCode === 200) {
        const body = await text(res);
        if (body.trim()) emit(JSON.parse(body));
      } else {
        throw new HttpStatusError(res.statusCode ?? 0, (await text(res)).trim());
      }
      if (message.method === 'notifications/initialized') void openServerStream();
    },
    async terminate() {
      if (!sessionId) return;
      const res = await exchange('DELETE').catch(() => undefined);
      res?.resume();
    },
    close() {
      closed = true;
      for (const res of open) res.destroy();
      open.clear();
      agent.destroy();
    },
  };

  /** The standalone GET stream: messages the companion sends on its own. Optional for a server (405). */
  async function openServerStream(): Promise<void> {
    try {
      const res = await exchange('GET');
      if (res.statusCode === 200 && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) readEvents(res);
      else res.resume();
    } catch (error) {
      if (!closed) lean.onerror?.(error as Error);
    }
  }

  return lean;
}
