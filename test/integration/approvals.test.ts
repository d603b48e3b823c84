// Mutations under "ask", end to end: an MCP client runs code that changes
// data; a person answers with the `airlock approvals` CLI; the API (a local
// echo server that counts what it receives) sees the call exactly when it
// was approved, never otherwise.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve, runCliToEnd, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent, waitForStoppedWaiting } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec, type EchoApi } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Waits (with a deadline) until the file says what `check` wants; a missing or half-written file is not yet. */
async function waitForFile(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      // not written yet
    }
    if (Date.now() > until) throw new Error('the file never said so');
    await new Promise((r) => setTimeout(r, 50));
  }
}

let echo: EchoApi;
let server: Served;
let client: Client;
let control: ControlClient;
let dataDir: string;
let cleanup: () => void;

const posts = () => echo.received.filter((r) => r.method !== 'GET').length;

before(async () => {
  ({ dir: dataDir, cleanup } = tempDir());
  echo = await startEchoApi();
  const spec = writeEchoSpec(dataDir, echo.url);
  server = await serve(dataDir, ['--spec', spec, '--auth', 'bearer'], { AIRLOCK_API_KEY: 'sk_test_APPROVALS_0123456789' });
  client = await httpClient(server.mcpUrl, server.token, 'approval-test-client');
  control = controlClient(dataDir, server.url);
});

after(async () => {
  await client.close();
  await server.stop();
  await echo.close();
  cleanup();
});

const cli = (args: string[]) => runCliToEnd([...args, '--data-dir', dataDir]);

test('an approval granted through the CLI lets the mutation reach the API exactly once', async () => {
  const before = posts();
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, `const r = await api.items.create({ body: { name: 'approved-one' } }); return { status: r.status, error: r.error };`);
  const { approval } = await requested;
  assert.equal(posts(), before); // waiting: nothing reached the API yet

  const listed = await cli(['approvals', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const pending = JSON.parse(listed.stdout);
  assert.equal(pending.length, 1);
  assert.equal(pending[0].id, approval.id);
  assert.equal(pending[0].request.operationId, 'items.create');
  assert.equal(pending[0].request.method, 'POST');
  assert.equal(pending[0].request.caller.clientName, 'approval-test-client');
  assert.match(pending[0].request.bodyPreview, /approved-one/);
  assert.match(pending[0].request.scriptSha256, /^[0-9a-f]{64}$/);
  assert.ok(pending[0].secondsLeft > 0);
  const human = await cli(['approvals', 'list']);
  assert.match(human.stdout, new RegExp(`${approval.id}  POST http://127\\.0\\.0\\.1:\\d+/v1/items`));

  const approved = await cli(['approvals', 'approve', approval.id]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /Approved apr_\w+ \(once\)/);
  const result = await run;
  assert.deepEqual(JSON.parse(result.text), { status: 201, error: null });
  assert.equal(posts(), before + 1);
  const again = await cli(['approvals', 'approve', approval.id]);
  // The first answer won: a second one is refused, saying what happened.
  assert.equal(again.code, 1);
  assert.match(again.stderr, /was already approved by .* via control API; nothing was changed/);
});

test('a denial reaches the code as the API error, with the reason; the API never sees the call', async () => {
  const before = posts();
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, `const r = await api.items.delete({ path: { id: '7' } }); return r.error;`);
  const { approval } = await requested;
  const denied = await cli(['approvals', 'deny', approval.id, '--reason', 'keep item 7']);
  assert.equal(denied.code, 0, denied.stderr);
  const error = JSON.parse((await run).text);
  assert.equal(error.code, 'airlock_mutation_denied');
  assert.match(error.message, /keep item 7/);
  assert.equal(posts(), before);
});

test('a run waiting for a person does not hold up other runs', async () => {
  const requested = waitForEvent(control, 'approval-requested');
  const waiting = execute(client, `return (await api.items.delete({ path: { id: 'later' } })).error?.code ?? 'sent';`);
  const { approval } = await requested;
  for (let i = 0; i < 6; i++) assert.deepEqual(await execute(client, `return ${i} * 2`), { text: String(i * 2), isError: false });
  await control.call('approvals.decide', { id: approval.id, decision: 'deny' });
  assert.equal((await waiting).text, 'airlock_mutation_denied');
});

test('two concurrent approvals are not mixed up', async () => {
  const before = echo.received.length;
  const seen: string[] = [];
  const both = new Promise<void>((resolve) => {
    void control.events((batch) => {
      for (const e of batch) if (e.type === 'approval-requested' && !seen.includes(e.approval.id)) seen.push(e.approval.id);
      if (seen.length === 2) resolve();
    });
  });
  const a = execute(client, `const r = await api.items.create({ body: { name: 'alpha' } }); return r.status;`);
  const b = execute(client, `const r = await api.items.delete({ path: { id: 'beta' } }); return r.error?.code ?? r.status;`);
  await both;
  const pending = await control.call('approvals.list', {});
  const create = pending.find((p) => p.request.operationId === 'items.create')!;
  const del = pending.find((p) => p.request.operationId === 'items.delete')!;
  await control.call('approvals.decide', { id: del.id, decision: 'deny' });
  await control.call('approvals.decide', { id: create.id, decision: 'approve' });
  assert.equal((await a).text, '201');
  assert.equal((await b).text, 'airlock_mutation_denied');
  // Reads the gate makes to show the person what a call would change are not mutations.
  const arrived = echo.received.slice(before).filter((r) => r.method !== 'GET');
  assert.equal(arrived.length, 1);
  assert.match(arrived[0]!.body, /alpha/);
});

test('"rest of this run" lets the run\'s next mutations through without asking again', async () => {
  const before = posts();
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(
    client,
    `const a = await api.items.create({ body: { n: 1 } }); const b = await api.items.create({ body: { n: 2 } }); return [a.status, b.status];`,
  );
  const { approval } = await requested;
  await cli(['approvals', 'approve', approval.id, '--scope', 'run']);
  assert.deepEqual(JSON.parse((await run).text), [201, 201]);
  assert.equal(posts(), before + 2);
  // A new run asks again.
  const next = waitForEvent(control, 'approval-requested');
  const run2 = execute(client, `return (await api.items.create({ body: { n: 3 } })).status;`);
  await cli(['approvals', 'deny', (await next).approval.id]);
  assert.match((await run2).text, /^0$|airlock/);
  assert.equal(posts(), before + 2);
});

test('"this client, until revoked" from the CLI: bound to the declared name, kept in grants.json, shown in Rules with counts and in Answered', async () => {
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, `return (await api.items.create({ body: { scoped: 1 } })).status;`);
  const { approval } = await requested;
  assert.match((await cli(['approvals', 'list'])).stdout, /scopes offered: once, run, session, client-always, everyone-session, always\n/);
  const approved = await cli(['approvals', 'approve', approval.id, '--scope', 'client-always']);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /\(client-always\): a grant for this client, until revoked \(grt_\w+\)/);
  assert.equal((await run).text, '201');
  const grant = (await control.call('grants.list', {})).find((g) => g.scope === 'client-always');
  try {
    assert.equal(grant?.clientName, 'approval-test-client');
    await waitForFile(() => JSON.parse(readFileSync(join(dataDir, 'grants.json'), 'utf8')).grants.some((g: { id: string }) => g.id === grant!.id));
    // Another session that declares the same name is let through: the grant is bound to the name, as the prompt says.
    const sameName = await httpClient(server.mcpUrl, server.token, 'approval-test-client');
    try {
      assert.equal((await execute(sameName, `return (await api.items.create({ body: { scoped: 2 } })).status;`)).text, '201');
    } finally {
      await sameName.close();
    }
    const rules = await control.call('rules.list', {});
    const op = rules.operations.find((o) => o.operationId === 'items.create')!;
    assert.deepEqual(op.grantIds, [grant!.id]);
    assert.equal(op.effective.kind, 'some');
    assert.ok(op.hits.asked >= 1 && op.hits.allowed >= 1, JSON.stringify(op.hits));
    assert.equal(rules.grants.find((g) => g.id === grant!.id)?.uses, 1);
    const answered = await control.call('approvals.answered', { limit: 5 });
    const mine = answered.find((a) => a.scope === 'client-always');
    assert.equal(mine?.client, 'approval-test-client');
    assert.equal(mine?.approved, true);
    assert.equal(mine?.operationId, 'items.create');
    assert.ok(mine && mine.seq > 0 && mine.runId);
  } finally {
    if (grant) await control.call('grants.revoke', { id: grant.id });
  }
});

test('the MCP token cannot reach the control API, so a client cannot approve its own mutation', async () => {
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, `return (await api.items.delete({ path: { id: 'self' } })).error?.code;`);
  const { approval } = await requested;
  const before = posts();
  const attempt = await fetch(`${server.url}/control/rpc/approvals.decide`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: approval.id, decision: 'approve' }),
  });
  assert.equal(attempt.status, 401);
  const list = await fetch(`${server.url}/control/rpc/approvals.list`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` }, body: '{}' });
  assert.equal(list.status, 401);
  // Nor can the control token speak MCP.
  const controlToken = (await import('node:fs')).readFileSync(`${dataDir}/control-token`, 'utf8').trim();
  const mcp = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  assert.equal(mcp.status, 401);
  await control.call('approvals.decide', { id: approval.id, decision: 'deny' });
  assert.equal((await run).text, 'airlock_mutation_denied');
  assert.equal(posts(), before);
});

test('the audit log links each API call to its tool call, with the decision and who made it', async () => {
  const page = await control.call('audit.query', { kind: 'api', limit: 50 });
  const api = page.records.flatMap((r) => (r.kind === 'api' ? [r] : []));
  const approved = api.find((r) => r.decision === 'approved' && /via control API/.test(String(r.approval?.by)));
  assert.ok(approved, 'an API call approved through the control API is in the audit log');
  assert.ok(api.some((r) => r.decision === 'denied'));
  assert.ok(api.some((r) => r.approval?.by === 'earlier approval (rest of run)'));
  const tools = await control.call('audit.query', { kind: 'tool', tool: 'execute', limit: 50 });
  assert.ok(tools.records.some((t) => t.kind === 'tool' && t.runId === approved.runId));
  const verify = await runCliToEnd(['audit', 'verify', '--data-dir', dataDir]);
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /Audit log intact: \d+ records/);
});

test('a client that cancels no longer withdraws silently: the request stays, marked; dismissing it sends nothing and is recorded', async () => {
  const before = posts();
  const requested = waitForEvent(control, 'approval-requested');
  const aborter = new AbortController();
  const call = client
    .callTool({ name: 'execute', arguments: { code: `await api.items.create({ body: { name: 'cancelled' } }); return 'sent';` } }, undefined, {
      signal: aborter.signal,
      timeout: 60_000,
    })
    .then(
      () => 'resolved',
      (error: Error) => error.name,
    );
  const { approval } = await requested;
  aborter.abort();
  assert.notEqual(await call, 'resolved');
  assert.ok((await waitForStoppedWaiting(control, approval.id)).clientStoppedWaitingAt, 'the prompt says the client stopped waiting');
  const dismissed = await cli(['approvals', 'deny', approval.id, '--reason', 'the client stopped waiting']);
  assert.equal(dismissed.code, 0, dismissed.stderr);
  assert.equal(posts(), before);
  const page = await control.call('audit.query', { kind: 'api', limit: 5 });
  const record = page.records.find((r) => r.kind === 'api' && r.approval?.code === 'denied' && r.approval.reason === 'the client stopped waiting');
  assert.ok(record, 'the audit log records the dismissal');
});

test('a client that goes away (connection dropped) leaves its request marked; a yes sends it exactly once', async () => {
  const before = posts();
  const leaving = await httpClient(server.mcpUrl, server.token, 'leaving-client');
  const requested = waitForEvent(control, 'approval-requested', (e) => e.approval.request.caller.clientName === 'leaving-client');
  const call = execute(leaving, `await api.items.create({ body: { name: 'gone' } }); return 'sent';`).catch(() => 'gone');
  const { approval } = await requested;
  await leaving.close(); // drops the connection without a cancellation or a DELETE
  await call;
  assert.ok((await waitForStoppedWaiting(control, approval.id)).clientStoppedWaitingAt);
  assert.ok(
    (await control.call('approvals.list', {})).some((p) => p.id === approval.id),
    'still waiting for the person',
  );
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  // The run goes on without its client: its API call is recorded once it is sent (a condition with a deadline). The
  // call was recorded once already when it was held (decision pending): the record awaited is the approved one.
  for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const page = await control.call('audit.query', { kind: 'api', limit: 20 });
    if (page.records.some((r) => r.kind === 'api' && r.runId === approval.request.runId && r.decision === 'approved')) break;
    assert.ok(Date.now() < deadline, 'the approved call was sent and recorded');
  }
  assert.equal(posts(), before + 1);
});

/** Calls execute asking for progress; resolves with the result text, collecting every progress message meanwhile. */
function executeWithProgress(on: Client, code: string, messages: string[]): Promise<string> {
  return on
    .callTool({ name: 'execute', arguments: { code } }, undefined, { onprogress: (p) => void messages.push(p.message ?? ''), timeout: 60_000 })
    .then((r) => (r.content as { text: string }[])[0]!.text);
}

async function progressWhileWaiting(on: Client) {
  const messages: string[] = [];
  const requested = waitForEvent(control, 'approval-requested');
  const run = executeWithProgress(on, `const r = await api.items.delete({ path: { id: '12' } }); return r.status;`, messages);
  const { approval } = await requested;
  // Told at once that it waits, and why: no client has to give up on a silent call.
  for (const deadline = Date.now() + 10_000; messages.length === 0;) {
    assert.ok(Date.now() < deadline, 'a progress notification while the call waits');
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(messages[0], 'Waiting for your approval in Airlock: DELETE /items/{id}');
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  assert.equal(await run, '200');
}

test('a call that waits for a person tells a client that asked for progress, over HTTP', { timeout: 60_000 }, async () => {
  await progressWhileWaiting(client);
});

test('… and over stdio joined to the companion', { timeout: 60_000 }, async (t) => {
  const joined = new Client({ name: 'progress-client', version: '1' });
  await joined.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--data-dir', dataDir], cwd: ROOT, stderr: 'pipe' }));
  t.after(() => joined.close());
  await progressWhileWaiting(joined);
});
