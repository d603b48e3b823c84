// The official MCP conformance suite (@modelcontextprotocol/conformance), a
// test nobody here wrote, against `airlock serve` on the demo API. The suite
// has no way to send a header, so it talks to the server through a loopback
// proxy that adds the bearer token and forwards Host and Origin unchanged
// (the DNS-rebinding scenario still meets the server's own Host check).
//
// Every server scenario the installed suite lists runs (pending ones too).
// Each must pass or be listed, with its reason, in
// conformance-expected-failures.yml (the suite's own baseline format, which
// its CLI is given too); every listed entry must still fail, so the list
// cannot go stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';
import { requireTools } from '../helpers/systemTools.ts';
import { startConformanceProxy } from '../helpers/conformanceProxy.ts';
import {
  CONFORMANCE,
  EXPECTED_FAILURES,
  conformanceCli,
  conformanceVersion,
  failureSummary,
  judge,
  listServerScenarios,
  readExpectedFailures,
  readResults,
} from '../helpers/conformance.ts';

test('the MCP conformance suite: every server scenario passes or is an expected failure with its reason', { timeout: 170_000 }, async (t) => {
  if (!requireTools(t, CONFORMANCE)) return;

  const expected = readExpectedFailures();
  const duplicates = expected.map((e) => e.scenario).filter((s, i, all) => all.indexOf(s) !== i);
  assert.deepEqual(duplicates, [], `listed twice in ${EXPECTED_FAILURES}`);
  const unexplained = expected.filter((e) => e.reason.length < 10).map((e) => e.scenario);
  assert.deepEqual(unexplained, [], `entries of ${EXPECTED_FAILURES} without a reason (a comment above the entry or its group)`);

  const scenarios = await listServerScenarios();

  // Closed in reverse order when the test ends, however far it got.
  const closers: (() => unknown)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
  });
  const data = tempDir();
  closers.push(data.cleanup);
  const output = tempDir('airlock-conformance-');
  closers.push(output.cleanup);
  const server = await serve(data.dir);
  closers.push(() => server.stop());
  const proxy = await startConformanceProxy(server.url, server.token);
  closers.push(() => proxy.close());

  const started = Date.now();
  const run = await conformanceCli(
    ['server', '--url', proxy.mcpUrl, '--suite', 'all', '--expected-failures', EXPECTED_FAILURES, '--output-dir', output.dir],
    150_000,
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  assert.equal(run.timedOut, false, run.stderr);
  assert.ok(proxy.forwarded() > 0, 'the suite sent nothing through the proxy');

  const results = readResults(output.dir);
  const verdict = judge(scenarios, results, expected);
  const reasons = new Map(expected.map((e) => [e.scenario, e.reason]));
  const why = (scenario: string) => failureSummary(results.get(scenario) ?? []) || 'no checks';
  t.diagnostic(`conformance ${conformanceVersion()}: ${scenarios.length} server scenarios in ${seconds} s, ${proxy.forwarded()} requests through the proxy`);
  for (const scenario of scenarios) {
    if (verdict.passed.includes(scenario)) t.diagnostic(`${scenario}: pass`);
    else if (verdict.expectedFailures.includes(scenario)) t.diagnostic(`${scenario}: expected failure (${why(scenario)})`);
    else if (verdict.stale.includes(scenario)) t.diagnostic(`${scenario}: PASSES BUT IS LISTED`);
    else if (verdict.missing.includes(scenario)) t.diagnostic(`${scenario}: NOT REPORTED`);
    else t.diagnostic(`${scenario}: UNEXPECTED FAILURE (${why(scenario)})`);
  }

  const file = relative(ROOT, EXPECTED_FAILURES);
  const problems = [
    ...verdict.unexpectedFailures.map((s) => `${s} failed and is not in ${file} (a server bug, or a new scenario to triage): ${why(s)}`),
    ...verdict.stale.map((s) => `${s} passes: remove it from ${file} (listed because: ${reasons.get(s)})`),
    ...verdict.unknown.map((s) => `${s} is in ${file} but is not a server scenario of conformance ${conformanceVersion()}`),
    ...verdict.missing.map((s) => `${s} is listed by the suite but reported no checks`),
  ];
  assert.deepEqual(problems, [], `${problems.join('\n')}\n--- conformance output (tail):\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
  // The suite's own baseline check agrees.
  assert.equal(run.code, 0, `the conformance CLI's baseline check failed:\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
  assert.match(run.stdout, /Baseline check passed/);

  // The proxy kept Host: the foreign Host was refused by the server's own guard, the proxy's loopback one accepted.
  const rebinding = results.get('dns-rebinding-protection');
  if (!rebinding) return;
  const refused = rebinding.find((c) => c.id === 'localhost-host-rebinding-rejected');
  assert.equal(refused?.details?.statusCode, 403, JSON.stringify(rebinding));
  assert.match(JSON.stringify(refused?.details?.body), /not a loopback address/);
  const accepted = rebinding.find((c) => c.id === 'localhost-host-valid-accepted');
  assert.equal(accepted?.details?.statusCode, 200, JSON.stringify(rebinding));
});
