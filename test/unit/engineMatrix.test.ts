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
  // node: never executor; wrapper; none allowed with a banner.
  const nodeExec = cell('node', 'executor');
  assert.equal(nodeExec.ok, false);
  if (!nodeExec.ok) assert.match(nodeExec.reason, /cannot scope network egress/);
  assert.equal(cell('node', 'wrapper').ok, true);
  const nodeNone = cell('node', 'none');
  assert.ok(nodeNone.ok && nodeNone.banner?.includes('can reach any host'));
});

test('defaults: executor for quickjs and deno, wrapper for node', () => {
  assert.deepEqual(checkEngineNetwork('quickjs', undefined, false), { ok: true, egress: 'executor' });
  assert.deepEqual(checkEngineNetwork('deno', undefined, false), { ok: true, egress: 'executor' });
  assert.deepEqual(checkEngineNetwork('node', undefined, false), { ok: true, egress: 'wrapper' });
});
