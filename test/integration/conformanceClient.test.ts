// The official MCP conformance suite's client scenarios against Airlock as an
// MCP client (issue 20): the suite starts scripts/conformanceClient.ts, which
// connects with Airlock's client for remote servers (the checked fetch,
// Streamable HTTP then SSE), lists the tools and calls them. Every client
// scenario the installed suite lists runs; each must pass or be listed, with
// its reason, under `client:` in conformance-expected-failures.yml, and every
// listed entry must still fail, so the list cannot go stale. A scenario that
// times the client (TIMED) is judged on a run of its own: the suite starts
// every client at once, and on two cores that alone delays one by hundreds of
// milliseconds (sse-retry once measured a 765 ms reconnect for a 500 ms
// `retry`, 700 allowed). The second test runs the 0.2 release's client
// requirements for MCP 2026-07-28 (issue 38: the servers behind the gate
// spoken to in that revision over HTTP), judged the same way against
// conformance-2026-07-28-expected-failures.yml.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { requireTools } from '../helpers/systemTools.ts';
import {
  CONFORMANCE,
  CONFORMANCE_2026,
  CONFORMANCE_2026_BIN,
  EXPECTED_FAILURES,
  expectedFailuresAt,
  listRequiredScenarios,
  type Check,
  conformanceCli,
  conformanceVersion,
  failureSummary,
  judge,
  listScenarios,
  clientStderr,
  readClientResults,
  readExpectedFailures,
  scenarioFailed,
} from '../helpers/conformance.ts';

/** Scenarios that measure the client's timing, each judged on a run of its own. */
const TIMED = ['sse-retry'];
const CLIENT_COMMAND = `${NODE} scripts/conformanceClient.ts`;
const REVISION = '2026-07-28';
/**
 * How long the suite gives each client (its default is 30 s): it starts every scenario's client at once, ~40 Node
 * processes, and beside the rest of `npm test` on two cores three of them once took longer than 30 s to connect.
 */
const CLIENT_TIMEOUT_MS = '120000';

test(
  'the MCP conformance suite: every client scenario passes against Airlock’s client, or is an expected failure with its reason',
  { timeout: 200_000 },
  async (t) => {
    if (!requireTools(t, CONFORMANCE)) return;
    const expected = explainedClientFailures(EXPECTED_FAILURES);
    const scenarios = await listScenarios('client');
    const { run, results, outputDir } = await runClients(t, ['--suite', 'all'], EXPECTED_FAILURES, 150_000);
    const parallel = new Map(TIMED.map((s) => [s, results.get(s) ?? []]));
    for (const scenario of TIMED) {
      results.set(scenario, await aloneRun(t, scenario));
      t.diagnostic(`${scenario}: beside the others ${failureSummary(parallel.get(scenario)!) || 'passed'}; judged on its own run`);
    }
    const silent = await rejudgeStopped(t, scenarios, results, outputDir, expected);
    const verdict = judge(scenarios, results, expected);
    t.diagnostic(`conformance ${conformanceVersion()}: ${scenarios.length} client scenarios; passed: ${verdict.passed.join(', ')}`);
    assertJudged(verdict, results, EXPECTED_FAILURES, conformanceVersion(), run, outputDir);
    for (const must of ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'])
      assert.ok(verdict.passed.includes(must), `${must} passes`);
    // The CLI's own baseline check counts the timed scenarios as they ran beside the others.
    if (!TIMED.some((s) => scenarioFailed(parallel.get(s)!)) && silent.length === 0)
      assert.equal(run.code, 0, `the conformance CLI's baseline check failed:\n${run.stdout.slice(-3000)}`);
  },
);

test(
  "the MCP conformance suite's 2026-07-28 requirements: every client scenario passes against Airlock’s client (MCP 2026-07-28 over HTTP), or is an expected failure with its reason",
  { timeout: 200_000 },
  async (t) => {
    if (!requireTools(t, CONFORMANCE_2026)) return;
    const file = expectedFailuresAt(REVISION);
    const expected = explainedClientFailures(file);
    const { scored, unscored } = await listRequiredScenarios(REVISION, 'client');
    const { run, results, outputDir } = await runClients(t, ['--requirements', REVISION], file, 170_000, CONFORMANCE_2026_BIN);
    const silent = await rejudgeStopped(t, [...scored, ...unscored], results, outputDir, expected, CONFORMANCE_2026_BIN);
    const verdict = judge([...scored, ...unscored], results, expected);
    t.diagnostic(
      `conformance ${REVISION} requirements: ${scored.length} scored and ${unscored.length} unscored client scenarios; passed: ${verdict.passed.join(', ')}`,
    );
    assertJudged(verdict, results, file, `0.2 (--requirements ${REVISION})`, run, outputDir);
    // The revision's own: the request envelope, its headers (SEP-2243), an authorization server that moved (SEP-2352), the issuer check (RFC 9207).
    for (const must of [
      'request-metadata',
      'http-standard-headers',
      'http-custom-headers',
      'http-invalid-tool-headers',
      'auth/authorization-server-migration',
      'auth/iss-wrong-issuer',
    ])
      assert.ok(verdict.passed.includes(must), `${must} passes`);
    if (silent.length === 0) assert.equal(run.code, 0, `the conformance CLI's baseline check failed:\n${run.stdout.slice(-3000)}`);
  },
);

/** The `client:` entries of an expected-failures file, each of which must give its reason. */
function explainedClientFailures(file: string): ReturnType<typeof readExpectedFailures> {
  const expected = readExpectedFailures(file, 'client');
  const unexplained = expected.filter((e) => e.reason.length < 10).map((e) => e.scenario);
  assert.deepEqual(unexplained, [], `client entries of ${file} without a reason`);
  return expected;
}

/** Every selected client scenario at once (`selection`: the suite or the requirements), judged against `file` by the CLI too. */
async function runClients(t: TestContext, selection: string[], file: string, timeoutMs: number, bin?: string) {
  const output = tempDir('airlock-conformance-client-');
  t.after(output.cleanup);
  const args = ['client', '--command', CLIENT_COMMAND, ...selection, '--expected-failures', file, '--output-dir', output.dir, '--timeout', CLIENT_TIMEOUT_MS];
  const run = await conformanceCli(args, timeoutMs, bin);
  assert.equal(run.timedOut, false, run.stderr);
  return { run, results: readClientResults(output.dir), outputDir: output.dir };
}

/** One scenario's checks from a run of its own (`bin`: the suite's release, 0.1 by default). */
async function aloneRun(t: TestContext, scenario: string, bin?: string): Promise<Check[]> {
  const alone = tempDir('airlock-conformance-alone-');
  t.after(alone.cleanup);
  const single = await conformanceCli(['client', '--command', CLIENT_COMMAND, '--scenario', scenario, '--output-dir', alone.dir], 60_000, bin);
  assert.equal(single.timedOut, false, single.stderr);
  return readClientResults(alone.dir).get(scenario) ?? [];
}

/**
 * A client the load stopped before it reached its scenario is run again on its own and judged there; returns those
 * scenarios. Stopped: it reported no checks (seen once in a full `npm test`: `initialize`), or it failed, is not an
 * expected failure, and its stderr never says it listed the tools (seen once in CI: `http-invalid-tool-headers`,
 * "did not send a tools/list request", beside ~40 other clients and the rest of `npm test` on two cores). A client
 * that did list the tools and then failed is judged as it ran.
 */
async function rejudgeStopped(
  t: TestContext,
  scenarios: string[],
  results: Map<string, Check[]>,
  outputDir: string,
  expected: ReturnType<typeof readExpectedFailures>,
  bin?: string,
): Promise<string[]> {
  const listed = new Set(expected.map((e) => e.scenario));
  const stopped = scenarios.filter((s) => {
    if (TIMED.includes(s)) return false;
    const checks = results.get(s) ?? [];
    if (checks.length === 0) return true;
    return scenarioFailed(checks) && !listed.has(s) && !clientStderr(outputDir, s).includes(`scenario ${s}: `);
  });
  for (const scenario of stopped) {
    const said = clientStderr(outputDir, scenario).slice(-400) || 'nothing on stderr';
    const before = failureSummary(results.get(scenario) ?? []) || 'no checks';
    results.set(scenario, await aloneRun(t, scenario, bin));
    t.diagnostic(`${scenario}: stopped before its scenario beside the others (${before}; its stderr: ${said}); judged on its own run`);
  }
  return stopped;
}

/** Fails with every scenario judged wrong: failed without an entry in `file`, listed but passing, listed but unknown, silent. */
function assertJudged(
  verdict: ReturnType<typeof judge>,
  results: Map<string, Check[]>,
  file: string,
  suite: string,
  run: { stdout: string; stderr: string },
  outputDir: string,
): void {
  const why = (scenario: string) =>
    `${failureSummary(results.get(scenario) ?? []) || 'no checks'} (the client's stderr: ${clientStderr(outputDir, scenario).slice(-400) || 'nothing'})`;
  const name = relative(ROOT, file);
  const problems = [
    ...verdict.unexpectedFailures.map((s) => `${s} failed and is not under client: in ${name}: ${why(s)}`),
    ...verdict.stale.map((s) => `${s} passes: remove it from ${name}`),
    ...verdict.unknown.map((s) => `${s} is in ${name} but is not a client scenario of conformance ${suite}`),
    ...verdict.missing.map((s) => `${s} is listed by the suite but reported no checks`),
  ];
  assert.deepEqual(problems, [], `${problems.join('\n')}\n--- conformance output (tail):\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
}
