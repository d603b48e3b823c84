// `npm test` never hangs, and on a machine without the system tools a test
// says what to install instead of failing. Proved here on this machine by
// taking the tools off PATH (the code under test finds them on PATH too) and
// running the real tests in a child process:
// - the srt tests without bubblewrap, socat and ripgrep skip with one line
//   per file naming the apt packages, and the run passes; with AIRLOCK_REQUIRE_ALL=1
//   (as in CI) the same run fails with that line;
// - the keychain tier without gnome-keyring, dbus and gdbus does the same;
// each within a deadline. And every `node --test` in package.json carries
// the flags that bound a test and a leaked handle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { ROOT } from '../helpers/paths.ts';
import { pathWithout } from '../helpers/systemTools.ts';
import { runToEnd, type ChildRun } from '../helpers/processes.ts';

const SRT_LINE = 'needs bubblewrap socat ripgrep (apt-get install bubblewrap socat ripgrep)';
const KEYRING_LINE = 'needs gnome-keyring dbus libglib2.0-bin (apt-get install gnome-keyring dbus libglib2.0-bin)';
/** What a run with the tools hidden may take, at most (it takes seconds). */
const DEADLINE_MS = 90_000;

type Ran = ChildRun;

/** Runs a command with the given tools hidden from PATH; kills its process group at the deadline. */
async function runWithout(hidden: string[], command: string, args: string[], env: Record<string, string | undefined>): Promise<Ran> {
  const stripped = pathWithout(hidden);
  try {
    // This Node first (the scripts call `node`), then the PATH without the tools.
    return await runToEnd(command, args, { ...env, PATH: [dirname(process.execPath), stripped.path].join(delimiter) }, DEADLINE_MS);
  } finally {
    stripped.cleanup();
  }
}

const nodeTest = (...files: string[]) => [
  '--test',
  '--test-timeout=60000',
  '--test-force-exit',
  '--test-reporter=spec',
  ...files.map((file) => join(ROOT, 'test', 'engines', file)),
];

function assertBounded(run: Ran): void {
  assert.equal(run.timedOut, false, `still running after ${DEADLINE_MS} ms:\n${run.output}`);
  assert.ok(run.ms < DEADLINE_MS);
}

/** The srt tests, a file each part (the engines tier runs them side by side), and the name each skips under. */
const SRT_FILES = [
  ['srtWrapper.test.ts', 'srt on this machine'],
  ['srtNodeEngine.test.ts', 'srt on this machine: the node engine under it'],
  ['srtDenoEngine.test.ts', 'srt on this machine: the deno engine under it'],
] as const;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('without bubblewrap, socat and ripgrep, the srt tests skip with one line each naming the apt packages, and pass', async () => {
  const run = await runWithout(['bwrap', 'socat', 'rg'], process.execPath, nodeTest(...SRT_FILES.map(([file]) => file)), { AIRLOCK_REQUIRE_ALL: undefined });
  assertBounded(run);
  assert.equal(run.code, 0, run.output);
  const lines = run.output.split('\n').filter((line) => line.includes('needs bubblewrap'));
  assert.equal(lines.length, SRT_FILES.length, run.output);
  for (const [file, name] of SRT_FILES) {
    const line = new RegExp(`^﹣ ${escaped(name)} \\([\\d.]+ms\\) # skip: needs bubblewrap socat ripgrep \\(apt-get install bubblewrap socat ripgrep\\)$`);
    assert.equal(lines.filter((l) => line.test(l)).length, 1, `${file}: ${lines.join('\n')}`);
  }
  assert.match(run.output, /^ℹ fail 0$/m);
  assert.match(run.output, /^ℹ pass [1-9]/m, 'the policy tests, which need no tools, still run');
});

test('…and with AIRLOCK_REQUIRE_ALL=1 (as in CI) the same run fails with that line, once for each file', async () => {
  const run = await runWithout(['bwrap', 'socat', 'rg'], process.execPath, nodeTest(...SRT_FILES.map(([file]) => file)), { AIRLOCK_REQUIRE_ALL: '1' });
  assertBounded(run);
  assert.equal(run.code, 1, run.output);
  for (const [file, name] of SRT_FILES) assert.ok(run.output.includes(`✖ ${name} (`), `${file} fails: ${run.output}`);
  assert.ok(run.output.includes(`${SRT_LINE} [missing: bwrap, socat, rg;`), run.output);
  assert.match(run.output, new RegExp(`^ℹ fail ${SRT_FILES.length}$`, 'm'));
  assert.doesNotMatch(run.output, /# skip: needs bubblewrap/);
});

test('without gnome-keyring, dbus and gdbus, the keychain tier says what to install and passes; with AIRLOCK_REQUIRE_ALL=1 it fails', async () => {
  const hidden = ['dbus-run-session', 'gnome-keyring-daemon', 'gdbus'];
  const script = join(ROOT, 'test', 'helpers', 'keychain-e2e.sh');
  const plain = await runWithout(hidden, 'bash', [script], { AIRLOCK_REQUIRE_ALL: undefined });
  assertBounded(plain);
  assert.equal(plain.code, 0, plain.output);
  assert.equal(plain.output, `the keychain test: skip: ${KEYRING_LINE}\n`);
  const required = await runWithout(hidden, 'bash', [script], { AIRLOCK_REQUIRE_ALL: '1' });
  assertBounded(required);
  assert.equal(required.code, 1, required.output);
  assert.ok(required.output.startsWith(`the keychain test: ${KEYRING_LINE} [missing: dbus-run-session, gnome-keyring-daemon, gdbus;`), required.output);
});

test('every node --test in package.json has a per-test deadline and exits even if a handle leaks', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const runs = Object.entries(scripts).filter(([, command]) => command.includes('node --test'));
  assert.ok(runs.length >= 4);
  for (const [name, command] of runs) {
    assert.match(command, /--test-timeout=\d+/, `${name} has no --test-timeout`);
    assert.match(command, /--test-force-exit/, `${name} has no --test-force-exit`);
  }
  const keychain = readFileSync(join(ROOT, 'test', 'helpers', 'keychain-e2e.sh'), 'utf8');
  assert.match(keychain, /timeout .*node --test --test-timeout=\d+ --test-force-exit/);
});
