// HTTP MCP sessions are bounded without locking anyone out: idle ones
// expire, the oldest idle one is evicted at the cap; bodies over the limit
// get a 413 the client can read; a bad path gets a 400.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpEndpoint } from '../../main/core/mcp/httpMcpEndpoint.ts';
import { startLoopbackServer, type LoopbackServer } from '../../main/core/http/loopbackServer.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

const TOKEN = 'a'.repeat(64);

async function start(
  options: { max?: number; idleMs?: number | (() => number); now?: () => number; onSeen?: (id: string) => void; createServer?: () => McpServer } = {},
) {
  const endpoint = createMcpEndpoint({
    createServer: options.createServer ?? (() => new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } })),
    logger: silentLogger,
    maxSessions: options.max ?? 64,
    idleMs: options.idleMs ?? 60_000,
    ...(options.now ? { now: options.now } : {}),
    ...(options.onSeen ? { onSeen: options.onSeen } : {}),
  });
  const server = await startLoopbackServer({
    host: '127.0.0.1',
    port: 0,
    allowNonLoopback: false,
    tokens: { mcp: TOKEN },
    routes: [endpoint.route],
    logger: silentLogger,
  });
  return { endpoint, server };
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(server: LoopbackServer): Promise<string> {
  const r = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  });
  assert.equal(r.status, 200);
  await r.text();
  return r.headers.get('mcp-session-id')!;
}

const ping = (server: LoopbackServer, session: string) =>
  fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  });

test('at the session cap the oldest idle session is evicted, so a new client gets in', { timeout: 30_000 }, async () => {
  let clock = 1_000_000;
  const { endpoint, server } = await start({ max: 3, now: () => clock });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await initialize(server));
      clock += 1000;
    }
    (await ping(server, ids[0]!)).body?.cancel(); // the first is used again: the second is now the oldest idle
    clock += 1000;
    const fourth = await initialize(server);
    assert.ok(fourth);
    assert.equal(endpoint.sessionCount(), 3);
    assert.equal((await ping(server, ids[1]!)).status, 404, 'the oldest idle one was evicted');
    assert.equal((await ping(server, ids[0]!)).status, 200);
  } finally {
    await endpoint.close();
    await server.close();
  }
});

test('an abandoned session expires after the idle time', { timeout: 30_000 }, async () => {
  let clock = 1_000_000;
  const { endpoint, server } = await start({ idleMs: 60_000, now: () => clock });
  try {
    const id = await initialize(server);
    clock += 61_000;
    assert.equal(endpoint.sweep(), 1);
    const r = await ping(server, id);
    assert.equal(r.status, 404);
    assert.match(await r.text(), /session not found: initialize again/);
  } finally {
    await endpoint.close();
    await server.close();
  }
});

test(
  'a client that went away without a DELETE: its session ends once idle past the limit, read live; one listening on its event stream stays until the stream closes (issue 36 §16)',
  { timeout: 30_000 },
  async () => {
    let clock = 1_000_000;
    let limit = 600_000;
    const seen: string[] = [];
    const { endpoint, server } = await start({ idleMs: () => limit, now: () => clock, onSeen: (id) => seen.push(id) });
    try {
      const gone = await initialize(server);
      const listening = await initialize(server);
      (await ping(server, gone)).body?.cancel();
      assert.deepEqual(seen, [gone], 'each request in a session is seen');
      // The listening client holds its GET stream open.
      const stream = new AbortController();
      const get = await fetch(`${server.url}/mcp`, {
        headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': listening, 'mcp-protocol-version': '2025-06-18' },
        signal: stream.signal,
      });
      assert.equal(get.status, 200);
      clock += 300_000;
      assert.equal(endpoint.sweep(), 0, 'within the limit nothing ends');
      // The setting is lowered while the companion runs: the next sweep uses it.
      limit = 120_000;
      assert.equal(endpoint.sweep(), 1, 'the silent session ends at the new limit');
      assert.equal((await ping(server, gone)).status, 404);
      assert.equal(endpoint.sessionCount(), 1, 'the listening one stays');
      // Its stream closes: idle from then on (each turn moves the clock past the limit until the close is seen).
      stream.abort();
      const closed = new Promise<void>((resolve) => {
        const check = () => {
          clock += 121_000;
          if (endpoint.sweep() === 1) resolve();
          else setImmediate(check);
        };
        setImmediate(check);
      });
      await closed;
      assert.equal(endpoint.sessionCount(), 0);
      assert.equal((await ping(server, listening)).status, 404);
    } finally {
      await endpoint.close();
      await server.close();
    }
  },
);

test('a body over the limit gets a 413 with a JSON error the client can read; a bad path gets a 400', { timeout: 30_000 }, async () => {
  const { endpoint, server } = await start({});
  try {
    const big = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: 'x'.repeat(5 * 1024 * 1024) });
    assert.equal(big.status, 413);
    assert.match(((await big.json()) as { error: { message: string } }).error.message, /over 4194304 bytes/);
    const { hostname, port } = new URL(server.url);
    for (const path of ['/control/rpc/%E0%A4%A', '/mcp%', '/%ff']) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: hostname, port, path, method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, timeout: 10_000 }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      });
      assert.equal(status, 400, path);
    }
    // Still serving.
    assert.ok(await initialize(server));
  } finally {
    await endpoint.close();
    await server.close();
  }
});

test(
  'a call in flight when the companion goes is answered with a JSON-RPC error under its id, on its own stream (issue 36 §3)',
  { timeout: 30_000 },
  async () => {
    const started = Promise.withResolvers<void>();
    const { endpoint, server } = await start({
      createServer: () => {
        const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
        // A call that would wait for a person: it never answers by itself.
        server.registerTool('hold', { description: 'waits' }, () => {
          started.resolve();
          return new Promise(() => undefined);
        });
        return server;
      },
    });
    try {
      const session = await initialize(server);
      const held = fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"hold","arguments":{}}}',
      }).then((r) => r.text());
      await started.promise;
      await endpoint.close();
      const text = await held;
      const answer = JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as { id: number; error: { code: number; message: string } };
      assert.equal(answer.id, 77);
      assert.equal(answer.error.code, -32000);
      assert.match(answer.error.message, /shutting down: this call was not completed; retry once it is back/);
    } finally {
      await server.close();
    }
  },
);

test(
  'a request with no session gets its own id back: told to initialize, or, from the stateless 2026-07-28 revision, -32602 with the versions spoken',
  { timeout: 30_000 },
  async () => {
    const { endpoint, server } = await start();
    try {
      const post = (body: unknown) => fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      const legacy = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
      assert.equal(legacy.status, 400);
      const said = (await legacy.json()) as { id: unknown; error: { code: number; message: string } };
      assert.equal(said.id, 7, 'the request id, not null');
      assert.match(said.error.message, /send initialize first/);

      const modern = await post({
        jsonrpc: '2.0',
        id: 'list-1',
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      });
      assert.equal(modern.status, 400);
      const answer = (await modern.json()) as { id: unknown; error: { code: number; message: string; data: { supported: string[]; requested: string } } };
      assert.equal(answer.id, 'list-1');
      assert.equal(answer.error.code, -32602);
      assert.equal(answer.error.data.requested, '2026-07-28');
      assert.ok(answer.error.data.supported.includes('2025-11-25'), answer.error.data.supported.join(', '));

      // A notification has no id to answer with.
      const note = (await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).json()) as { id: unknown };
      assert.equal(note.id, null);
    } finally {
      await endpoint.close();
      await server.close();
    }
  },
);
