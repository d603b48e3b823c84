// The OpenAgenda v3 contract is not in the repository, so on a clone with
// nothing beside it the tests that need it skip with one line saying how to
// run them, and everything else still runs; with AIRLOCK_REQUIRE_ALL=1 (as
// in CI) the same line is a failure. Proved here by running real test files
// in a child process with AIRLOCK_OPENAGENDA_SPEC=none, which hides the
// contract even where the shared fixture sits beside the checkout (the way
// systemTools.test.ts hides system tools from PATH).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OPENAGENDA_HOW, ROOT } from '../helpers/paths.ts';
import { runToEnd, type ChildRun } from '../helpers/processes.ts';

const LINE = `needs the OpenAgenda v3 contract (${OPENAGENDA_HOW})`;
/** What a run may take, at most (it takes seconds). */
const DEADLINE_MS = 90_000;
/** One file with a test that needs the contract (requireOpenAgenda), one with a suite (describeWithOpenAgenda). */
const FILES = ['catalogue.test.ts', 'search.test.ts'].map((f) => join(ROOT, 'test', 'unit', f));

function runWithoutContract(env: Record<string, string | undefined>): Promise<ChildRun> {
  const args = ['--test', '--test-timeout=60000', '--test-force-exit', '--test-reporter=spec', ...FILES];
  return runToEnd(process.execPath, args, { AIRLOCK_OPENAGENDA_SPEC: 'none', ...env }, DEADLINE_MS);
}

test('without the OpenAgenda contract, what needs it skips with one line saying how to run it, and the rest passes', { timeout: DEADLINE_MS }, async () => {
  const run = await runWithoutContract({ AIRLOCK_REQUIRE_ALL: undefined });
  assert.equal(run.code, 0, run.output);
  const lines = run.output.split('\n').filter((line) => line.includes('needs the OpenAgenda'));
  assert.equal(lines.length, 2, run.output);
  assert.match(lines[0]!, /^﹣ the OpenAgenda contract becomes 24 operations .* # skip: needs the OpenAgenda v3 contract \(set AIRLOCK_OPENAGENDA_SPEC=/);
  assert.match(lines[1]!, /^﹣ search on the OpenAgenda v3 contract \([\d.]+ms\) # skip: needs the OpenAgenda v3 contract/);
  for (const line of lines) assert.ok(line.endsWith(`# skip: ${LINE}`), line);
  assert.match(run.output, /^ℹ fail 0$/m);
  assert.match(run.output, /^ℹ pass [1-9]\d/m, 'the tests on the demo and GitHub documents still run');
});

test('…and with AIRLOCK_REQUIRE_ALL=1 (as in CI) each one fails with that line', { timeout: DEADLINE_MS }, async () => {
  const run = await runWithoutContract({ AIRLOCK_REQUIRE_ALL: '1' });
  assert.equal(run.code, 1, run.output);
  assert.ok(run.output.includes(`${LINE} [missing: AIRLOCK_OPENAGENDA_SPEC (none),`), run.output);
  assert.match(run.output, /^ℹ fail 2$/m);
  assert.doesNotMatch(run.output, /# skip: needs the OpenAgenda/);
});
