import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEngineNetwork } from '../../main/core/sandbox/engineMatrix.ts';

test("the design brief's engine × egress table, cell by cell", () => {
  const cell = (engine: 'quickjs' | 'node' | 'deno', egress: 'executor' | 'wrapper' | 'none', ack = false) => checkEngineNetwork(engine, egress, ack);
  // quickjs: executor only.
  assert.equal(cell('quickjs', 'executor').ok, true);
  assert.equal(cell('quickjs', 'wrapper').ok, false);
  assert.equal(cell('quickjs', 'none').ok, false);
  // deno: executor and wrapper; none only with an explicit acknowledgement, bannered.
  assert.equal(cell('deno', 'executor').ok, true);
  assert.equal(cell('deno', 'wrapper').ok, true);
  const denoNone = cell('deno', 'none');
  assert.equal(denoNone.ok, false);
  if (!denoNone.ok) assert.match(denoNone.reason, /--allow-unrestricted-egress/);
  const acked = cell('deno', 'none', true);
  assert.ok(acked.ok && acked.banner?.startsWith('WARNING'));
  // node: never executor; wrapper; none as deno's (issue 39 §10): only with the acknowledgement, bannered.
  const nodeExec = cell('node', 'executor');
  assert.equal(nodeExec.ok, false);
  if (!nodeExec.ok) assert.match(nodeExec.reason, /cannot scope network egress/);
  assert.equal(cell('node', 'wrapper').ok, true);
  const nodeNone = cell('node', 'none');
  assert.equal(nodeNone.ok, false);
  if (!nodeNone.ok && !denoNone.ok) assert.equal(nodeNone.reason, denoNone.reason.replace('deno', 'node'), 'the same refusal, the same way out');
  const nodeAcked = cell('node', 'none', true);
  assert.ok(nodeAcked.ok && nodeAcked.banner?.includes('can reach any host'));
});

test('a reason names the control on the Engine screen as well as the flag (issue 39 §14)', () => {
  for (const [engine, egress] of [
    ['quickjs', 'wrapper'],
    ['node', 'executor'],
    ['node', 'none'],
    ['deno', 'none'],
  ] as const) {
    const verdict = checkEngineNetwork(engine, egress, false);
    assert.ok(!verdict.ok);
    assert.ok(!/^--|Use --|pass --/.test(verdict.reason), verdict.reason);
    assert.match(verdict.reason, /"Engine bounds it"|Engine screen/, `${engine}/${egress}: ${verdict.reason}`);
  }
  for (const engine of ['node', 'deno'] as const) {
    const acked = checkEngineNetwork(engine, 'none', true);
    assert.ok(acked.ok && /the Engine screen/.test(acked.banner!), engine);
  }
});

test('defaults: executor for quickjs and deno, wrapper for node', () => {
  assert.deepEqual(checkEngineNetwork('quickjs', undefined, false), { ok: true, egress: 'executor' });
  assert.deepEqual(checkEngineNetwork('deno', undefined, false), { ok: true, egress: 'executor' });
  assert.deepEqual(checkEngineNetwork('node', undefined, false), { ok: true, egress: 'wrapper' });
});
