// A decision may take minutes; a client's patience may not. A call that waits
// for a person is answered "held" before the client's deadline (nothing
// sent), the run stays paused at that call, and `execute {resume}` returns
// its final result once the person decides — exactly one mutation reaches the
// API. A client that cancels leaves the request for the person, marked; a
// client that handles progress keeps waiting past its idle limit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serve, type Served } from '../helpers/processes.ts';
import { httpClient } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent, waitForStoppedWaiting } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec, type EchoApi } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { heldCallWithProgress } from '../helpers/clientClock.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';

let echo: EchoApi;
let server: Served;
let control: ControlClient;
let dataDir: string;
let cleanup: () => void;

/** When a call waiting for a person is answered "held" in these tests. */
const REPLY_AFTER_MS = 1_000;
const mutations = () => echo.received.filter((r) => r.method !== 'GET').length;
const textOf = (r: CallToolResult) => (r.content as { text: string }[])[0]!.text;
type Held = { id: string; operation: string; expiresAt: string };
const heldOf = (r: CallToolResult) => (r.structuredContent as { held?: Held } | undefined)?.held;

before(async () => {
  ({ dir: dataDir, cleanup } = tempDir());
  echo = await startEchoApi();
  const spec = writeEchoSpec(dataDir, echo.url);
  server = await serve(dataDir, ['--spec', spec, '--auth', 'bearer'], { AIRLOCK_API_KEY: 'sk_test_HELD_0123456789' });
  control = controlClient(dataDir, server.url);
  // An impatient client's 5 s is this test's 60 s: answer "held" after 1 s (a live setting), well inside it on a loaded machine.
  const update = await control.call('settings.update', { values: { approvalReplyAfterMs: REPLY_AFTER_MS } });
  assert.deepEqual(update.applied, ['approvalReplyAfterMs']);
});

after(async () => {
  await server.stop();
  await echo.close();
  cleanup();
});

/** A client that gives up after 5 s and handles no progress (Claude Desktop's behaviour, scaled down). */
const impatient = (on: Client, args: Record<string, unknown>) =>
  on.callTool({ name: 'execute', arguments: args }, undefined, { timeout: 5_000 }) as Promise<CallToolResult>;

test('a client that gives up after 5 s gets the final result through resume; one mutation reaches the API', { timeout: 90_000 }, async (t) => {
  const client = new Client({ name: 'impatient-client', version: '1' });
  // The path clients take: stdio joined to the companion.
  await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--data-dir', dataDir], cwd: ROOT, stderr: 'pipe' }));
  t.after(() => client.close());
  const before = mutations();
  const requested = waitForEvent(control, 'approval-requested');
  const first = await impatient(client, {
    code: `const r = await api.items.create({ body: { name: 'held-one' } }); return { status: r.status, error: r.error };`,
  });
  const { approval } = await requested;
  const held = heldOf(first);
  assert.ok(held, `answered "held" before the client's deadline: ${textOf(first)}`);
  assert.equal(first.isError, undefined);
  assert.equal(held.operation, 'POST /items (items.create)');
  assert.equal(held.expiresAt, approval.expiresAt);
  assert.match(textOf(first), /Nothing has been sent yet/);
  assert.match(textOf(first), new RegExp(`"resume": "${held.id}"`));
  assert.equal(mutations(), before, 'nothing sent while the person has not decided');

  // The person decides once the client has been answered "held" three times more (each a resume, answered before
  // the client's deadline); the resume then in flight gets the final result.
  let decided: Promise<unknown> | undefined;
  let last = first;
  let heldAgain = 0;
  for (const deadline = Date.now() + 60_000; heldOf(last); heldAgain++) {
    assert.ok(Date.now() < deadline, 'the run finishes once the person decides');
    const resumed = impatient(client, { resume: held.id });
    if (heldAgain === 3) decided = control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
    last = await resumed;
  }
  await decided;
  assert.ok(heldAgain >= 4, `answered "held" again until the person decided (${heldAgain} resumes)`);
  assert.deepEqual(JSON.parse(textOf(last)), { status: 201, error: null });
  assert.equal(mutations(), before + 1, 'exactly one mutation reached the API');

  // Asking again returns the same result; nothing is sent twice.
  const again = await impatient(client, { resume: held.id });
  assert.deepEqual(JSON.parse(textOf(again)), { status: 201, error: null });
  assert.equal(mutations(), before + 1);
});

test('a client that cancels leaves the request to the person, marked; the result waits for a resume', { timeout: 60_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'cancelling-client');
  t.after(() => client.close());
  const before = mutations();
  const requested = waitForEvent(control, 'approval-requested');
  const stop = new AbortController();
  const call = client.callTool(
    { name: 'execute', arguments: { code: `const r = await api.items.delete({ path: { id: '5' } }); return r.status;` } },
    undefined,
    {
      signal: stop.signal,
      timeout: 30_000,
    },
  );
  const { approval } = await requested;
  stop.abort('the user pressed stop');
  await assert.rejects(call);
  const updated = await waitForStoppedWaiting(control, approval.id);
  assert.ok(updated.clientStoppedWaitingAt, 'the prompt says the client stopped waiting');
  assert.equal(updated.clientCanResume, false, 'cancelled before it was answered "held": it never got the run\'s id');
  const pending = await control.call('approvals.list', {});
  assert.deepEqual(
    pending.map((p) => p.id),
    [approval.id],
    'not withdrawn: the person can still decide',
  );
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  const resumed = (await client.callTool({ name: 'execute', arguments: { resume: approval.request.runId } }, undefined, { timeout: 30_000 })) as CallToolResult;
  assert.equal(textOf(resumed), '200');
  assert.equal(mutations(), before + 1);
});

test(
  "attack: a held run's id is no capability — another session that presents it is told there is no such run, and the one that started it still resumes (issue 38 §2)",
  { timeout: 60_000 },
  async (t) => {
    const alice = await httpClient(server.mcpUrl, server.token, 'alice');
    const mallory = await httpClient(server.mcpUrl, server.token, 'mallory');
    t.after(async () => {
      await alice.close();
      await mallory.close();
    });
    const before = mutations();
    const requested = waitForEvent(control, 'approval-requested');
    const stop = new AbortController();
    const call = alice.callTool(
      { name: 'execute', arguments: { code: `const r = await api.items.delete({ path: { id: '6' } }); return r.status;` } },
      undefined,
      { signal: stop.signal, timeout: 30_000 },
    );
    const { approval } = await requested;
    stop.abort('alice stopped waiting');
    await assert.rejects(call);
    await waitForStoppedWaiting(control, approval.id);
    await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
    const runId = approval.request.runId;
    const stolen = (await mallory.callTool({ name: 'execute', arguments: { resume: runId } }, undefined, { timeout: 30_000 })) as CallToolResult;
    assert.equal(stolen.isError, true);
    assert.match(textOf(stolen), new RegExp(`no run "${runId}" to resume`), 'the same answer as for a run that never was');
    assert.doesNotMatch(textOf(stolen), /200/);
    const audited = await control.call('audit.query', { tool: 'execute', text: `resume ${runId}`, order: 'newest', limit: 5 });
    assert.ok(
      audited.records.some((r) => r.kind === 'tool' && r.clientName === 'mallory' && r.outcome !== 'ok'),
      'the refused resume is in the audit, under the client that tried',
    );
    const resumed = (await alice.callTool({ name: 'execute', arguments: { resume: runId } }, undefined, { timeout: 30_000 })) as CallToolResult;
    assert.equal(textOf(resumed), '200', 'the session that started it collects its result');
    assert.equal(mutations(), before + 1);
  },
);

test('a client that handles progress keeps waiting past its idle limit and receives the messages', { timeout: 90_000 }, async (t) => {
  // Told every second (a live setting; 10 s by default), so three messages take two seconds of real time.
  const patient = { approvalReplyAfterMs: 60_000, approvalProgressEveryMs: 1_000 };
  assert.deepEqual((await control.call('settings.update', { values: patient })).applied.sort(), Object.keys(patient).sort());
  t.after(() => control.call('settings.update', { values: { approvalReplyAfterMs: REPLY_AFTER_MS, approvalProgressEveryMs: 10_000 } }));
  const client = await httpClient(server.mcpUrl, server.token, 'patient-client');
  t.after(() => client.close());
  const requested = waitForEvent(control, 'approval-requested');
  // Idle limit 12 s, reset by each progress notification (Claude Code's behaviour); Airlock tells it at once and
  // every second. The client's 12 s pass on its own clock: each time a message sets its deadline again, the clock
  // moves to 1 ms before it, so the client waits as long as it would without a message, whatever the load here.
  // The person decides once the client was told three times (at once, then twice a second apart).
  const IDLE_MS = 12_000;
  const { result, messages, waitedMs } = await heldCallWithProgress(
    IDLE_MS,
    (options) =>
      client.callTool(
        { name: 'execute', arguments: { code: `const r = await api.items.delete({ path: { id: '9' } }); return r.status;` } },
        undefined,
        options,
      ) as Promise<CallToolResult>,
    () => requested.then(({ approval }) => control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' })),
  );
  assert.ok(waitedMs >= 2 * IDLE_MS, `it waited past twice its idle limit (${waitedMs} ms of the client's clock)`);
  assert.equal(heldOf(result), undefined);
  assert.equal(textOf(result), '200');
  assert.ok(messages.length >= 3, `told at once and then every second (${messages.length} messages)`);
  assert.ok(messages.every((m) => m === 'Waiting for your approval in Airlock: DELETE /items/{id}'));
});

test('execute names what is missing or wrong: neither code nor resume, both, or a run it does not know', { timeout: 30_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'confused-client');
  t.after(() => client.close());
  const none = (await client.callTool({ name: 'execute', arguments: {} })) as CallToolResult;
  assert.equal(none.isError, true);
  assert.match(textOf(none), /pass `code`.*or `resume`/);
  const both = (await client.callTool({ name: 'execute', arguments: { code: 'return 1', resume: 'x' } })) as CallToolResult;
  assert.equal(both.isError, true);
  assert.match(textOf(both), /not both/);
  const unknown = (await client.callTool({ name: 'execute', arguments: { resume: 'no-such-run' } })) as CallToolResult;
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /no run "no-such-run" to resume/);
});

test('a client that asks for a task gets one at once, polls it while the person decides, and fetches the result', { timeout: 60_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'task-client');
  t.after(() => client.close());
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.find((tool) => tool.name === 'execute')?.execution, { taskSupport: 'optional' });
  const before = mutations();
  // A plain call would be answered "held" 1 ms into its wait; a task never is.
  assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 1 } })).applied, ['approvalReplyAfterMs']);
  t.after(() => control.call('settings.update', { values: { approvalReplyAfterMs: REPLY_AFTER_MS } }));
  // The task says what it waits for: in tasks/get, and in the status notification the server sends when it changes.
  const waiting = new Promise<string>((resolve) =>
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      if (n.params.statusMessage) resolve(n.params.statusMessage);
    }),
  );
  const requested = waitForEvent(control, 'approval-requested');
  const created = await client.request(
    {
      method: 'tools/call',
      params: {
        name: 'execute',
        arguments: { code: `const r = await api.items.create({ body: { name: 'as-a-task' } }); return r.status;` },
        task: { ttl: 60_000 },
      },
    },
    CreateTaskResultSchema,
  );
  const { taskId } = created.task;
  const { approval } = await requested;
  assert.equal(await waiting, 'Waiting for your approval in Airlock: POST /items');
  const task = await client.experimental.tasks.getTask(taskId);
  assert.equal(task.status, 'working', 'still waiting for the person, not answered "held"');
  assert.equal(task.statusMessage, 'Waiting for your approval in Airlock: POST /items');
  assert.equal(mutations(), before);
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  const result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
  assert.equal(textOf(result), '201');
  assert.equal(heldOf(result), undefined);
  assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
  assert.equal(mutations(), before + 1);
});

test('cancelling a task whose run waits for a person leaves the request to the person, marked', { timeout: 60_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'task-cancel-client');
  t.after(() => client.close());
  const requested = waitForEvent(control, 'approval-requested');
  const created = await client.request(
    {
      method: 'tools/call',
      params: { name: 'execute', arguments: { code: `const r = await api.items.delete({ path: { id: '77' } }); return r.status;` }, task: {} },
    },
    CreateTaskResultSchema,
  );
  const { approval } = await requested;
  const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  assert.ok((await waitForStoppedWaiting(control, approval.id)).clientStoppedWaitingAt);
  await control.call('approvals.decide', { id: approval.id, decision: 'deny', reason: 'the client stopped waiting' });
  assert.deepEqual(await control.call('approvals.list', {}), []);
});

test('the kill switch stops runs still going: one waiting for a person has its request withdrawn, and nothing resumes', { timeout: 60_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'killed-run-client');
  t.after(() => client.close());
  const before = mutations();
  const requested = waitForEvent(control, 'approval-requested');
  const first = (await client.callTool(
    { name: 'execute', arguments: { code: `const r = await api.items.create({ body: { name: 'killed' } }); return r.error?.code ?? r.status;` } },
    undefined,
    {
      timeout: 30_000,
    },
  )) as CallToolResult;
  const { approval } = await requested;
  const held = heldOf(first);
  assert.ok(held, 'answered "held" after 1 s');
  assert.deepEqual((await control.call('settings.update', { values: { killSwitch: true } })).applied, ['killSwitch']);
  t.after(() => control.call('settings.update', { values: { killSwitch: false } }));
  for (const deadline = Date.now() + 10_000; (await control.call('approvals.list', {})).some((p) => p.id === approval.id);) {
    assert.ok(Date.now() < deadline, 'the request is withdrawn');
    await new Promise((r) => setTimeout(r, 50));
  }
  const resumed = (await client.callTool({ name: 'execute', arguments: { resume: held.id } })) as CallToolResult;
  assert.equal(resumed.isError, true);
  assert.match(textOf(resumed), /kill switch/);
  assert.equal(mutations(), before, 'nothing was sent');
});
