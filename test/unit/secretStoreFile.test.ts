// The opt-in plaintext file store: 0600, atomic replacement, refusal of a
// file others could read (with the fix), and a round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { join } from 'node:path';
import { createFileStore, fileStoreBanner } from '../../main/core/secrets/fileStore.ts';
import { SecretStoreUnavailableError } from '../../main/core/secrets/secretStore.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';

const posix = process.platform !== 'win32';
const CANARY = 'sk-canary-7f3e9a0b5c1d4e2f';

const unavailable = (re: RegExp) => (error: unknown) =>
  error instanceof SecretStoreUnavailableError &&
  error.kind === 'unavailable' &&
  error.store === 'file' &&
  re.test(error.message) &&
  !error.line.includes(CANARY);

test('round trip: set, get, list, overwrite, delete', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = createFileStore({ path: join(dir, 'keys.json') });
  assert.equal(store.kind, 'file');
  assert.equal(await store.get('alpha'), undefined);
  await store.set('alpha', CANARY);
  await store.set('beta', 'second-key');
  assert.equal(await store.get('alpha'), CANARY);
  assert.deepEqual(await store.list(), ['alpha', 'beta']);
  await store.set('alpha', 'rotated');
  assert.equal(await store.get('alpha'), 'rotated');
  assert.equal(await store.delete('alpha'), true);
  assert.equal(await store.delete('alpha'), false);
  assert.equal(await store.get('alpha'), undefined);
  assert.deepEqual(await store.list(), ['beta']);
  // A second store on the same file sees the same keys (it is the file, not memory).
  assert.equal(await createFileStore({ path: join(dir, 'keys.json') }).get('beta'), 'second-key');
});

test('nothing is created until a key is set; the file is 0600 in a 0700 directory', { skip: !posix && 'POSIX modes only' }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const path = join(dir, 'sub', 'keys.json');
  const store = createFileStore({ path });
  const probe = await store.probe();
  assert.equal(probe.available, true);
  assert.match(probe.available ? probe.detail : '', /plaintext file .*keys\.json \(no keys yet, mode 0600\)/);
  assert.deepEqual(await store.list(), []);
  assert.equal(await store.delete('alpha'), false);
  assert.equal(existsSync(join(dir, 'sub')), false);

  const oldMask = process.umask(0); // the widest umask must not widen the file
  t.after(() => process.umask(oldMask));
  await store.set('alpha', CANARY);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'sub')).mode & 0o777, 0o700);
  const body = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(body, { format: 'airlock-keys', version: 1, keys: { alpha: CANARY } });
});

test('writes replace the file atomically: a new file renamed over the old, no temp files left', { skip: !posix && 'inode check is POSIX' }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const path = join(dir, 'keys.json');
  const store = createFileStore({ path });
  await store.set('alpha', 'first-key');
  const before = statSync(path).ino;
  // A reader that opened the file before the write keeps reading the old,
  // complete file: the write never happens in place.
  const fd = openSync(path, 'r');
  t.after(() => closeSync(fd));
  await store.set('beta', 'second-key');
  assert.notEqual(statSync(path).ino, before);
  const buf = Buffer.alloc(4096);
  const old = JSON.parse(buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8'));
  assert.deepEqual(old.keys, { alpha: 'first-key' });
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).keys, { alpha: 'first-key', beta: 'second-key' });
  assert.deepEqual(readdirSync(dir), ['keys.json']);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('concurrent writes in one process are serialised: none is lost', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = createFileStore({ path: join(dir, 'keys.json') });
  const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
  await Promise.all(names.map((n) => store.set(n, `key-${n}`)));
  assert.deepEqual(await store.list(), [...names].sort());
  await Promise.all(names.slice(0, 6).map((n) => store.delete(n)));
  assert.deepEqual(await store.list(), names.slice(6).sort());
});

test('a file with wider permissions is refused by every method, with the chmod that fixes it', { skip: !posix && 'POSIX modes only' }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const path = join(dir, 'keys.json');
  const store = createFileStore({ path });
  await store.set('alpha', CANARY);
  for (const mode of [0o644, 0o640, 0o604, 0o660, 0o666]) {
    chmodSync(path, mode);
    const shown = mode.toString(8).padStart(4, '0');
    const probe = await store.probe();
    assert.equal(probe.available, false);
    assert.match(probe.available ? '' : probe.reason, new RegExp(`has mode ${shown}, wider than 0600`));
    const refused = (error: unknown) => {
      assert.ok(unavailable(new RegExp(`^file store unavailable: .*keys\\.json: has mode ${shown}, wider than 0600`))(error));
      assert.equal((error as AirlockError).hint, `run: chmod 600 ${path}`, 'a path with nothing a shell reads is shown as it is');
      return true;
    };
    await assert.rejects(store.get('alpha'), refused);
    await assert.rejects(store.set('beta', 'other'), refused);
    await assert.rejects(store.delete('alpha'), refused);
    await assert.rejects(store.list(), refused);
  }
  // Refused writes did not touch the file.
  chmodSync(path, 0o600);
  assert.deepEqual(await store.list(), ['alpha']);
  // Narrower than 0600 is fine; the next write restores 0600.
  chmodSync(path, 0o400);
  assert.equal(await store.get('alpha'), CANARY);
  await store.set('beta', 'other');
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('a symbolic link, a directory, a file owned by someone else are refused', { skip: !posix && 'POSIX only' }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const real = join(dir, 'real.json');
  await createFileStore({ path: real }).set('alpha', CANARY);
  const link = join(dir, 'link.json');
  symlinkSync(real, link);
  await assert.rejects(createFileStore({ path: link }).get('alpha'), unavailable(/is a symbolic link/));
  mkdirSync(join(dir, 'adir'));
  await assert.rejects(createFileStore({ path: join(dir, 'adir') }).list(), unavailable(/is not a regular file/));
  if (process.getuid?.() === 0) {
    chownSync(real, 4242, 4242);
    await assert.rejects(createFileStore({ path: real }).get('alpha'), unavailable(/is owned by uid 4242, not by you \(uid 0\)/));
  }
});

test('a corrupt or foreign file is refused without quoting its contents', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const path = join(dir, 'keys.json');
  const store = createFileStore({ path });
  writeFileSync(path, `{"format":"airlock-keys","version":1,"keys":{"alpha":"${CANARY}"`, { mode: 0o600 });
  await assert.rejects(store.get('alpha'), unavailable(/is not valid JSON/));
  const probe = await store.probe();
  assert.equal(probe.available, false);
  assert.ok(!JSON.stringify(probe).includes(CANARY));
  writeFileSync(path, JSON.stringify({ alpha: CANARY }), { mode: 0o600 });
  await assert.rejects(store.list(), unavailable(/is not an Airlock key file/));
  writeFileSync(path, JSON.stringify({ format: 'airlock-keys', version: 1, keys: { 'Not A Profile': CANARY } }), { mode: 0o600 });
  await assert.rejects(store.list(), unavailable(/not a profile name/));
});

test('bad profile names and bad keys are usage errors that never quote the key', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = createFileStore({ path: join(dir, 'keys.json') });
  await assert.rejects(
    store.set('Bad Name', CANARY),
    (e: unknown) => e instanceof AirlockError && e.kind === 'usage' && /not a profile name/.test(e.message) && !e.line.includes(CANARY),
  );
  for (const bad of ['', '   ', `${CANARY}\n`, `${CANARY}\r\nmore`]) {
    await assert.rejects(store.set('alpha', bad), (e: unknown) => e instanceof AirlockError && e.kind === 'usage' && !e.line.includes(CANARY));
  }
  assert.equal(existsSync(join(dir, 'keys.json')), false);
});

test('the banner says plaintext and names the file', () => {
  const banner = fileStoreBanner('/srv/airlock/keys.json');
  assert.match(banner, /PLAINTEXT/);
  assert.match(banner, /\/srv\/airlock\/keys\.json/);
  assert.match(banner, /opted in/);
});
