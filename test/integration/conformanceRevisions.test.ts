// The official MCP conformance suite's requirement sets (its 0.2 release,
// `--requirements <revision>`) against `airlock serve`, at both revisions it
// speaks on one endpoint: 2026-07-28 (stateless, `server/discover`) and
// 2025-11-25 (`initialize` and a session). Every server scenario a set runs —
// those it scores and those it reports unscored (tasks, pending) — must pass
// or be listed, with its reason, in conformance-<revision>-expected-failures.yml
// (the suite's baseline format, which its CLI is given too); a listed entry
// that passes fails the test, so the lists cannot go stale. The suite has no
// way to send a header, so it talks to the server through a loopback proxy
// that adds the bearer token and forwards Host and Origin unchanged (the
// DNS-rebinding scenario still meets the server's own Host check). The
// client scenarios (the 0.1 release's, and the 0.2 release's 2026-07-28
// requirements) run in conformanceClient.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';
import { requireTools } from '../helpers/systemTools.ts';
import { startConformanceProxy } from '../helpers/conformanceProxy.ts';
import {
  CONFORMANCE_2026,
  CONFORMANCE_2026_BIN,
  CONFORMANCE_2026_DIR,
  conformanceCli,
  conformanceVersion,
  expectedFailuresAt,
  failureSummary,
  judge,
  listRequiredScenarios,
  readExpectedFailures,
  readResults,
} from '../helpers/conformance.ts';

for (const revision of ['2026-07-28', '2025-11-25'])
  test(
    `the MCP conformance suite's ${revision} requirements: every server scenario passes or is an expected failure with its reason`,
    { timeout: 170_000 },
    async (t) => {
      if (!requireTools(t, CONFORMANCE_2026)) return;
      const file = expectedFailuresAt(revision);
      const expected = readExpectedFailures(file);
      const duplicates = expected.map((e) => e.scenario).filter((s, i, all) => all.indexOf(s) !== i);
      assert.deepEqual(duplicates, [], `listed twice in ${file}`);
      const unexplained = expected.filter((e) => e.reason.length < 10).map((e) => e.scenario);
      assert.deepEqual(unexplained, [], `entries of ${file} without a reason (a comment above the entry or its group)`);
      const { scored, unscored } = await listRequiredScenarios(revision);
      const scenarios = [...scored, ...unscored];

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
        ['server', '--url', proxy.mcpUrl, '--requirements', revision, '--timeout', '20000', '--expected-failures', file, '--output-dir', output.dir],
        150_000,
        CONFORMANCE_2026_BIN,
      );
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      assert.equal(run.timedOut, false, run.stderr);
      assert.ok(proxy.forwarded() > 0, 'the suite sent nothing through the proxy');

      const results = readResults(output.dir);
      const verdict = judge(scenarios, results, expected);
      const reasons = new Map(expected.map((e) => [e.scenario, e.reason]));
      const why = (scenario: string) => failureSummary(results.get(scenario) ?? []) || 'no checks';
      t.diagnostic(`conformance ${conformanceVersion(CONFORMANCE_2026_DIR)} at ${revision}: ${scenarios.length} server scenarios in ${seconds} s`);
      for (const scenario of scenarios) {
        const kind = unscored.includes(scenario) ? ' (unscored)' : '';
        if (verdict.passed.includes(scenario)) t.diagnostic(`${scenario}${kind}: pass`);
        else if (verdict.expectedFailures.includes(scenario)) t.diagnostic(`${scenario}${kind}: expected failure (${why(scenario)})`);
        else
          t.diagnostic(
            `${scenario}${kind}: ${verdict.stale.includes(scenario) ? 'PASSES BUT IS LISTED' : verdict.missing.includes(scenario) ? 'NOT REPORTED' : `UNEXPECTED FAILURE (${why(scenario)})`}`,
          );
      }
      const name = relative(ROOT, file);
      const problems = [
        ...verdict.unexpectedFailures.map((s) => `${s} failed and is not in ${name} (a server bug, or a new scenario to triage): ${why(s)}`),
        ...verdict.stale.map((s) => `${s} passes: remove it from ${name} (listed because: ${reasons.get(s)})`),
        ...verdict.unknown.map((s) => `${s} is in ${name} but is not a server scenario of the ${revision} requirements`),
        ...verdict.missing.map((s) => `${s} is listed by the suite but reported no checks`),
      ];
      assert.deepEqual(problems, [], `${problems.join('\n')}\n--- conformance output (tail):\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
      assert.equal(run.code, 0, `the conformance CLI's baseline check failed:\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);

      // The proxy kept Host: the foreign Host was refused by the server's own guard, the proxy's loopback one accepted.
      const rebinding = results.get('dns-rebinding-protection');
      assert.ok(rebinding, 'the DNS-rebinding scenario ran');
      const refused = rebinding.find((c) => c.id === 'localhost-host-rebinding-rejected');
      assert.equal(refused?.details?.statusCode, 403, JSON.stringify(rebinding));
      assert.match(JSON.stringify(refused?.details?.body), /not a loopback address/);
      const accepted = rebinding.find((c) => c.id === 'localhost-host-valid-accepted');
      assert.equal(accepted?.details?.statusCode, 200, JSON.stringify(rebinding));
    },
  );
