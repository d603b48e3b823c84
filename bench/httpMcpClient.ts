// A bare MCP client over Streamable HTTP, for the benchmarks: initialize,
// then one POST per request on a kept-alive connection, the answer read as
// JSON or from its event stream — no schema validation, nothing the client
// would charge to the server (the counterpart of rawMcpClient.ts on stdio).
import type { RawAnswer } from './rawMcpClient.ts';

export interface HttpMcpClient {
  request(method: string, params?: unknown): Promise<RawAnswer>;
  /** A tools/call that throws on a protocol error or an `isError` result. */
  call(name: string, args: Record<string, unknown>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export async function startHttpClient(url: string, token: string): Promise<HttpMcpClient> {
  const base = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let session: string | undefined;
  let nextId = 0;
  const post = async (body: unknown): Promise<RawAnswer | undefined> => {
    const response = await fetch(url, { method: 'POST', headers: { ...base, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    const text = await response.text();
    if (response.status === 202 || !text) return undefined;
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const message = JSON.parse(line.slice(5)) as RawAnswer;
        if (message.id !== undefined) return message;
      }
      return undefined;
    }
    return JSON.parse(text) as RawAnswer;
  };
  const request = async (method: string, params: unknown = {}): Promise<RawAnswer> => {
    const answer = await post({ jsonrpc: '2.0', id: ++nextId, method, params });
    if (!answer) throw new Error(`${method}: no answer`);
    return answer;
  };
  const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  if (init.error) throw new Error(`initialize: ${init.error.message}`);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    async call(name, args) {
      const answer = await request('tools/call', { name, arguments: args });
      if (answer.error) throw new Error(`${name}: ${answer.error.message}`);
      if (answer.result?.isError) throw new Error(`${name}: ${JSON.stringify(answer.result.content)}`);
      return answer;
    },
    async close() {
      if (session) await fetch(url, { method: 'DELETE', headers: { ...base, 'mcp-session-id': session } }).catch(() => undefined);
    },
  };
}
