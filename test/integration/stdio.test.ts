// MCP over stdio with the SDK's real client, spawned the way users configure
// it (`npx airlock stdio`), and the rule that stdout carries protocol only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, DEMO_SPEC, NODE, ROOT, tempDir } from '../helpers/paths.ts';

test('`npx airlock stdio` serves search_docs to the SDK client', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'airlock', 'stdio', '--in-process', '--spec', DEMO_SPEC, '--data-dir', dir],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'airlock-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, 'airlock');
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      ['search_docs', 'execute', 'server_log', 'web_log', 'health', 'get_config'],
    );
    const result = await client.callTool({ name: 'search_docs', arguments: { query: 'événements à venir à Lyon' } });
    const structured = result.structuredContent as { results: { operationId: string }[] };
    assert.equal(structured.results[0]!.operationId, 'events.list');
  } finally {
    await client.close();
  }
});

for (const protocolVersion of ['2025-06-18', '2025-11-25']) {
  test(`stdout carries JSON-RPC only; protocol ${protocolVersion} is negotiated`, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    // Debug logging makes the core chatty: all of it must go to stderr.
    const child = spawn(NODE, [CLI, 'stdio', '--in-process', '--data-dir', dir, '--log-level', 'debug'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const lines = createInterface({ input: child.stdout });
    const received: unknown[] = [];
    const waitFor = (id: number) =>
      new Promise<any>((resolve, reject) => {
        lines.on('line', (line) => {
          const msg = JSON.parse(line); // throws (and fails the test) on anything but JSON
          received.push(msg);
          if (msg.id === id) resolve(msg);
        });
        child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    const init = waitFor(1);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const initResult = await init;
    assert.equal(initResult.result.protocolVersion, protocolVersion);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const searched = waitFor(2);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'create an event' } } });
    const res = await searched;
    assert.match(res.result.content[0].text, /api\.events\.create/);
    child.stdin.end();
    await new Promise((r) => child.on('exit', r));
    for (const m of received) assert.equal((m as { jsonrpc: string }).jsonrpc, '2.0');
    assert.match(stderr, /airlock (info|debug)/); // the logs went somewhere: stderr
  });
}

test('the diagnostics tools can be turned off', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const client = new Client({ name: 'airlock-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: NODE,
      args: [CLI, 'stdio', '--in-process', '--data-dir', dir, '--diagnostics-tools', 'off'],
      cwd: ROOT,
      stderr: 'pipe',
    }),
  );
  try {
    assert.deepEqual(
      (await client.listTools()).tools.map((x) => x.name),
      ['search_docs', 'execute'],
    );
  } finally {
    await client.close();
  }
});

test('stdio after an oversized line: an error naming its size, then the next request is answered', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const child = spawn(NODE, [CLI, 'stdio', '--in-process', '--data-dir', dir], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  const lines = createInterface({ input: child.stdout! });
  const replies: Record<string, unknown>[] = [];
  const waiters: { id: unknown; resolve: (r: Record<string, unknown>) => void }[] = [];
  lines.on('line', (line) => {
    const reply = JSON.parse(line) as Record<string, unknown>;
    replies.push(reply);
    for (const w of [...waiters]) if (w.id === reply.id) w.resolve(reply);
  });
  const reply = (id: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const found = replies.find((r) => r.id === id);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no reply ${String(id)}`)), 30_000);
      waiters.push({ id, resolve: (r) => (clearTimeout(timer), resolve(r)) });
    });
  const send = (m: unknown) => child.stdin!.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await reply(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // 6 MiB without a newline, in chunks, then the newline.
  const chunk = 'y'.repeat(256 * 1024);
  for (let i = 0; i < 24; i++) child.stdin!.write(chunk);
  child.stdin!.write('\n');
  const started = performance.now();
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const error = await reply(null);
  assert.match(String((error.error as { message: string }).message), /request line of 6\.0 MiB is over the 4\.0 MiB limit/);
  const tools = await reply(2);
  assert.ok(Array.isArray((tools.result as { tools: unknown[] }).tools));
  t.diagnostic(`next request answered ${(performance.now() - started).toFixed(0)} ms after the oversized line`);
});
