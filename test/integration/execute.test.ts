// execute end to end: a real MCP client, `airlock serve` on the built-in demo
// API (QuickJS, the default engine), the client, console, errors and caps.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serve, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { tempDir } from '../helpers/paths.ts';

let server: Served;
let client: Client;
let cleanup: () => void;

before(async () => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  server = await serve(dir, ['--timeout-ms', '2000']);
  client = await httpClient(server.mcpUrl, server.token);
});

after(async () => {
  await client.close();
  await server.stop();
  cleanup();
});

test('the execute tool is annotated and states its real boundary and caps', async () => {
  const { tools } = await client.listTools();
  const ex = tools.find((t) => t.name === 'execute')!;
  assert.equal(ex.annotations?.readOnlyHint, false);
  assert.equal(ex.annotations?.destructiveHint, true);
  assert.equal(ex.annotations?.openWorldHint, true);
  assert.match(ex.description!, /QuickJS/);
  assert.match(ex.description!, /2 s wall clock/);
  assert.match(ex.description!, /256 MB memory/);
  assert.match(ex.description!, /1024 KiB of output/);
  assert.match(ex.description!, /policy "ask"/);
});

test('a trivial run returns JSON; a string comes back as is', async () => {
  assert.deepEqual(await execute(client, 'return 1 + 1'), { text: '2', isError: false });
  assert.deepEqual(await execute(client, 'return "plain text"'), { text: 'plain text', isError: false });
  assert.deepEqual(JSON.parse((await execute(client, 'return { a: [1, 2] }')).text), { a: [1, 2] });
});

test('the client reaches the demo API through the gate; console output comes back beside the result', async () => {
  const r = await execute(
    client,
    `const { data, error, status } = await api.events.list({ query: { limit: 3 } });
     if (error) throw new Error(JSON.stringify(error));
     console.log('got', data.data.length, 'events');
     return { status, titles: data.data.map((e) => e.title) };`,
  );
  assert.equal(r.isError, false, r.text);
  const [json, consoleBlock] = r.text.split('\n\nConsole:\n');
  const value = JSON.parse(json!);
  assert.equal(value.status, 200);
  assert.equal(value.titles.length, 3);
  assert.equal(consoleBlock, 'got 3 events');
  // The run's console is also in the live log, tagged with its run id.
  const log = await client.callTool({ name: 'server_log', arguments: { grep: 'got 3 events' } });
  assert.match((log.content as { text: string }[])[0]!.text, /info {2}\[sandbox\] \(run [0-9a-f]{8}\) got 3 events/);
});

test('HTTP errors do not throw; bad input to the client is an error result', async () => {
  const r = await execute(
    client,
    `const r = await api.events.get({ path: { eventId: 'evt_missing' } }); return { status: r.status, data: r.data, code: r.error?.error?.code };`,
  );
  assert.deepEqual(JSON.parse(r.text), { status: 404, data: null, code: 'not_found' });
  const bad = await execute(client, `const r = await api.events.get({}); return r.error;`);
  assert.match(bad.text, /missing path parameter 'eventId'/);
});

test("a thrown error is reported with the caller's line, never a host path", async () => {
  const r = await execute(client, 'const x = 1;\nthrow new Error("boom at two");');
  assert.equal(r.isError, true);
  assert.match(r.text, /boom at two/);
  assert.match(r.text, /execute\.js:2/);
  assert.doesNotMatch(r.text, /\/work\/|node_modules|file:\/\//);
});

test('an infinite loop ends at the deadline and the server keeps serving', async () => {
  const r = await execute(client, 'while (true) {}');
  assert.equal(r.isError, true);
  assert.match(r.text, /timeout: .*timed out/i);
  assert.deepEqual(await execute(client, 'return 40 + 2'), { text: '42', isError: false });
});

test('search_docs keeps working beside execute', async () => {
  const result = await client.callTool({ name: 'search_docs', arguments: { query: 'create an event' } });
  assert.equal((result.structuredContent as { results: { operationId: string }[] }).results[0]!.operationId, 'events.create');
});

test('health and get_config describe the running server without secrets', async () => {
  const health = await client.callTool({ name: 'health', arguments: {} });
  const h = JSON.parse((health.content as { text: string }[])[0]!.text);
  assert.equal(h.engine, 'quickjs');
  assert.equal(h.egress, 'executor');
  assert.equal(h.profile, 'demo');
  assert.ok(h.connectedClients >= 1);
  const config = await client.callTool({ name: 'get_config', arguments: {} });
  const c = JSON.parse((config.content as { text: string }[])[0]!.text);
  assert.equal(c.limits.timeoutMs, 2000);
  const log = await client.callTool({ name: 'server_log', arguments: { grep: 'serving', limit: 5 } });
  assert.match((log.content as { text: string }[])[0]!.text, /serving the demo API on/);
});
