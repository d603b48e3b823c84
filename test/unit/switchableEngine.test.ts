import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SwitchableEngine } from '../../main/core/sandbox/switchableEngine.ts';
import type { RunOutcome, SandboxEngine } from '../../main/core/sandbox/engine.ts';

function fakeEngine(name: 'quickjs' | 'node') {
  const pending: (() => void)[] = [];
  let closed = false;
  const engine: SandboxEngine = {
    name,
    describeBoundary: () => `${name} boundary`,
    run: () =>
      new Promise<RunOutcome>((resolve) => {
        pending.push(() => resolve({ ok: true, value: name, console: [], consoleTruncated: false, durationMs: 1 }));
      }),
    close: async () => {
      closed = true;
    },
  };
  return { engine, finishAll: () => pending.splice(0).forEach((f) => f()), isClosed: () => closed, runs: () => pending.length };
}

test('a switch applies to the next run; a run already going finishes on its engine, which closes after it', async () => {
  const a = fakeEngine('quickjs');
  const b = fakeEngine('node');
  const engine = new SwitchableEngine(a.engine);
  const first = engine.run({} as never);
  engine.switchTo(b.engine);
  assert.equal(engine.name, 'node');
  assert.equal(engine.describeBoundary(), 'node boundary');
  assert.equal(a.isClosed(), false, 'not closed under a running run');
  assert.equal(engine.retiringRuns, 1);
  const second = engine.run({} as never);
  assert.equal(b.runs(), 1);
  a.finishAll();
  assert.equal((await first).ok && ((await first) as { value: unknown }).value, 'quickjs');
  assert.equal(a.isClosed(), true, 'closed once its last run ended');
  b.finishAll();
  assert.equal(((await second) as { value: unknown }).value, 'node');
  await engine.close();
  assert.equal(b.isClosed(), true);
});

test('an idle engine switched away from closes at once', async () => {
  const a = fakeEngine('quickjs');
  const engine = new SwitchableEngine(a.engine);
  engine.switchTo(fakeEngine('node').engine);
  assert.equal(a.isClosed(), true);
});
