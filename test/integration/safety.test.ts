// Safety properties that need the whole process: a canary key never shows up
// anywhere (results, logs, audit exports, files in the data dir) in clear or
// encoded; stdio without an approver denies mutations with instructions;
// approval timeouts deny; the kill switch stops execute while search_docs
// serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve, runCliToEnd } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient } from '../helpers/control.ts';
import { echoFixture } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { companionFixture } from '../helpers/companion.ts';
import { CANARY, holdsCanary } from '../helpers/canary.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('a canary key never appears in results, logs, audit exports or data dir files', async (t) => {
  const { dir, echo, spec } = await echoFixture(t);
  const server = await serve(dir, ['--spec', spec, '--auth', 'bearer', '--log-level', 'debug'], { AIRLOCK_API_KEY: CANARY });
  const client = await httpClient(server.mcpUrl, server.token);
  try {
    const attempts = [
      // The API echoes the Authorization header back in many encodings.
      `return await api.items.list({ query: { tag: ['x'] } });`,
      `const r = await api.items.list(); return JSON.stringify(r);`,
      `const r = await api.items.list(); console.log(JSON.stringify(r.data)); console.error(r.headers['x-echo-auth']); return r.data.base64;`,
      // An error response that echoes the key.
      `return await api.fail.get();`,
      // Look for the key in the sandbox itself.
      `return JSON.stringify({ globals: Object.getOwnPropertyNames(globalThis), env: typeof process === 'undefined' ? null : process.env, api: String(api.items.list) });`,
      `throw new Error(JSON.stringify(await api.items.list()));`,
    ];
    for (const code of attempts) {
      const r = await execute(client, code);
      assert.equal(holdsCanary(r.text), false, `result of: ${code}\n${r.text.slice(0, 500)}`);
    }
    assert.ok(
      echo.received.some((r) => r.headers.authorization === `Bearer ${CANARY}`),
      'the key did reach the API',
    );
    const log = await client.callTool({ name: 'server_log', arguments: { level: 'debug', limit: 500 } });
    assert.equal(holdsCanary(JSON.stringify(log)), false);
  } finally {
    await client.close();
  }
  const control = controlClient(dir, server.url);
  const status = await control.call('status', {});
  assert.match(status.credential.fingerprint ?? '', /^sha256:[0-9a-f]{12}$/);
  assert.equal(status.credential.source, 'env');
  assert.equal(holdsCanary(JSON.stringify(await control.call('logs.query', { level: 'debug' }))), false);
  assert.equal(holdsCanary(JSON.stringify(await control.call('settings.get', {}))), false);
  await server.stop();
  assert.equal(holdsCanary(server.stderr()), false, 'stderr');
  for (const format of ['jsonl', 'csv']) {
    const exported = await runCliToEnd(['audit', 'export', '--format', format, '--data-dir', dir]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(exported.stdout.length > 0);
    assert.equal(holdsCanary(exported.stdout), false, format);
  }
  for (const file of filesUnder(dir)) assert.equal(holdsCanary(readFileSync(file).toString('latin1')), false, file);
});

test('stdio without an approver: a mutation under "ask" is denied with how to approve, and never reaches the API', async (t) => {
  const { dir, echo, spec } = await echoFixture(t);
  const client = new Client({ name: 'no-elicitation', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--in-process', '--spec', spec, '--data-dir', dir], cwd: ROOT, stderr: 'pipe' }),
  );
  try {
    const r = await execute(client, `return (await api.items.create({ body: { a: 1 } })).error;`);
    const error = JSON.parse(r.text);
    assert.equal(error.code, 'airlock_approval_required');
    // It says how to approve in this mode: a client that asks the person itself, or the app; never a CLI that cannot see this process.
    assert.match(error.message, /this stdio server has no approval window.*MCP elicitation.*Airlock app.*policy to "allow"/);
    assert.doesNotMatch(error.message, /airlock approvals/);
    assert.equal(echo.received.length, 0);
  } finally {
    await client.close();
  }
});

test('stdio with a client that supports elicitation: the person answers in the client', async (t) => {
  const { dir, echo, spec } = await echoFixture(t);
  const client = new Client({ name: 'asks-the-human', version: '1' }, { capabilities: { elicitation: {} } });
  const questions: string[] = [];
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  let answer = true;
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    questions.push(request.params.message);
    return { action: 'accept', content: answer ? { approve: true } : { approve: false, reason: 'not from here' } };
  });
  await client.connect(
    new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--in-process', '--spec', spec, '--data-dir', dir], cwd: ROOT, stderr: 'pipe' }),
  );
  try {
    const yes = await execute(client, `return (await api.items.create({ body: { a: 1 } })).status;`);
    assert.equal(yes.text, '201');
    assert.match(questions[0]!, /allow POST http:\/\/127\.0\.0\.1:\d+\/v1\/items \(items\.create\)/);
    answer = false;
    const no = await execute(client, `return (await api.items.delete({ path: { id: '1' } })).error.message;`);
    assert.match(no.text, /not from here/);
    assert.equal(echo.received.filter((r) => r.method !== 'GET').length, 1);
  } finally {
    await client.close();
  }
});

test('no decision before the approval timeout is a denial; the API never sees the call', async (t) => {
  const { dir, echo, spec } = await echoFixture(t);
  const server = await serve(dir, ['--spec', spec, '--approval-timeout-ms', '1000', '--timeout-ms', '1000']);
  const client = await httpClient(server.mcpUrl, server.token);
  try {
    const r = await execute(client, `const r = await api.items.delete({ path: { id: '1' } }); return r.error.message;`);
    // The wait for a person (1 s) is not counted against the 1 s run deadline.
    assert.match(r.text, /was not approved: timed out: no one answered within 1 s/);
    // Only the read Airlock made to show the person the item (evidence); never the DELETE.
    assert.deepEqual(
      echo.received.map((x) => x.method),
      ['GET'],
    );
  } finally {
    await client.close();
    await server.stop();
  }
});

test('the kill switch refuses execute while search_docs keeps serving; it can be flipped live', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir, ['--kill-switch']);
  const client = await httpClient(server.mcpUrl, server.token);
  try {
    const refused = await execute(client, 'return 1');
    assert.equal(refused.isError, true);
    assert.match(refused.text, /switched off .*kill switch.*search_docs still works/);
    const search = await client.callTool({ name: 'search_docs', arguments: { query: 'list events' } });
    assert.equal(search.isError, undefined);
    const control = controlClient(dir, server.url);
    const update = await control.call('settings.update', { values: { killSwitch: false } });
    // Given as a flag, the setting stays as the flag says until restart.
    assert.deepEqual(update.applied, []);
    assert.match(update.restartRequired[0]!, /killSwitch \(overridden by --kill-switch/);
  } finally {
    await client.close();
    await server.stop();
  }
  const { dir: dir2, cleanup: cleanup2 } = tempDir();
  t.after(cleanup2);
  const live = await serve(dir2);
  const c2 = await httpClient(live.mcpUrl, live.token);
  try {
    const control = controlClient(dir2, live.url);
    assert.deepEqual((await control.call('settings.update', { values: { killSwitch: true } })).applied, ['killSwitch']);
    assert.match((await execute(c2, 'return 1')).text, /kill switch/);
    assert.equal((await control.call('status', {})).killSwitch, true);
    await control.call('settings.update', { values: { killSwitch: false } });
    assert.equal((await execute(c2, 'return 1')).text, '1');
    assert.deepEqual(JSON.parse(readFileSync(join(dir2, 'settings.json'), 'utf8')), { killSwitch: false });
  } finally {
    await c2.close();
    await live.stop();
  }
});

test('caps change live: a shorter timeout, a smaller output cap and one run at a time apply to the next run without a restart', async (t) => {
  const { client, control } = await companionFixture(t);
  const update = await control.call('settings.update', { values: { timeoutMs: 300, outputKb: 1, maxConcurrent: 1, perCallerConcurrent: 1 } });
  assert.deepEqual(update.applied.sort(), ['maxConcurrent', 'outputKb', 'perCallerConcurrent', 'timeoutMs']);
  assert.deepEqual(update.restartRequired, []);
  const spin = await execute(client, 'while (true) {}');
  assert.equal(spin.isError, true);
  assert.match(spin.text, /timed out after 300 ms/);
  const big = await execute(client, 'return "x".repeat(5000)');
  assert.match(big.text, /Output limit of 1 KB exceeded|truncated: 1024 of/);
  assert.equal((await control.call('status', {})).runs.maxConcurrent, 1);
});
