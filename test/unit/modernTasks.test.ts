// The companion's tasks for 2026-07-28 clients (modernTasks.ts): a task is its caller's, reports what its run waits
// for, ends with the run's result (or its failure, or a cancel), and is forgotten only after its time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModernTasks, type TaskWork } from '../../main/core/mcp/modernTasks.ts';

/** A task whose work the test ends by hand. */
function controlled(tasks: ModernTasks, caller = 'http:alice') {
  let work!: TaskWork;
  let finish!: (text: string) => void;
  let fail!: (error: Error) => void;
  const created = tasks.start(caller, 'Waiting for your approval in Airlock: POST /items', (w) => {
    work = w;
    return new Promise((resolve, reject) => {
      finish = (text) => resolve({ content: [{ type: 'text', text }] });
      fail = reject;
    });
  });
  return { created, work: () => work, finish: (t: string) => finish(t), fail: (e: Error) => fail(e) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a task is created working with its waiting message, reports changes, and carries the result once done', async () => {
  const tasks = new ModernTasks();
  const t = controlled(tasks);
  assert.equal(t.created.resultType, 'task');
  assert.equal(t.created.status, 'working');
  assert.match(t.created.statusMessage ?? '', /Waiting for your approval/);
  assert.equal('result' in t.created, false);
  t.work().status('running');
  const got = tasks.get('http:alice', t.created.taskId);
  assert.ok(typeof got === 'object');
  assert.equal(got.view.statusMessage, 'running');
  t.finish('201');
  await settle();
  const done = tasks.get('http:alice', t.created.taskId);
  assert.ok(typeof done === 'object');
  assert.equal(done.view.status, 'completed');
  assert.deepEqual(done.view.result, { content: [{ type: 'text', text: '201' }] });
  assert.equal(done.view.statusMessage, undefined, 'no stale waiting message on a finished task');
});

test('another caller is told as much as of an id that never was, and told apart for the record; it cannot cancel', async () => {
  const tasks = new ModernTasks();
  const t = controlled(tasks);
  assert.equal(tasks.get('http:mallory', t.created.taskId), 'foreign');
  assert.equal(tasks.get('http:mallory', 'no-such-id'), 'none');
  assert.equal(tasks.cancel('http:mallory', t.created.taskId), 'foreign');
  assert.equal(t.work().signal.aborted, false, "mallory's cancel stopped nothing");
});

test('a cancel stops following the run and ends the task cancelled; again, it is acknowledged and changes nothing', async () => {
  const tasks = new ModernTasks();
  const t = controlled(tasks);
  const first = tasks.cancel('http:alice', t.created.taskId);
  assert.ok(typeof first === 'object');
  assert.equal(first.view.status, 'cancelled');
  assert.equal(t.work().signal.aborted, true);
  t.finish('late');
  await settle();
  const again = tasks.cancel('http:alice', t.created.taskId);
  assert.ok(typeof again === 'object');
  assert.equal(again.view.status, 'cancelled');
  assert.equal(again.view.result, undefined, 'a result arriving after the cancel is not attached');
});

test('work that throws ends the task failed with an error; a finished task is kept past its ttl only briefly, a working one until it ends', async () => {
  let now = Date.parse('2026-12-03T10:00:00Z');
  const tasks = new ModernTasks({ now: () => now });
  const failing = controlled(tasks);
  const slow = controlled(tasks);
  failing.fail(new Error('the companion is shutting down'));
  await settle();
  const failed = tasks.get('http:alice', failing.created.taskId);
  assert.ok(typeof failed === 'object');
  assert.equal(failed.view.status, 'failed');
  assert.deepEqual(failed.view.error, { code: -32603, message: 'the companion is shutting down' });
  now += failing.created.ttlMs + 1;
  assert.equal(tasks.get('http:alice', failing.created.taskId), 'none', 'forgotten after its ttl');
  assert.ok(typeof tasks.get('http:alice', slow.created.taskId) === 'object', 'a working task outlives its ttl');
  slow.finish('ok');
  await settle();
  now += 60_000;
  assert.ok(typeof tasks.get('http:alice', slow.created.taskId) === 'object', 'kept a while after it ends late');
  now += 10 * 60_000;
  assert.equal(tasks.get('http:alice', slow.created.taskId), 'none');
});
