import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapacityError, ExecutionCaps, RateLimiter } from '../../main/core/execute/caps.ts';

test('runs beyond the global cap queue in order, and start as slots free up', async () => {
  const caps = new ExecutionCaps({ maxConcurrent: 2, queueSize: 5, queueTimeoutMs: 60_000, perCallerConcurrent: 10 });
  const r1 = await caps.acquire('a');
  const r2 = await caps.acquire('b');
  const order: string[] = [];
  const p3 = caps.acquire('c').then((r) => (order.push('c'), r));
  const p4 = caps.acquire('d').then((r) => (order.push('d'), r));
  assert.deepEqual(caps.stats(), { active: 2, queued: 2, maxConcurrent: 2, queueSize: 5 });
  r1();
  const r3 = await p3;
  r2();
  const r4 = await p4;
  assert.deepEqual(order, ['c', 'd']);
  r3();
  r4();
  assert.equal(caps.stats().active, 0);
});

test('a full queue is a retryable "at capacity" error', async () => {
  const caps = new ExecutionCaps({ maxConcurrent: 1, queueSize: 1, queueTimeoutMs: 60_000, perCallerConcurrent: 10 });
  const r1 = await caps.acquire('a');
  const waiting = caps.acquire('b');
  await assert.rejects(caps.acquire('c'), (e: unknown) => e instanceof CapacityError && e.retryable && /at capacity.*Retry/.test(e.message));
  r1();
  (await waiting)();
});

test('the queue timeout ends in "at capacity"', async () => {
  const caps = new ExecutionCaps({ maxConcurrent: 1, queueSize: 4, queueTimeoutMs: 10, perCallerConcurrent: 10 });
  const r1 = await caps.acquire('a');
  await assert.rejects(caps.acquire('b'), /waited 10 ms in the queue/);
  r1();
});

test('a busy caller waits without blocking other callers', async () => {
  const caps = new ExecutionCaps({ maxConcurrent: 3, queueSize: 5, queueTimeoutMs: 60_000, perCallerConcurrent: 1 });
  const a1 = await caps.acquire('a');
  let a2Started = false;
  const a2 = caps.acquire('a').then((r) => ((a2Started = true), r));
  const b1 = await caps.acquire('b'); // not stuck behind a's queued run
  assert.equal(a2Started, false);
  a1();
  (await a2)();
  b1();
});

test('the token bucket allows a burst, then the rate', () => {
  let now = 0;
  const rl = new RateLimiter(2, 3, () => now);
  assert.deepEqual([rl.take('x'), rl.take('x'), rl.take('x'), rl.take('x')], [true, true, true, false]);
  assert.equal(rl.take('y'), true); // per key
  now += 500; // half a second: one token at 2/s
  assert.deepEqual([rl.take('x'), rl.take('x')], [true, false]);
  assert.equal(new RateLimiter(0, 1).take('z'), true); // 0 = unlimited
});
