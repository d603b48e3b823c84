// MCP Streamable HTTP with the SDK's real client, and the loopback defences:
// bearer token, Host, Origin, /health, server.json, bind refusal. The
// server serves the built-in demo API (the default profile).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serve, runCli, runCliToEnd, type Served } from '../helpers/processes.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';

let server: Served;
let dataDir: string;
let cleanup: () => void;

before(async () => {
  ({ dir: dataDir, cleanup } = tempDir());
  server = await serve(dataDir);
});

after(async () => {
  await server.stop();
  cleanup();
});

function rawRequest(
  path: string,
  headers: Record<string, string>,
  method = 'POST',
  body = '',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8').on('data', (d: string) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'airlock-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }));
  return client;
}

test('an MCP client lists the tools and searches the docs over HTTP', async () => {
  const client = await connect();
  try {
    assert.match(client.getInstructions() ?? '', /search_docs/);
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'search_docs');
    assert.ok(search);
    assert.equal(search.annotations?.readOnlyHint, true);
    assert.equal(search.annotations?.openWorldHint, false);
    assert.ok(search.title);
    assert.ok(search.outputSchema);
    const result = await client.callTool({ name: 'search_docs', arguments: { query: 'delete an event' } });
    const structured = result.structuredContent as { results: { operationId: string; call: string; method: string }[] };
    assert.equal(structured.results[0]!.operationId, 'events.delete');
    assert.equal(structured.results[0]!.call, 'api.events.delete');
    assert.equal(structured.results[0]!.method, 'DELETE');
    assert.match((result.content as { text: string }[])[0]!.text, /api\.events\.delete/);
  } finally {
    await client.close();
  }
});

test('bad tool input is rejected with a message naming the field', async () => {
  const client = await connect();
  try {
    const result = await client.callTool({ name: 'search_docs', arguments: { query: '' } });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0]!.text, /query/);
  } finally {
    await client.close();
  }
});

test('without the bearer token, or with a wrong one: 401 with WWW-Authenticate', async () => {
  const none = await rawRequest('/mcp', {}, 'POST', initialize);
  assert.equal(none.status, 401);
  assert.match(String(none.headers['www-authenticate']), /^Bearer/);
  const wrong = await rawRequest('/mcp', { authorization: `Bearer ${'0'.repeat(64)}` }, 'POST', initialize);
  assert.equal(wrong.status, 401);
  const right = await rawRequest('/mcp', { authorization: `Bearer ${server.token}` }, 'POST', initialize);
  assert.equal(right.status, 200);
});

test('a foreign Host or Origin is refused with 403, even with the token', async () => {
  const port = new URL(server.url).port;
  const host = await rawRequest('/mcp', { authorization: `Bearer ${server.token}`, host: `evil.example:${port}` }, 'POST', initialize);
  assert.equal(host.status, 403);
  const origin = await rawRequest('/mcp', { authorization: `Bearer ${server.token}`, origin: 'https://evil.example' }, 'POST', initialize);
  assert.equal(origin.status, 403);
  const local = await rawRequest('/mcp', { authorization: `Bearer ${server.token}`, origin: `http://localhost:${port}` }, 'POST', initialize);
  assert.equal(local.status, 200);
});

test('GET /health answers without auth', async () => {
  const r = await fetch(`${server.url}/health`);
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { status: 'ok' });
});

test('a closed session is gone (DELETE), and unknown sessions get 404', async () => {
  const init = await rawRequest('/mcp', { authorization: `Bearer ${server.token}` }, 'POST', initialize);
  const sid = String(init.headers['mcp-session-id']);
  assert.ok(sid);
  const del = await rawRequest('/mcp', { authorization: `Bearer ${server.token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, 'DELETE');
  assert.equal(del.status, 200);
  const after = await rawRequest(
    '/mcp',
    { authorization: `Bearer ${server.token}`, 'mcp-session-id': sid },
    'POST',
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  );
  assert.equal(after.status, 404);
});

test('server.json says where the server is; the MCP token file is private', () => {
  const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
  assert.equal(info.pid, server.child.pid);
  assert.equal(info.url, server.url);
  assert.equal(info.mcpUrl, server.mcpUrl);
  assert.equal(info.profile, undefined, 'no API named by the command: it serves every enabled API');
  if (process.platform !== 'win32') assert.equal(statSync(join(dataDir, 'token')).mode & 0o777, 0o600);
});

test('a clean stop removes server.json', async (t) => {
  const { dir, cleanup: done } = tempDir();
  t.after(done);
  const s = await serve(dir, ['--spec', DEMO_SPEC]);
  assert.equal(existsSync(join(dir, 'server.json')), true);
  const exit = await s.stop('SIGTERM');
  assert.equal(exit.code, 0);
  assert.equal(existsSync(join(dir, 'server.json')), false);
});

test('binding a non-loopback address is refused without the dangerous flag', async (t) => {
  const { dir, cleanup: done } = tempDir();
  t.after(done);
  const r = await runCliToEnd(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dir, '--spec', DEMO_SPEC]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--host 0\.0\.0\.0 is not a loopback address.*--dangerously-allow-non-loopback/);
});

test('a port in use is a clear error', async (t) => {
  const { dir, cleanup: done } = tempDir();
  t.after(done);
  const port = new URL(server.url).port;
  const r = await runCliToEnd(['serve', '--port', port, '--data-dir', dir, '--spec', DEMO_SPEC]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
});

test('a client that connects the moment the port is bound gets a working session while the companion starts', { timeout: 60_000 }, async () => {
  const { dir, cleanup: done } = tempDir();
  const starting = runCli(['serve', '--port', '0', '--data-dir', dir]);
  const client = new Client({ name: 'eager-client', version: '1' });
  try {
    // The first line names the URL: the port is bound and /mcp answers initialize before the core is loaded.
    const [, url] = await starting.waitFor(/listening on (http:\/\/[^\s;]+)\/mcp; the companion is starting/);
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    assert.match(client.getInstructions() ?? '', /^Airlock gives you the .*demo/i);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).slice(0, 2), ['search_docs', 'execute']);
    const found = await client.callTool({ name: 'search_docs', arguments: { query: 'list events' } });
    assert.match((found.content as { text: string }[])[0]!.text, /events\.list/);
    await starting.waitFor(/serving the demo API on/);
  } finally {
    await client.close();
    await starting.stop();
    done();
  }
});
