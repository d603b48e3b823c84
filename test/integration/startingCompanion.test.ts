// A command run while the companion is starting (issue 36 §9: `open --print`
// right after `serve` said none ran): it holds companion.lock but does not
// serve yet. Commands that look for it wait (saying so) for up to 15 s and
// then work; a joining stdio waits for it rather than starting a second; a
// lock left by a dead process is not waited for. The companion is held
// stopped (SIGSTOP) the moment it takes its lock, so "starting" lasts as long
// as the test needs, whatever the speed of the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCli, runCliToEnd, type Running } from '../helpers/processes.ts';
import { NODE, tempDir } from '../helpers/paths.ts';

const noProc = process.platform === 'win32' ? 'holds the companion with SIGSTOP (POSIX)' : false;

/** Resolves once `file` exists in `dir` (watched, not polled). */
function appears(dir: string, file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (!existsSync(join(dir, file))) return;
      watcher.close();
      resolve();
    });
    if (existsSync(join(dir, file))) {
      watcher.close();
      resolve();
    }
  });
}

test('a command run while the companion starts waits for it, says so, and then works', { timeout: 120_000, skip: noProc }, async (t) => {
  const { dir, cleanup } = tempDir();
  // One hook, in order: every process this test started is gone before its data dir is removed (hooks run in the
  // order they are added, so a cleanup added first would race a companion still writing there).
  const started: Running[] = [];
  t.after(async () => {
    await Promise.all(started.map((r) => r.stop('SIGKILL')));
    cleanup();
  });
  const locked = appears(dir, 'companion.lock');
  const companion = runCli(['serve', '--port', '0', '--ui', '--data-dir', dir]);
  started.push(companion);
  await locked;
  companion.child.kill('SIGSTOP');
  t.after(() => companion.child.kill('SIGCONT'));
  assert.equal(existsSync(join(dir, 'server.json')), false, 'held before it serves');

  // Each says it waits, then waits; the companion is let go once both have said so.
  const commands = [
    ['approvals', 'list', '--data-dir', dir],
    ['open', '--print', '--data-dir', dir],
  ].map((args) => {
    const run = runCli(args);
    let stdout = '';
    run.child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    return { run, stdout: () => stdout };
  });
  started.push(...commands.map((c) => c.run));
  for (const { run } of commands) await run.waitFor(/airlock: the companion for .* is starting \(pid \d+\); waiting for it…/);
  // A client's stdio: it waits for this companion rather than starting a second one.
  const joined = runCli(['stdio', '--data-dir', dir], { stdin: 'pipe' });
  started.push(joined);
  let answers = '';
  joined.child.stdout!.setEncoding('utf8').on('data', (d: string) => (answers += d));
  const answered = new Promise<void>((resolve) => joined.child.stdout!.on('data', () => answers.includes('"id":1') && resolve()));
  joined.child.stdin!.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
  );
  await joined.waitFor(/the companion for .* is starting \(pid \d+\): waiting for it/);
  companion.child.kill('SIGCONT');
  await answered;
  assert.match(answers, /"serverInfo"/, answers);
  assert.doesNotMatch(joined.stderr(), /starting one in the background/);
  joined.child.stdin!.end();
  assert.equal((await joined.exited).code, 0, joined.stderr());
  const [list, open] = commands;
  assert.equal((await list!.run.exited).code, 0, list!.run.stderr());
  assert.equal((await open!.run.exited).code, 0, open!.run.stderr());
  assert.match(open!.stdout(), /^http:\/\/127\.0\.0\.1:\d+\//m, 'open --print prints the address it found');
});

test('a lock left by a process that is gone is not waited for', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const gone = spawnSync(NODE, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(join(dir, 'companion.lock'), JSON.stringify({ pid: Number(gone.stdout), startedAt: new Date().toISOString(), kind: 'serve' }));
  const run = await runCliToEnd(['approvals', 'list', '--data-dir', dir], { timeoutMs: 30_000 });
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /no running Airlock server for data dir/);
  assert.doesNotMatch(run.stderr, /is starting/);
});
