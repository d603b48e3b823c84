// One companion per data directory, and a data dir or host that cannot be
// used fails at once with one line — what a newcomer trips on first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { serve, runCli, runCliToEnd } from '../helpers/processes.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';

test('a second serve on a data dir a live companion holds says who holds it and exits 2; the first keeps serving', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  const first = await serve(dir);
  t.after(async () => {
    await first.stop();
    cleanup();
  });
  const infoBefore = readFileSync(join(dir, 'server.json'), 'utf8');
  const second = await runCliToEnd(['serve', '--port', '0', '--data-dir', dir]);
  assert.equal(second.code, 2, second.stderr);
  const lines = second.stderr.trim().split('\n');
  assert.equal(lines.length, 1, second.stderr);
  assert.match(lines[0]!, new RegExp(`another Airlock \\(pid ${first.child.pid}, serving ${first.url.replace(/[.]/g, '\\.')},.*approvals list --data-dir`));
  // Nothing of the first was touched.
  assert.equal(readFileSync(join(dir, 'server.json'), 'utf8'), infoBefore);
  const health = await fetch(`${first.url}/health`);
  assert.equal(health.status, 200);
});

test("a stdio process on the same data dir leaves the running companion's server.json alone", { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  const first = await serve(dir);
  t.after(async () => {
    await first.stop();
    cleanup();
  });
  const stdio = runCli(['stdio', '--in-process', '--data-dir', dir], { stdin: 'pipe' });
  await stdio.waitFor(/on stdio/);
  stdio.child.stdin!.end();
  await stdio.exited;
  assert.ok(existsSync(join(dir, 'server.json')), 'server.json is still there');
  assert.equal(JSON.parse(readFileSync(join(dir, 'companion.lock'), 'utf8')).pid, first.child.pid);
});

test('a lock left by a dead process is taken over', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  // A pid that surely is not running: a child that has exited.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'companion.lock'), JSON.stringify({ pid: dead, startedAt: '2026-01-01T00:00:00Z', kind: 'serve' }));
  const s = await serve(dir);
  t.after(async () => {
    await s.stop();
    cleanup();
  });
  assert.equal(JSON.parse(readFileSync(join(dir, 'companion.lock'), 'utf8')).pid, s.child.pid);
  await s.stop();
  assert.equal(existsSync(join(dir, 'companion.lock')), false, 'released on exit');
});

test('a data dir that cannot be used fails at once with one line naming the path and the reason', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const cases: [string, RegExp][] = [
    ['/proc/airlock-test', /--data-dir \/proc\/airlock-test cannot be used: it is under \/proc, a kernel file system/],
    ['/sys/airlock', /--data-dir \/sys\/airlock cannot be used: it is under \/sys/],
    [file, /cannot be used: it is a file, not a directory/],
    [join(file, 'below'), /cannot be used: .*file/],
  ];
  for (const [path, message] of cases) {
    for (const command of ['serve', 'doctor', 'stdio']) {
      const r = await runCliToEnd([command, '--data-dir', path], { timeoutMs: 20_000 });
      assert.equal(r.code, 2, `${command} ${path}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  }
});

test('--host with a non-loopback address is refused before anything starts', { timeout: 30_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', join(dir, 'fresh')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--host 0\.0\.0\.0 is not a loopback address.*--dangerously-allow-non-loopback/);
  assert.equal(existsSync(join(dir, 'fresh', 'audit.sqlite')), false, 'nothing was started');
  assert.equal(existsSync(join(dir, 'fresh', 'companion.lock')), false);
});

test('an unavailable keychain is said once, with the way forward; a profile that sends no key does not warn', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  // No session bus: the Secret Service cannot be reached.
  const env = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/airlock-test-bus', AIRLOCK_API_KEY: undefined };
  // A profile that sends a bearer key (any document will do).
  const keyed = await serve(dir, ['--spec', DEMO_SPEC, '--auth', 'bearer'], env);
  await keyed.stop();
  const warnings = keyed
    .stderr()
    .split('\n')
    .filter((l) => /keychain unavailable/.test(l));
  assert.equal(warnings.length, 1, keyed.stderr());
  // What works for this API: its own variable, named, or the file store.
  assert.match(warnings[0]!, /AIRLOCK_KEY_<API>.*--secret-store file.*this API's variable: AIRLOCK_KEY_CUSTOM/);
  const demo = await serve(dir, [], env);
  await demo.stop();
  assert.doesNotMatch(demo.stderr(), /keychain unavailable/);
});
