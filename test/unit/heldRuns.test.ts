// Held runs, without a sandbox: a fake broker and runs that finish when told.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeldRuns, type HeldApprovals } from '../../main/core/execute/heldRuns.ts';
import type { PendingApproval } from '../../contract/approvals.ts';

function fakeBroker() {
  const pending = new Map<string, PendingApproval>();
  const listeners = new Set<(e: { type: string; approval?: PendingApproval }) => void>();
  const stopped: string[] = [];
  const broker: HeldApprovals = {
    pendingFor: (runId) => pending.get(runId),
    clientStoppedWaiting: (runId, canResume) => void stopped.push(canResume ? `${runId} (can resume)` : runId),
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
  };
  const ask = (runId: string) => {
    const approval = {
      id: `apr_${runId}`,
      request: { runId },
      createdAt: '',
      expiresAt: '2026-01-01T00:00:00Z',
      secondsLeft: 60,
    } as unknown as PendingApproval;
    pending.set(runId, approval);
    for (const l of listeners) l({ type: 'approval-requested', approval });
  };
  const decide = (runId: string) => {
    const approval = pending.get(runId)!;
    pending.delete(runId);
    for (const l of listeners) l({ type: 'approval-decided', approval });
  };
  return { broker, ask, decide, stopped };
}

function added<T>(runs: HeldRuns<T>, id: string, caller: string, settled: Promise<T>, abort: (reason: unknown) => void) {
  const live = runs.add(id, caller, abort);
  runs.settle(live, settled);
  return live;
}

function controlledRun() {
  let finish!: (v: string) => void;
  const settled = new Promise<string>((r) => (finish = r));
  const aborted: unknown[] = [];
  return { settled, finish, aborted, abort: (reason: unknown) => void aborted.push(reason) };
}

test('a run that waits for a person is answered "held" after replyAfterMs, and a resume gets its result', { timeout: 10_000 }, async () => {
  const { broker, ask, decide, stopped } = fakeBroker();
  const runs = new HeldRuns<string>({ approvals: broker, failed: () => 'failed' });
  const r = controlledRun();
  const live = added(runs, 'run1', 'caller-a', r.settled, r.abort);
  const first = runs.follow(live, { replyAfterMs: 30 });
  ask('run1');
  const held = await first;
  assert.equal(held.kind, 'held');
  // Its client now holds the run's id: if it goes away, the request says it can still collect the result.
  runs.callerGone('caller-a');
  assert.deepEqual(stopped, ['run1 (can resume)']);
  const resumed = runs.follow(runs.get('run1')!, { replyAfterMs: 10_000 });
  decide('run1');
  r.finish('done');
  assert.deepEqual(await resumed, { kind: 'done', outcome: 'done' });
  // Kept for another resume, since a call was answered "held".
  assert.deepEqual(await runs.follow(runs.get('run1')!, { replyAfterMs: 10 }), { kind: 'done', outcome: 'done' });
  assert.deepEqual(r.aborted, []);
});

test('replyAfterMs 0 waits as long as the approval; a run never held is not kept', { timeout: 10_000 }, async () => {
  const { broker, ask, decide } = fakeBroker();
  const runs = new HeldRuns<string>({ approvals: broker, failed: () => 'failed' });
  const r = controlledRun();
  const followed = runs.follow(added(runs, 'run2', 'caller-a', r.settled, r.abort), { replyAfterMs: 0 });
  ask('run2');
  await new Promise((resolve) => setTimeout(resolve, 50));
  decide('run2');
  r.finish('ok');
  assert.deepEqual(await followed, { kind: 'done', outcome: 'ok' });
  assert.equal(runs.get('run2'), undefined);
});

test('a cancelled call leaves a run that waits for a person waiting, marked; any other run is cancelled', { timeout: 10_000 }, async () => {
  const { broker, ask, stopped } = fakeBroker();
  const runs = new HeldRuns<string>({ approvals: broker, failed: () => 'failed' });
  const waiting = controlledRun();
  const stop = new AbortController();
  const followed = runs.follow(added(runs, 'run3', 'caller-a', waiting.settled, waiting.abort), { replyAfterMs: 60_000, signal: stop.signal });
  ask('run3');
  stop.abort('client cancelled');
  assert.equal((await followed).kind, 'held');
  assert.deepEqual(stopped, ['run3']);
  assert.deepEqual(waiting.aborted, [], 'the run goes on: the person can still decide');

  const busy = controlledRun();
  const stop2 = new AbortController();
  const followed2 = runs.follow(added(runs, 'run4', 'caller-a', busy.settled, busy.abort), { replyAfterMs: 60_000, signal: stop2.signal });
  stop2.abort('client cancelled');
  assert.deepEqual(busy.aborted, ['client cancelled']);
  busy.finish('aborted');
  assert.deepEqual(await followed2, { kind: 'done', outcome: 'aborted' });
});

test('progress is told while the run waits for a person, and stops when it no longer does', { timeout: 10_000 }, async () => {
  const { broker } = fakeBroker();
  const runs = new HeldRuns<string>({ approvals: broker, failed: () => 'failed' });
  const r = controlledRun();
  const live = added(runs, 'run5', 'caller-a', r.settled, r.abort);
  const told: string[] = [];
  const followed = runs.follow(live, { replyAfterMs: 0, onWaiting: (m) => (told.push(`start ${m}`), () => void told.push('stop')) });
  const done = live.waiting('Waiting for your approval in Airlock: DELETE /x');
  assert.deepEqual(told, ['start Waiting for your approval in Airlock: DELETE /x']);
  done();
  assert.deepEqual(told, ['start Waiting for your approval in Airlock: DELETE /x', 'stop']);
  r.finish('ok');
  await followed;
});

test('a session that ends marks the requests its unfinished runs wait on', { timeout: 10_000 }, () => {
  const { broker, stopped } = fakeBroker();
  const runs = new HeldRuns<string>({ approvals: broker, failed: () => 'failed' });
  added(runs, 'run6', 'caller-b', new Promise<string>(() => undefined), () => undefined);
  added(runs, 'run7', 'caller-c', new Promise<string>(() => undefined), () => undefined);
  runs.callerGone('caller-b');
  assert.deepEqual(stopped, ['run6']);
});

test('a run that rejects instead of settling still ends for whoever follows it', { timeout: 10_000 }, async () => {
  const runs = new HeldRuns<string>({ failed: (e) => `failed: ${(e as Error).message}` });
  const live = runs.add('run8', 'caller-a', () => undefined);
  const followed = runs.follow(live, { replyAfterMs: 0 });
  runs.settle(live, Promise.reject(new Error('engine crashed')));
  assert.deepEqual(await followed, { kind: 'done', outcome: 'failed: engine crashed' });
});
