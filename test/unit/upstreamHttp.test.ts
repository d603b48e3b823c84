// A remote MCP server behind Airlock (issue 20): Streamable HTTP, the legacy
// SSE transport as a fallback, its header value from the key store, and the
// address rule — a cloud metadata address never, a private or loopback one
// only when the entry allows it, the connection made to the address that was
// checked — and a JSON answer over the message cap refused. Servers here are
// the SDK's own, on loopback, started by each test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { getRequestListener } from '@hono/node-server';
import { McpServer as ModernMcpServer, createMcpHandler, fromJsonSchema, type JsonSchemaType } from '@modelcontextprotocol/server';
import { checkedAddress, checkedFetch, connectHttp, sseEventSize } from '../../main/core/upstream/httpConnection.ts';
import type { HttpServerEntry } from '../../main/core/upstream/serverEntry.ts';

const T = { timeout: 20_000 };

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'remote', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its input', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

/** A stateless Streamable HTTP server that remembers the authorization headers it saw. */
async function streamableServer() {
  const seen: (string | undefined)[] = [];
  const { url, server } = await listen((req, res) => {
    seen.push(req.headers.authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const mcp = mcpServer();
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  return { url, server, seen };
}

function entry(url: string, extra: Partial<HttpServerEntry> = {}): HttpServerEntry {
  return { transport: 'http', url, headers: [], allowPrivateNetwork: false, enabled: true, timeoutMs: 10_000, ...extra };
}

const quiet = { log: () => undefined };

test('a loopback server is refused unless its entry allows private addresses; allowed, it answers, with its header', T, async (t) => {
  const { url, server, seen } = await streamableServer();
  t.after(() => server.close());
  await assert.rejects(connectHttp('remote', entry(url), { headers: {}, ...quiet }), /127\.0\.0\.1 \(loopback\).*--allow-private-network/);
  assert.equal(seen.length, 0, 'nothing was sent');

  const connection = await connectHttp('remote', entry(url, { allowPrivateNetwork: true, headers: ['Authorization'] }), {
    headers: { Authorization: 'Bearer remote-token-0123456789' },
    ...quiet,
  });
  try {
    assert.deepEqual(
      (await connection.tools()).map((tool) => tool.name),
      ['echo'],
    );
    assert.deepEqual((await connection.call('echo', { text: 'over http' })).content, [{ type: 'text', text: 'over http' }]);
    assert.ok(seen.length > 0 && seen.every((h) => h === 'Bearer remote-token-0123456789'), 'the header on every request');
  } finally {
    await connection.close();
  }
});

test(
  'a remote server of MCP 2026-07-28 is spoken to in that revision: its arguments named as headers are sent as Mcp-Param-* headers, and a tool that names one badly is left out',
  T,
  async (t) => {
    const headers: Record<string, string | undefined>[] = [];
    const handler = createMcpHandler(() => {
      const server = new ModernMcpServer({ name: 'modern-remote', version: '2.0.0' }, { capabilities: { tools: {} } });
      server.registerTool('revision', { description: 'Says the revision of this request', inputSchema: z.object({}) }, async (_args, ctx) => {
        const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
        return { content: [{ type: 'text', text: String(envelope?.['io.modelcontextprotocol/protocolVersion'] ?? 'none') }] };
      });
      const region = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] };
      server.registerTool('deploy', { description: 'Deploys to a region', inputSchema: fromJsonSchema(region as JsonSchemaType) }, async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }));
      const bad = { type: 'object', properties: { where: { type: 'object', 'x-mcp-header': 'Where' } } };
      server.registerTool(
        'bad_header',
        { description: 'Names an object argument as a header', inputSchema: fromJsonSchema(bad as JsonSchemaType) },
        async () => ({ content: [] }),
      );
      return server;
    });
    const listener = getRequestListener((request) => handler.fetch(request), { overrideGlobalObjects: false });
    const { url, server } = await listen((req, res) => {
      headers.push({ region: req.headers['mcp-param-region'] as string | undefined, method: req.headers['mcp-method'] as string | undefined });
      void listener(req, res);
    });
    t.after(async () => {
      server.close();
      await handler.close();
    });
    const connection = await connectHttp('modern', entry(url, { allowPrivateNetwork: true }), { headers: {}, ...quiet });
    t.after(() => connection.close());
    assert.deepEqual((await connection.tools()).map((tool) => tool.name).sort(), ['deploy', 'revision']);
    const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text;
    assert.equal(text(await connection.call('revision', {})), '2026-07-28');
    assert.equal(text(await connection.call('deploy', { region: 'eu-west-3' })), 'ok');
    assert.deepEqual(headers.at(-1), { region: 'eu-west-3', method: 'tools/call' });
  },
);

test('a cloud metadata address is never reached, even where private addresses are allowed; a name is checked by what it resolves to', T, async () => {
  await assert.rejects(checkedAddress('169.254.169.254', true), /cloud metadata address is never reached/);
  const resolver = async () => [{ address: '169.254.169.254', family: 4 }];
  await assert.rejects(checkedAddress('innocent.example', true, resolver), /innocent\.example is 169\.254\.169\.254 \(metadata\)/);
  const privateResolver = async () => [{ address: '10.1.2.3', family: 4 }];
  await assert.rejects(checkedAddress('intranet.example', false, privateResolver), /private/);
  assert.deepEqual(await checkedAddress('intranet.example', true, privateResolver), { address: '10.1.2.3', family: 4 });
  assert.deepEqual(await checkedAddress('api.example', false, async () => [{ address: '93.184.216.34', family: 4 }]), { address: '93.184.216.34', family: 4 });
});

test('a server that speaks only the legacy SSE transport is reached through it', T, async (t) => {
  const transports = new Map<string, SSEServerTransport>();
  const { url, server } = await listen((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && u.pathname === '/mcp') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      void mcpServer().connect(transport);
      return;
    }
    if (req.method === 'POST' && u.pathname === '/messages') {
      const transport = transports.get(u.searchParams.get('sessionId') ?? '');
      if (transport) return void transport.handlePostMessage(req, res);
    }
    res.writeHead(405).end();
  });
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const connection = await connectHttp('legacy', entry(url, { allowPrivateNetwork: true }), { headers: {}, ...quiet });
  try {
    assert.deepEqual((await connection.call('echo', { text: 'over sse' })).content, [{ type: 'text', text: 'over sse' }]);
  } finally {
    await connection.close();
  }
});

test('an answer over the message cap is refused, and says so', T, async (t) => {
  const { url, server } = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { padding: 'x'.repeat(50_000) } }));
  });
  t.after(() => server.close());
  await assert.rejects(
    connectHttp('big', entry(url, { allowPrivateNetwork: true }), { headers: {}, ...quiet, maxMessageBytes: 10_000 }),
    /over the 10000-byte message cap/,
  );
});

test('an event on a server-sent stream is measured up to the blank line that ends it, across chunks and line endings', () => {
  const size = sseEventSize();
  assert.equal(size(Buffer.from('data: {"a"')), 10);
  assert.equal(size(Buffer.from(':1}\n')), 14);
  assert.equal(size(Buffer.from('\nevent: m')), 14, 'the event that ended here was 14 bytes');
  assert.equal(size(Buffer.from('essage\r\n\r')), 17);
  assert.equal(size(Buffer.from('\ndata: x\r\r')), 17, 'CRLF blank lines end events; the next one was 8 bytes');
  assert.equal(size(Buffer.from('data: y')), 7, 'CR-only blank lines end events too');
  assert.equal(size(Buffer.from(`data: ${'z'.repeat(100)}\n\ndata: w\n\n`)), 113, 'the largest whole event in one chunk counts');
  const mixed = sseEventSize();
  for (let i = 0; i < 100; i++) assert.equal(mixed(Buffer.from('data: xx\n\r\n')), 8, 'an LF line then a CRLF blank line ends each event');
});

test('one event over the message cap ends the stream with why; events under it pass', T, async (t) => {
  const { url, server } = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${'s'.repeat(5_000)}\n\n`);
    res.write(`data: ${'s'.repeat(5_000)}\n\n`);
    res.end(`data: ${'x'.repeat(50_000)}\n\n`);
  });
  t.after(() => server.close());
  const fetchChecked = checkedFetch(entry(url, { allowPrivateNetwork: true }), { maxMessageBytes: 10_000 });
  const answer = await fetchChecked(url, { method: 'GET' });
  await assert.rejects(answer.text(), /an event on the server's stream is over the 10000-byte message cap/);
});

test('a request on a kept-alive connection the server had closed is sent again on a new one, unless it calls a tool', T, async (t) => {
  // The server resets a connection when a second request arrives on it (as one whose keep-alive timed out does).
  const perSocket = new WeakMap<object, number>();
  let reset = 0;
  const { url, server } = await listen((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n > 1) {
      reset++;
      req.socket.resetAndDestroy();
      return;
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const fetchChecked = checkedFetch(entry(url, { allowPrivateNetwork: true }), { maxMessageBytes: 10_000 });
  const post = () => fetchChecked(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.deepEqual(await (await post()).json(), { ok: true });
  assert.deepEqual(await (await post()).json(), { ok: true }, 'the second request, reset on the reused connection, was sent again');
  assert.equal(reset, 1, 'the reused connection was reset once');
  // A tool call is never sent twice: whether the server read it before the reset cannot be known.
  const call = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'delete_everything', arguments: {} } });
  await assert.rejects(fetchChecked(url, { method: 'POST', body: call, headers: { 'content-type': 'application/json' } }), { code: 'ECONNRESET' });
  assert.equal(reset, 2, 'sent once, reset, and not sent again');
});
