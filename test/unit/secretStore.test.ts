// The memory store, fingerprints, the profile-name rule and the precedence
// of resolveCredential (store, then the API's own AIRLOCK_KEY_<API>, then —
// the API the command named only — AIRLOCK_API_KEY; an unavailable store
// does not block an explicit env key, and is reported).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createMemoryStore } from '../../main/core/secrets/memoryStore.ts';
import { createFileStore } from '../../main/core/secrets/fileStore.ts';
import { createKeychainStore, type KeychainBackend } from '../../main/core/secrets/keychainStore.ts';
import { fingerprint } from '../../main/core/secrets/fingerprint.ts';
import { apiKeyEnv, resolveCredential } from '../../main/core/secrets/resolveCredential.ts';
import { PROFILE_ACCOUNT, SERVICE_NAME, SecretStoreUnavailableError } from '../../main/core/secrets/secretStore.ts';
import { PROFILE_NAME } from '../../main/core/profiles/profileStore.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';

const CANARY = 'sk-canary-0d9c8b7a6f5e';

test('the service is "Airlock" and accounts follow the profile-name rule', () => {
  assert.equal(SERVICE_NAME, 'Airlock');
  assert.equal(PROFILE_ACCOUNT.source, PROFILE_NAME.source);
  assert.equal(PROFILE_ACCOUNT.flags, PROFILE_NAME.flags);
});

test('memory store: round trip, sorted list, delete', async () => {
  const store = createMemoryStore({ entries: { zeta: 'z-key' } });
  assert.equal(store.kind, 'memory');
  assert.deepEqual(await store.probe(), { available: true, detail: 'in memory (1 key, not persisted)' });
  await store.set('alpha', CANARY);
  assert.equal(await store.get('alpha'), CANARY);
  assert.equal(await store.get('missing'), undefined);
  assert.deepEqual(await store.list(), ['alpha', 'zeta']);
  assert.equal(await store.delete('alpha'), true);
  assert.equal(await store.delete('alpha'), false);
  assert.deepEqual(await store.list(), ['zeta']);
  await assert.rejects(store.get('No Such Name'), (e: unknown) => e instanceof AirlockError && e.kind === 'usage');
  await assert.rejects(store.set('alpha', ''), (e: unknown) => e instanceof AirlockError && e.kind === 'usage');
});

test('memory store can play an unavailable store: every method throws the explicit error', async () => {
  const store = createMemoryStore({ unavailable: 'switched off for the test' });
  assert.deepEqual(await store.probe(), { available: false, reason: 'switched off for the test' });
  const explicit = (e: unknown) =>
    e instanceof SecretStoreUnavailableError && e.kind === 'unavailable' && e.message === 'memory store unavailable: switched off for the test';
  await assert.rejects(store.get('alpha'), explicit);
  await assert.rejects(store.set('alpha', CANARY), explicit);
  await assert.rejects(store.delete('alpha'), explicit);
  await assert.rejects(store.list(), explicit);
});

test('fingerprint: sha256: + 12 hex digits of SHA-256, stable, distinct, without the key', () => {
  assert.equal(fingerprint('abc'), 'sha256:ba7816bf8f01');
  const fp = fingerprint(CANARY);
  assert.match(fp, /^sha256:[0-9a-f]{12}$/);
  assert.equal(fp, 'sha256:' + createHash('sha256').update(CANARY).digest('hex').slice(0, 12));
  assert.equal(fingerprint(CANARY), fp);
  assert.notEqual(fingerprint(CANARY + 'x'), fp);
  assert.ok(!fp.includes(CANARY) && !fp.includes(CANARY.slice(3, 15)));
  assert.equal(fingerprint('é'), 'sha256:' + createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex').slice(0, 12));
});

test('resolveCredential: the stored key wins over AIRLOCK_API_KEY', async () => {
  const store = createMemoryStore({ entries: { alpha: CANARY } });
  assert.deepEqual(await resolveCredential({ store, profile: 'alpha', env: { AIRLOCK_API_KEY: 'env-key' }, primary: true }), {
    secret: CANARY,
    source: 'memory',
  });
});

test('resolveCredential: AIRLOCK_API_KEY when the profile has no key; undefined when neither', async () => {
  const store = createMemoryStore({ entries: { alpha: CANARY } });
  assert.deepEqual(await resolveCredential({ store, profile: 'beta', env: { AIRLOCK_API_KEY: 'env-key' }, primary: true }), {
    secret: 'env-key',
    source: 'env',
    env: 'AIRLOCK_API_KEY',
  });
  assert.equal(await resolveCredential({ store, profile: 'beta', env: {}, primary: true }), undefined);
  assert.equal(await resolveCredential({ store, profile: 'beta', env: { AIRLOCK_API_KEY: '' }, primary: true }), undefined);
});

test('resolveCredential: an unavailable store yields AIRLOCK_API_KEY and says why, or throws without it', async () => {
  const store = createMemoryStore({ unavailable: 'no keychain here' });
  const r = await resolveCredential({ store, profile: 'alpha', env: { AIRLOCK_API_KEY: 'env-key' }, primary: true });
  assert.deepEqual(r, {
    secret: 'env-key',
    source: 'env',
    env: 'AIRLOCK_API_KEY',
    storeUnavailable: 'memory store unavailable: no keychain here (a test store made unavailable on purpose)',
  });
  await assert.rejects(resolveCredential({ store, profile: 'alpha', env: {}, primary: true }), SecretStoreUnavailableError);
  await assert.rejects(resolveCredential({ store, profile: 'alpha', env: { AIRLOCK_API_KEY: '' }, primary: true }), SecretStoreUnavailableError);
});

test('resolveCredential: a bad profile name is not papered over by AIRLOCK_API_KEY', async () => {
  const store = createMemoryStore();
  await assert.rejects(
    resolveCredential({ store, profile: '../x', env: { AIRLOCK_API_KEY: 'env-key' }, primary: true }),
    (e: unknown) => e instanceof AirlockError && e.kind === 'usage',
  );
});

test('resolveCredential reports the source by store kind: file and keychain', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = createFileStore({ path: join(dir, 'keys.json') });
  await file.set('alpha', CANARY);
  assert.deepEqual(await resolveCredential({ store: file, profile: 'alpha', env: {}, primary: true }), { secret: CANARY, source: 'file' });

  const entries = new Map<string, string>();
  const backend: KeychainBackend = {
    set: async (s, a, v) => void entries.set(`${s}/${a}`, v),
    get: async (s, a) => entries.get(`${s}/${a}`) ?? null,
    delete: async (s, a) => entries.delete(`${s}/${a}`),
    accounts: async (s) => [...entries.keys()].filter((k) => k.startsWith(s + '/')).map((k) => k.slice(s.length + 1)),
  };
  const keychain = createKeychainStore({ backend });
  await keychain.set('alpha', CANARY);
  assert.deepEqual(await resolveCredential({ store: keychain, profile: 'alpha', env: { AIRLOCK_API_KEY: 'env-key' }, primary: true }), {
    secret: CANARY,
    source: 'keychain',
  });
});

test('apiKeyEnv: AIRLOCK_KEY_ and the profile name in capitals, every other character as _', () => {
  assert.equal(apiKeyEnv('my-api'), 'AIRLOCK_KEY_MY_API');
  assert.equal(apiKeyEnv('github'), 'AIRLOCK_KEY_GITHUB');
  assert.equal(apiKeyEnv('do_local2'), 'AIRLOCK_KEY_DO_LOCAL2');
});

test("resolveCredential: the store's key, else the API's own AIRLOCK_KEY_<API>, else (the primary only) AIRLOCK_API_KEY", async () => {
  const store = createMemoryStore({ entries: { stored: CANARY } });
  const env = { AIRLOCK_KEY_STORED: 'own-stored', AIRLOCK_KEY_MY_API: 'own-key', AIRLOCK_API_KEY: 'shared-key' };
  for (const primary of [true, false]) {
    // The stored key wins over both variables.
    assert.deepEqual(await resolveCredential({ store, profile: 'stored', env, primary }), { secret: CANARY, source: 'memory' });
    // The API's own variable wins over AIRLOCK_API_KEY, for the primary and for any other API.
    assert.deepEqual(await resolveCredential({ store, profile: 'my-api', env, primary }), { secret: 'own-key', source: 'env', env: 'AIRLOCK_KEY_MY_API' });
  }
  // AIRLOCK_API_KEY reaches the primary only; another API's variable never does.
  const shared = { AIRLOCK_API_KEY: 'shared-key', AIRLOCK_KEY_OTHER: 'other-key', AIRLOCK_KEY_MY_API: '' };
  assert.deepEqual(await resolveCredential({ store, profile: 'my-api', env: shared, primary: true }), {
    secret: 'shared-key',
    source: 'env',
    env: 'AIRLOCK_API_KEY',
  });
  assert.equal(await resolveCredential({ store, profile: 'my-api', env: shared, primary: false }), undefined);
});

test('resolveCredential: with the store down, an API that is not the primary runs with its own variable, and says why', async () => {
  const store = createMemoryStore({ unavailable: 'no keychain here' });
  assert.deepEqual(
    await resolveCredential({ store, profile: 'second', env: { AIRLOCK_KEY_SECOND: 'own-key', AIRLOCK_API_KEY: 'shared-key' }, primary: false }),
    {
      secret: 'own-key',
      source: 'env',
      env: 'AIRLOCK_KEY_SECOND',
      storeUnavailable: 'memory store unavailable: no keychain here (a test store made unavailable on purpose)',
    },
  );
  // AIRLOCK_API_KEY does not reach it: the store's explicit error, as before.
  await assert.rejects(resolveCredential({ store, profile: 'second', env: { AIRLOCK_API_KEY: 'shared-key' }, primary: false }), SecretStoreUnavailableError);
});
