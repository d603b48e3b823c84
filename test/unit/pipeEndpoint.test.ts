// The joined stdio pipe, companion side: an upgraded connection carries JSON
// lines to one MCP server; closing the connection closes the server and
// aborts its calls in flight at once; the number of joined sessions is capped;
// other upgrades are ordinary requests, and a refused one cannot hold the
// server open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { startLoopbackServer } from '../../main/core/http/loopbackServer.ts';
import { createPipeEndpoint } from '../../main/core/mcp/pipeMcpEndpoint.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

const TOKEN = 'a'.repeat(64);

async function fixture(t: { after(fn: () => unknown): void }, maxSessions: number) {
  const aborted: string[] = [];
  const modernKeys: string[] = [];
  let started!: () => void;
  const callStarted = new Promise<void>((r) => (started = r));
  // `hold` ignores its abort: it answers only when the test releases it (a late answer).
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding!: () => void;
  const held = new Promise<void>((r) => (holding = r));
  const pipe = createPipeEndpoint({
    logger: silentLogger,
    maxSessions,
    createServer: () => {
      const server = new McpServer({ name: 'fake', version: '1' });
      server.registerTool('wait', { description: 'waits until cancelled' }, (extra) => {
        started();
        return new Promise((resolve) =>
          extra.signal.addEventListener('abort', () => {
            aborted.push(String(extra.requestId));
            resolve({ content: [] });
          }),
        );
      });
      server.registerTool('hold', { description: 'answers when released, abort or not' }, async () => {
        holding();
        await released;
        return { content: [{ type: 'text', text: 'late' }] };
      });
      return server;
    },
    createModernServer: async (_scope, key) => {
      modernKeys.push(key);
      const server = new ModernMcpServer({ name: 'fake-modern', version: '2' }, { capabilities: { tools: {} } });
      server.registerTool('wait', { description: 'waits until cancelled' }, (ctx) => {
        started();
        return new Promise((resolve) =>
          ctx.mcpReq.signal.addEventListener('abort', () => {
            aborted.push(String(ctx.mcpReq.id));
            resolve({ content: [] });
          }),
        );
      });
      return server;
    },
  });
  const server = await startLoopbackServer({
    host: '127.0.0.1',
    port: 0,
    allowNonLoopback: false,
    tokens: { mcp: TOKEN },
    routes: [],
    upgrades: [pipe.route],
    logger: silentLogger,
  });
  t.after(async () => {
    await pipe.close();
    await server.close();
  });
  /** Upgrades; resolves with the socket, or with the refusal's status. */
  const open = () =>
    new Promise<{ status: number; socket?: Socket }>((resolve, reject) => {
      const req = request(`${server.url}/mcp/pipe`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'Upgrade', upgrade: 'airlock-mcp-lines' } });
      req.on('upgrade', (res, socket: Socket) => resolve({ status: res.statusCode!, socket }));
      req.on('response', (res) => (res.resume(), resolve({ status: res.statusCode! })));
      req.on('error', reject);
      req.end();
    });
  return { pipe, open, aborted, callStarted, held, release, modernKeys };
}

function lines(socket: Socket): (id: number) => Promise<Record<string, unknown>> {
  let buffered = '';
  const seen = new Map<number, Record<string, unknown>>();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  socket.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const m = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown> & { id: number };
      buffered = buffered.slice(nl + 1);
      seen.set(m.id, m);
      waiting.get(m.id)?.(m);
    }
  });
  return (id) => (seen.has(id) ? Promise.resolve(seen.get(id)!) : new Promise((r) => waiting.set(id, r)));
}

const send = (socket: Socket, message: object) => socket.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const INIT = { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

test('a joined session answers over its pipe; closing the pipe aborts its call in flight at once', { timeout: 10_000 }, async (t) => {
  const { pipe, open, aborted, callStarted } = await fixture(t, 4);
  const { status, socket } = await open();
  assert.equal(status, 101);
  const answer = lines(socket!);
  send(socket!, INIT);
  assert.equal(((await answer(1)).result as { serverInfo: { name: string } }).serverInfo.name, 'fake');
  send(socket!, { method: 'notifications/initialized' });
  send(socket!, { id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } });
  await callStarted;
  assert.equal(pipe.sessionCount(), 1);
  socket!.destroy();
  for (const deadline = Date.now() + 5_000; aborted.length === 0 || pipe.sessionCount() > 0;) {
    assert.ok(Date.now() < deadline, 'the call is aborted and the session gone within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(aborted, ['2']);
});

/** The 2026-07-28 request envelope. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'modern-client', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

test(
  'a pipe speaks the revision its client opens with: server/discover gets a 2026-07-28 server (keyed by the pipe) whose call is aborted when the pipe closes, while another pipe opened with initialize is served as before',
  { timeout: 10_000 },
  async (t) => {
    const { pipe, open, aborted, callStarted, modernKeys } = await fixture(t, 4);
    const modern = (await open()).socket!;
    const modernAnswer = lines(modern);
    send(modern, { id: 1, method: 'server/discover', params: { _meta: envelope } });
    const discovered = (await modernAnswer(1)).result as { supportedVersions: string[]; _meta: Record<string, { name: string }> };
    assert.deepEqual(discovered.supportedVersions, ['2026-07-28']);
    assert.equal(discovered._meta['io.modelcontextprotocol/serverInfo']!.name, 'fake-modern');
    // A request of an unsupported revision is refused under its own id.
    send(modern, { id: 2, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } });
    const refused = (await modernAnswer(2)).error as { code: number; data: { supported: string[] } };
    assert.deepEqual(refused.data.supported, ['2026-07-28']);
    send(modern, { id: 3, method: 'tools/list', params: { _meta: envelope } });
    assert.deepEqual(
      ((await modernAnswer(3)).result as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      ['wait'],
    );

    const legacy = (await open()).socket!;
    const legacyAnswer = lines(legacy);
    send(legacy, INIT);
    assert.equal(((await legacyAnswer(1)).result as { serverInfo: { name: string } }).serverInfo.name, 'fake');
    assert.equal(modernKeys.length, 1, 'the 2025 pipe built no modern server');
    assert.match(modernKeys[0]!, /^stdio:[0-9a-f-]{36}$/, "the modern server's caller is its pipe");

    send(modern, { id: 4, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: envelope } });
    await callStarted;
    assert.equal(pipe.sessionCount(), 2);
    modern.destroy();
    for (const deadline = Date.now() + 5_000; aborted.length === 0 || pipe.sessionCount() > 1;) {
      assert.ok(Date.now() < deadline, 'the modern call is aborted and its session gone within 5 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(aborted, ['4']);
    legacy.destroy();
  },
);

test(
  'closing the endpoint answers each request in flight with a JSON-RPC error under its own id, once, before the pipe ends (issue 36 §3)',
  { timeout: 10_000 },
  async (t) => {
    const { pipe, open, aborted, callStarted, held, release } = await fixture(t, 4);
    const { socket } = await open();
    const received: { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] = [];
    let buffered = '';
    socket!.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, nl)) as (typeof received)[number]);
        buffered = buffered.slice(nl + 1);
      }
    });
    const closed = new Promise<void>((r) => socket!.once('close', () => r()));
    send(socket!, INIT);
    send(socket!, { method: 'notifications/initialized' });
    send(socket!, { id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    send(socket!, { id: 'three', method: 'tools/call', params: { name: 'hold', arguments: {} } });
    await Promise.all([callStarted, held]);
    await pipe.close('the companion is going: retry');
    // The held call answers after the close (it ignored its abort): that answer is not sent after the error. (One that
    // comes while the pipe is still open is dropped by the transport: stdioTransport.test.ts.)
    release();
    await closed;
    assert.equal(pipe.sessionCount(), 0);
    assert.deepEqual(aborted, ['2'], 'the call that listens for its abort is aborted');
    assert.deepEqual(
      received.map((m) => m.id),
      [1, 2, 'three'],
      'one answer per request, the initialize answered before, none sent twice',
    );
    for (const id of [2, 'three'])
      assert.deepEqual(received.find((m) => m.id === id)?.error, { code: -32000, message: 'the companion is going: retry' }, String(id));
  },
);

test('joined sessions are capped: one more is refused with 503 until one closes', { timeout: 10_000 }, async (t) => {
  const { pipe, open } = await fixture(t, 1);
  const first = await open();
  assert.equal(first.status, 101);
  assert.equal((await open()).status, 503);
  first.socket!.destroy();
  for (const deadline = Date.now() + 5_000; pipe.sessionCount() > 0;) {
    assert.ok(Date.now() < deadline, 'the closed session is released');
    await new Promise((r) => setTimeout(r, 10));
  }
  const again = await open();
  assert.equal(again.status, 101);
  again.socket!.destroy();
});

test(
  'the upgrade listener takes only the pipe: an Upgrade: h2c request is served as a request, a POST upgrade is refused, and a refused client that keeps its side open cannot hold up shutdown',
  { timeout: 10_000 },
  async () => {
    const pipe = createPipeEndpoint({
      logger: silentLogger,
      createServer: () => new McpServer({ name: 'fake', version: '1' }),
      createModernServer: async () => new ModernMcpServer({ name: 'fake', version: '1' }),
    });
    const server = await startLoopbackServer({
      host: '127.0.0.1',
      port: 0,
      allowNonLoopback: false,
      tokens: { mcp: TOKEN },
      routes: [{ path: '/health', auth: 'none', handle: (_req, res) => void res.writeHead(200).end('ok') }],
      upgrades: [pipe.route],
      logger: silentLogger,
    });
    const raw = (text: string) =>
      new Promise<{ answer: string; socket: Socket }>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: server.port, allowHalfOpen: true }, () => socket.write(text));
        let answer = '';
        socket.setEncoding('utf8').on('data', (d: string) => {
          answer += d;
          if (answer.includes('\r\n\r\n')) resolve({ answer, socket });
        });
        socket.on('error', reject);
      });
    const host = `127.0.0.1:${server.port}`;
    const h2c = await raw(
      `GET /health HTTP/1.1\r\nhost: ${host}\r\nconnection: Upgrade, HTTP2-Settings\r\nupgrade: h2c\r\nhttp2-settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
    );
    assert.match(h2c.answer, /^HTTP\/1\.1 200/);
    h2c.socket.destroy();
    const post = await raw(
      `POST /mcp/pipe HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${TOKEN}\r\nconnection: Upgrade\r\nupgrade: airlock-mcp-lines\r\ncontent-length: 0\r\n\r\n`,
    );
    assert.match(post.answer, /^HTTP\/1\.1 405/);
    // Refused (no token), and the client never closes its side: shutdown still completes.
    const stubborn = await raw(`GET /mcp/pipe HTTP/1.1\r\nhost: ${host}\r\nconnection: Upgrade\r\nupgrade: airlock-mcp-lines\r\n\r\n`);
    assert.match(stubborn.answer, /^HTTP\/1\.1 401/);
    await pipe.close();
    await server.close();
    post.socket.destroy();
    stubborn.socket.destroy();
  },
);
