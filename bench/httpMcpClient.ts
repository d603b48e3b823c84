// A bare MCP client over Streamable HTTP, for the benchmarks: initialize,
// then one POST per request on a kept-alive connection (node:http, lighter
// than fetch), the answer read as JSON or from its event stream — no schema
// validation, nothing the client would charge to the server (the counterpart
// of rawMcpClient.ts on stdio). In either revision: 2025-11-25 (initialize,
// then a session) or 2026-07-28 (no session: each request carries its
// version, client info and capabilities in `_meta`, and the standard
// headers).
import { Agent, request as httpRequest } from 'node:http';
import { callTool, type RawAnswer } from './rawMcpClient.ts';

export interface HttpMcpClient {
  request(method: string, params?: unknown): Promise<RawAnswer>;
  /** A tools/call that throws on a protocol error or an `isError` result. */
  call(name: string, args: Record<string, unknown>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export type McpRevision = '2025-11-25' | '2026-07-28';

/** `sockets`: how many requests it may have in flight at once (one connection each). */
export async function startHttpClient(url: string, token: string, revision: McpRevision = '2025-11-25', sockets = 1): Promise<HttpMcpClient> {
  const modern = revision === '2026-07-28';
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const base = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let session: string | undefined;
  let nextId = 0;
  const send = (method: 'POST' | 'DELETE', body?: string, extra: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method,
          agent,
          headers: {
            ...base,
            ...extra,
            ...(session ? { 'mcp-session-id': session } : {}),
            ...(body ? { 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          const id = res.headers['mcp-session-id'];
          if (typeof id === 'string') session ??= id;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const post = async (body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer | undefined> => {
    const { status, type, text } = await send('POST', JSON.stringify(body), headers);
    if (status === 202 || !text) return undefined;
    if (status < 200 || status >= 300) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
    if (type.includes('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const message = JSON.parse(line.slice(5)) as RawAnswer;
        if (message.id !== undefined) return message;
      }
      return undefined;
    }
    return JSON.parse(text) as RawAnswer;
  };
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const request = async (method: string, params: unknown = {}): Promise<RawAnswer> => {
    const p = params as { name?: unknown; _meta?: object };
    const answer = modern
      ? await post(
          { jsonrpc: '2.0', id: ++nextId, method, params: { ...p, _meta: { ...p._meta, ...envelope } } },
          { 'mcp-protocol-version': revision, 'mcp-method': method, ...(typeof p.name === 'string' ? { 'mcp-name': p.name } : {}) },
        )
      : await post({ jsonrpc: '2.0', id: ++nextId, method, params });
    if (!answer) throw new Error(`${method}: no answer`);
    return answer;
  };
  if (!modern) {
    const init = await request('initialize', { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    if (init.error) throw new Error(`initialize: ${init.error.message}`);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  return {
    request,
    call: (name, args) => callTool(request, name, args),
    async close() {
      if (session) await send('DELETE').catch(() => undefined);
      agent.destroy();
    },
  };
}
