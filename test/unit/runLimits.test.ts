// The run clock and output budget every engine shares.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { RunClock } from '../../main/core/sandbox/runClock.ts';
import { OutputBudget, cutToBytes, limitError } from '../../main/core/sandbox/runBudget.ts';

test('the deadline does not count time paused for a person, nested pauses included, and fires once', (t) => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  const published: (number | undefined)[] = [];
  let expired = 0;
  const clock = new RunClock({ timeoutMs: 1000, onExpire: () => expired++, publish: (at) => published.push(at) });
  clock.start();
  assert.deepEqual(published, [1_001_000]);
  mock.timers.tick(400);
  clock.pause();
  clock.pause(); // a second approval inside the first wait
  mock.timers.tick(60_000);
  clock.resume();
  assert.equal(expired, 0, 'still paused: one resume of two');
  clock.resume();
  assert.equal(published.at(-1), 1_060_400 + 600, 'resumes with the 600 ms that were left');
  mock.timers.tick(599);
  assert.equal(expired, 0);
  mock.timers.tick(1);
  assert.equal(expired, 1);
  mock.timers.tick(10_000);
  assert.equal(expired, 1);
});

test('a pause before the code starts holds the whole budget; stop ends the clock for good', (t) => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  t.after(() => mock.timers.reset());
  let expired = 0;
  const clock = new RunClock({ timeoutMs: 500, onExpire: () => expired++ });
  clock.pause();
  clock.start();
  assert.equal(clock.deadlineAt, undefined);
  mock.timers.tick(5_000);
  clock.resume();
  assert.equal(clock.deadlineAt, 5_500);
  clock.stop();
  mock.timers.tick(5_000);
  assert.equal(expired, 0);
});

test('the output budget keeps whole lines, cuts the crossing one on a character boundary, then is spent', () => {
  const budget = new OutputBudget(12);
  assert.deepEqual(budget.write('log', 'hello'), { entry: { level: 'log', text: 'hello' }, exceeded: false });
  assert.equal(budget.room, 6);
  const crossing = budget.write('warn', 'éééé');
  assert.deepEqual(crossing, { entry: { level: 'warn', text: 'éé' }, exceeded: true });
  assert.equal(budget.truncated, true);
  assert.equal(budget.room, 0);
  assert.deepEqual(budget.write('log', 'x'), { exceeded: true });
  assert.equal(cutToBytes('aé', 2), 'a');
});

test('every engine ends a run on a limit with the same words', () => {
  const limits = { timeoutMs: 250, memoryBytes: 64 * 1024 * 1024, outputBytes: 1536 };
  assert.equal(limitError('timeout', limits).message, 'Execution timed out after 250 ms');
  assert.equal(limitError('memory', limits).message, 'Memory limit of 64 MB exceeded');
  assert.equal(limitError('output', limits).message, 'Output limit of 1.5 KB exceeded (console output plus the return value)');
  assert.equal(limitError('aborted', limits).message, 'Execution was aborted');
});
