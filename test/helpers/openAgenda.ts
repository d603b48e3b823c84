// Tests that need the OpenAgenda v3 contract say so, the way tests that need
// a system tool do (systemTools.ts). The contract is not in the repository:
// AIRLOCK_OPENAGENDA_SPEC names it, or it is read from
// ../shared/fixtures/openagenda-v3/ when that exists (paths.ts). Without it
// the test (or the whole suite) is skipped with one line saying how to run it:
//   skip: needs the OpenAgenda v3 contract (set AIRLOCK_OPENAGENDA_SPEC=/path/to/openapi.yaml, or place it at ../shared/fixtures/openagenda-v3/)
// and under AIRLOCK_REQUIRE_ALL=1 (CI) that same line is a failure instead.
// AIRLOCK_OPENAGENDA_SPEC=none hides the contract even where ../shared has
// it (test/engines/openAgendaContract.test.ts proves the skip and the failure).
//
// Only what is about OpenAgenda itself waits for the contract (its preset
// end to end, search quality on its wording); generic behaviour is tested on
// documents the repository has (paths.ts: DEMO_SPEC, GITHUB_SPEC, directorySpec).
//
// Usage:
//   test('...', async (t) => { const spec = requireOpenAgenda(t); if (!spec) return; ... });
//   describeWithOpenAgenda('the openagenda preset', (spec) => { before(...); test(...); });
import type { TestContext } from 'node:test';
import { describeWithTools, requireTools, type SystemNeed } from './systemTools.ts';
import { OPENAGENDA_HOW, OPENAGENDA_SPEC, OPENAGENDA_SPEC_ENV, SHARED_OPENAGENDA_SPEC } from './paths.ts';

export const OPENAGENDA: SystemNeed = {
  why: 'the OpenAgenda tests',
  check: () => (OPENAGENDA_SPEC ? [] : [`${OPENAGENDA_SPEC_ENV} (${process.env.AIRLOCK_OPENAGENDA_SPEC?.trim() || 'unset'})`, SHARED_OPENAGENDA_SPEC]),
  packages: 'the OpenAgenda v3 contract',
  install: OPENAGENDA_HOW,
};

/**
 * Inside a test: the contract's path, or undefined once the test is skipped
 * with the line (`const spec = requireOpenAgenda(t); if (!spec) return;`);
 * under AIRLOCK_REQUIRE_ALL=1 a missing contract fails the test instead.
 */
export function requireOpenAgenda(t: TestContext): string | undefined {
  return requireTools(t, OPENAGENDA) ? OPENAGENDA_SPEC : undefined;
}

/**
 * A suite that needs the contract (its hooks included): run with the
 * contract's path when it is there; otherwise one skipped suite with the
 * line, or, under AIRLOCK_REQUIRE_ALL=1, one failing test with it.
 */
export function describeWithOpenAgenda(name: string, fn: (spec: string) => void): void {
  // fn only runs when the contract was found, so the path is defined there.
  describeWithTools(name, OPENAGENDA, () => fn(OPENAGENDA_SPEC as string));
}
