// The small helpers the core and the renderer share: a JSON object told from
// other values; a word quoted for a shell only when it needs to be, so a
// command a person copies runs as shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { isRecord, shellQuote } from '../../contract/values.ts';

test('isRecord: an object, not null, an array or a scalar', () => {
  assert.deepEqual([{}, { a: 1 }, null, [], 'x', 1, undefined].map(isRecord), [true, true, false, false, false, false, false]);
});

test('shellQuote: plain words as they are; anything else one word for the shell, whatever it holds', () => {
  assert.equal(shellQuote('/home/me/.config/airlock/keys.json'), '/home/me/.config/airlock/keys.json');
  for (const word of ["it's here", 'a b', '$(rm -rf /)', '`x`', 'semi;colon', "'", '']) {
    assert.notEqual(shellQuote(word), word === '' ? '' : word);
    assert.equal(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8', timeout: 10_000 }), word);
  }
});
