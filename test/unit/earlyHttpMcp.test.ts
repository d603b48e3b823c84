// `airlock serve` binds before its core is built: /mcp answers a client's
// initialize at once, other requests wait for the rest, and once the MCP
// endpoint exists it adopts each session answered early, so the client goes
// on under the session id it was given, with the capabilities it declared.
import { test } from 'node:test';
import { connect } from 'node:net';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpEndpoint } from '../../main/core/mcp/httpMcpEndpoint.ts';
import { createEarlyMcp } from '../../main/core/mcp/earlyHttpMcp.ts';
import { openLoopbackServer, sendJson, type OpeningServer } from '../../main/core/http/loopbackServer.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

const TOKEN = 'b'.repeat(64);

/** Resolves once `done()` holds, checking at each turn of the event loop; fails after 10 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !done();) {
    if (Date.now() > deadline) assert.fail(`still waiting: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initializeBody = (id: number | string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'early-client', version: '7' }, ...extra },
  });

async function open(): Promise<{ server: OpeningServer; early: ReturnType<typeof createEarlyMcp>; seen: string[] }> {
  const seen: string[] = [];
  const early = createEarlyMcp({ instructions: (scope) => `instructions for ${scope ? scope.join('+') : 'every API'}`, logger: silentLogger });
  const server = await openLoopbackServer({
    host: '127.0.0.1',
    port: 0,
    allowNonLoopback: false,
    tokens: { mcp: TOKEN, control: 'c'.repeat(64) },
    upgradeProtocols: [],
    routes: [early.route],
    logger: silentLogger,
  });
  return { server, early, seen };
}

function endpointFor(seen: string[]) {
  return createMcpEndpoint({
    createServer: (scope) => {
      const server = new McpServer({ name: 'airlock', version: '1' }, { capabilities: { tools: {} } });
      server.registerTool('who', { description: 'who is asking' }, () => {
        const info = server.server.getClientVersion();
        const caps = server.server.getClientCapabilities();
        return { content: [{ type: 'text', text: `${info?.name}@${info?.version} elicitation=${caps?.elicitation !== undefined}` }] };
      });
      seen.push(scope ? scope.join('+') : 'every API');
      return server;
    },
    logger: silentLogger,
  });
}

test('initialize is answered before the companion is built; the client goes on in that session once it is', { timeout: 30_000 }, async () => {
  const { server, early, seen } = await open();
  try {
    const answer = await fetch(`${server.url}/mcp?api=demo`, { method: 'POST', headers, body: initializeBody(1) });
    assert.equal(answer.status, 200);
    const session = answer.headers.get('mcp-session-id');
    assert.match(session ?? '', /^[0-9a-f-]{36}$/);
    const body = (await answer.json()) as { id: number; result: { instructions: string; serverInfo: { name: string }; protocolVersion: string } };
    assert.equal(body.id, 1);
    assert.equal(body.result.protocolVersion, '2025-06-18');
    assert.equal(body.result.instructions, 'instructions for demo');
    assert.equal(early.answered(), 1);
    assert.deepEqual(seen, [], 'no server is built before the endpoint exists');

    // The next request of that session waits for the endpoint…
    const call = fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who', arguments: {} } }),
    });
    let settled = false;
    void call.then(() => (settled = true));
    await until(() => early.waiting() === 1, 'the call to wait for the endpoint');
    assert.equal(settled, false, 'a request of a session answered early waits for the endpoint');

    // …which adopts the session with the scope and the client it was opened with.
    await early.handOver(endpointFor(seen));
    const text = await (await call).text();
    assert.deepEqual(seen, ['demo']);
    assert.match(text, /early-client@7 elicitation=true/);
  } finally {
    await server.close();
  }
});

test('an SDK client connecting while the companion starts works through the hand-over', { timeout: 30_000 }, async () => {
  const { server, early, seen } = await open();
  const client = new Client({ name: 'sdk-client', version: '2' });
  try {
    // The client's `initialized` notification waits for the endpoint: connect() ends after the hand-over.
    const connected = client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    await until(() => early.answered() === 1, 'the initialize to be answered early');
    await early.handOver(endpointFor(seen));
    await connected;
    assert.equal(client.getInstructions(), 'instructions for every API');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['who'],
    );
    const who = (await client.callTool({ name: 'who', arguments: {} })) as { content: { text: string }[] };
    assert.match(who.content[0]!.text, /^sdk-client@2/);
  } finally {
    await client.close();
    await server.close();
  }
});

test('what is not a well-formed initialize is left to the endpoint, which answers it as it always does', { timeout: 30_000 }, async () => {
  const { server, early, seen } = await open();
  try {
    const pending = [
      // not an initialize; an unknown member; a bad scope parameter
      fetch(`${server.url}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }),
      fetch(`${server.url}/mcp`, { method: 'POST', headers, body: initializeBody(2).replace('"jsonrpc"', '"extra":1,"jsonrpc"') }),
      fetch(`${server.url}/mcp?apis=demo`, { method: 'POST', headers, body: initializeBody(3) }),
    ];
    await until(() => early.waiting() === 3, 'the three requests to wait for the endpoint');
    assert.equal(early.answered(), 0);
    await early.handOver(endpointFor(seen));
    const [notInit, extra, badScope] = await Promise.all(pending);
    assert.equal(notInit!.status, 400);
    assert.match(await notInit!.text(), /send initialize first/);
    // The SDK decides about the extra member, exactly as without an early start.
    await extra!.text();
    assert.equal(badScope!.status, 400);
    assert.match(await badScope!.text(), /unknown parameter \\"apis\\" in the MCP URL/);
  } finally {
    await server.close();
  }
});

test('a body that is not JSON is refused at once, as the endpoint refuses it', { timeout: 30_000 }, async () => {
  const { server } = await open();
  try {
    const r = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: '{not json' });
    assert.equal(r.status, 400);
    assert.match(await r.text(), /parse error/);
  } finally {
    await server.close();
  }
});

test('the doors hold before the hand-over: no token, no answer', { timeout: 30_000 }, async () => {
  const { server, early } = await open();
  try {
    const r = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body: initializeBody(1) });
    assert.equal(r.status, 401);
    await r.text();
    const hostile = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body: initializeBody(1) });
    assert.equal(hostile.status, 403);
    await hostile.text();
    assert.equal(early.answered(), 0);
  } finally {
    await server.close();
  }
});

test('a path served later waits for serve(), then gets its route or a 404', { timeout: 30_000 }, async () => {
  const { server } = await open();
  try {
    const later = fetch(`${server.url}/control/state`, { headers: { authorization: `Bearer ${'c'.repeat(64)}` } });
    const missing = fetch(`${server.url}/nothing`);
    // Both are held (no route yet) rather than refused; serving the rest lets them through.
    await until(() => server.waiting() === 2, 'both requests to be held');
    server.serve([{ path: '/control/state', auth: 'control', handle: (_req, res) => sendJson(res, 200, { ready: true }) }], []);
    assert.deepEqual(await (await later).json(), { ready: true });
    assert.equal((await missing).status, 404);
  } finally {
    await server.close();
  }
});

test('serve() refuses an upgrade that was not declared when the server was opened', { timeout: 30_000 }, async () => {
  const { server } = await open();
  try {
    assert.throws(() => server.serve([], [{ path: '/pipe', auth: 'mcp', protocol: 'surprise', handle: () => undefined }]), /was not declared/);
  } finally {
    await server.close();
  }
});

test('a start that fails lets go of what waited: closing does not hang on a held upgrade', { timeout: 30_000 }, async () => {
  const server = await openLoopbackServer({
    host: '127.0.0.1',
    port: 0,
    allowNonLoopback: false,
    tokens: { mcp: TOKEN },
    upgradeProtocols: ['airlock-pipe-test'],
    routes: [],
    logger: silentLogger,
  });
  const { port } = new URL(server.url);
  const socket = await new Promise<import('node:net').Socket>((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(`GET /pipe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: airlock-pipe-test\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
  // The companion failed to start: the server is closed without ever serving.
  await server.close();
  await closed;
});

test('a client that gives up while its request waits is not served once the endpoint takes over', { timeout: 30_000 }, async () => {
  const { server, early } = await open();
  try {
    const aborted = new AbortController();
    const call = fetch(`${server.url}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', signal: aborted.signal });
    await until(() => early.waiting() === 1, 'the request to wait');
    aborted.abort();
    await assert.rejects(call);
    await until(() => early.waiting() === 0, 'the server to notice the client left');
    let handled = 0;
    await early.handOver({ handle: async () => void handled++, adopt: async () => undefined });
    assert.equal(handled, 0);
  } finally {
    await server.close();
  }
});
