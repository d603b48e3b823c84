// The lean stdio path: which command lines take it, and bad lines answered
// by the forwarder itself without reaching (or starting) a companion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { leanArgs } from '../../main/cli/stdioJoin.ts';
import { runForwarder } from '../../main/core/mcp/stdioForwarder.ts';

test('only what registrations write goes the lean way; anything else gets the full CLI (and its validation)', () => {
  assert.deepEqual([...leanArgs([])!], []);
  assert.deepEqual(
    [...leanArgs(['--data-dir', '/d', '--log-level', 'warn'])!],
    [
      ['--data-dir', '/d'],
      ['--log-level', 'warn'],
    ],
  );
  assert.deepEqual(
    [...leanArgs(['--data-dir=/a b', '--exit-when-idle', '30'])!],
    [
      ['--data-dir', '/a b'],
      ['--exit-when-idle', '30'],
    ],
  );
  assert.equal(leanArgs(['--profile', 'openagenda']), undefined, 'other flags: full CLI');
  assert.equal(leanArgs(['--log-level', 'loud']), undefined, 'a bad value: full CLI, which says what is wrong');
  assert.equal(leanArgs(['--exit-when-idle', 'soon']), undefined);
  assert.equal(leanArgs(['--data-dir']), undefined);
  assert.equal(leanArgs(['--in-process']), undefined);
});

test('a line that is not JSON, or over 4 MiB, is answered here; nothing reaches a companion', { timeout: 10_000 }, async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let connects = 0;
  const lines: string[] = [];
  stdout.on('data', (d: Buffer) => lines.push(...d.toString('utf8').trim().split('\n')));
  const done = runForwarder({
    stdin,
    stdout,
    log: () => {},
    connect: async () => {
      connects++;
      throw new Error('not in this test');
    },
  });
  stdin.write('this is not json\n');
  stdin.write('x'.repeat(5 * 1024 * 1024) + '\n');
  stdin.write('[1, 2]\n');
  stdin.end();
  await done;
  const answers = lines.map((l) => JSON.parse(l) as { id: null; error: { code: number; message: string } });
  assert.deepEqual(
    answers.map((a) => a.error.code),
    [-32700, -32600, -32600],
  );
  assert.match(answers[1]!.error.message, /5\.0 MiB is over the 4\.0 MiB limit/);
  assert.equal(connects, 0);
});
