// HTTP clients' own tokens: only a hash is kept, a token is found by its
// client, a scope is kept with it, a name is one client's, a revoke counts
// for a store already open (another process's change is read), and a broken
// file says where and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openClientTokens } from '../../main/core/http/clientTokens.ts';
import { tempDir } from '../helpers/paths.ts';

test('a token is kept as a hash, found by its client with its scope, and shown by fingerprint only', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'client-tokens.json');
  const store = openClientTokens(file, () => new Date('2026-12-03T00:00:00Z'));
  const { token, view } = store.create('ci runner', ['github', 'github']);
  assert.match(token, /^alc_[\w-]{43}$/);
  assert.deepEqual(view.scope, ['github']);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes(token), 'the token itself is never written');
  if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(store.match(token), view);
  assert.equal(store.match(`${token}x`), undefined);
  assert.equal(store.match(''), undefined);
  assert.deepEqual(store.list(), [view]);
  assert.ok(!JSON.stringify(store.list()).includes(token));
});

test("a name is one client's; a revoke by another store (the CLI beside the companion) counts at once", (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'client-tokens.json');
  const companion = openClientTokens(file);
  const cli = openClientTokens(file);
  const { token } = cli.create('laptop');
  assert.ok(companion.match(token), 'made by the CLI, known to the companion');
  assert.throws(() => cli.create('laptop'), /exists already/);
  assert.throws(() => cli.create('bad/name'), /letters, digits/);
  assert.equal(cli.revoke('nobody'), false);
  assert.equal(cli.revoke('laptop'), true);
  assert.equal(companion.match(token), undefined, 'revoked: refused at the next request');
});

test('a broken token file is an error that names it and says what to do', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'client-tokens.json');
  writeFileSync(file, '{"version":1,"tokens":[{"id":"x"}]}');
  assert.throws(
    () => openClientTokens(file).list(),
    (e: Error) => e.message.includes(file) && /not a client token file/.test(e.message),
  );
  writeFileSync(file, 'not json');
  assert.throws(() => openClientTokens(file).match('alc_x'), /is not JSON/);
});
