// The secret store in plain words: a keychain that fails the way a real one
// does (no D-Bus session, no Secret Service, locked, no default keyring) is
// described by what is wrong and what to do, never by the library's raw
// message; the file store always carries its plaintext warning; and what the
// companion's status says comes from the same words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeychainStore, type KeychainBackend } from '../../main/core/secrets/keychainStore.ts';
import { createFileStore } from '../../main/core/secrets/fileStore.ts';
import { createMemoryStore } from '../../main/core/secrets/memoryStore.ts';
import { describeSecretStore, plainKeychainProblem } from '../../main/core/secrets/secretStoreView.ts';
import { createCredentials } from '../../main/core/secrets/credentials.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { tempDir } from '../helpers/paths.ts';
import { join } from 'node:path';

/** A keychain whose every write fails with the given library message. */
function failingBackend(message: string): KeychainBackend {
  return {
    set: async () => {
      throw new Error(message);
    },
    get: async () => null,
    delete: async () => false,
    accounts: async () => [],
  };
}

const RAW = /DBus error|dbus-daemon|Platform failure|org\.freedesktop|DBUS_SESSION_BUS_ADDRESS|IsLocked|no result found/;

const cases: { name: string; message: string; env: Record<string, string>; problem: RegExp; action: RegExp }[] = [
  {
    name: 'no D-Bus session (SSH, container)',
    message: 'Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead',
    env: {},
    problem: /no desktop session here .* no keychain to keep keys in/,
    action: /apt install gnome-keyring dbus-user-session libsecret-1-0.*restart Airlock/,
  },
  {
    name: 'no Secret Service on the bus',
    message: 'Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files',
    env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' },
    problem: /No keychain service \(such as GNOME Keyring or KWallet\) is running/,
    action: /gnome-keyring/,
  },
  {
    name: 'a locked keyring',
    message: 'Platform failure: DBus error: org.freedesktop.Secret.Error.IsLocked: Cannot create an item in a locked collection',
    env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' },
    problem: /keychain is locked/,
    action: /unlock the Login keyring/,
  },
  {
    name: 'no default keyring',
    message: 'Platform failure: Secret Service: no result found',
    env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' },
    problem: /no default keyring/,
    action: /create a keyring and make it the default/,
  },
];

for (const c of cases) {
  test(`a failing keychain in plain words: ${c.name}`, async () => {
    const store = createKeychainStore({ backend: failingBackend(c.message), platform: 'linux', env: c.env });
    const probe = await store.probe();
    assert.equal(probe.available, false);
    const view = describeSecretStore({ kind: store.kind, probe, platform: 'linux' });
    assert.equal(view.available, false);
    assert.equal(view.osKeychain, true);
    assert.equal(view.plaintext, false);
    assert.match(view.where, /Secret Service \(GNOME Keyring/);
    assert.match(view.problem ?? '', c.problem);
    assert.doesNotMatch(view.problem ?? '', RAW, 'the headline is not the library message');
    assert.match(view.action ?? '', c.action);
    assert.doesNotMatch(view.action ?? '', RAW);
    // The other ways in, with the plaintext risk named.
    // A variable every API reads, not AIRLOCK_API_KEY (which reaches only the API the command named).
    assert.match(view.alternatives ?? '', /`AIRLOCK_KEY_<API>`.*`AIRLOCK_KEY_MY_API` for my-api/);
    assert.doesNotMatch(view.alternatives ?? '', /AIRLOCK_API_KEY/);
    assert.match(view.alternatives ?? '', /`--secret-store file` .*plaintext file/);
    // The technical words are kept apart, for support.
    assert.ok(view.detail.includes(c.message.slice(0, 30)), view.detail);
  });
}

test('macOS and Windows say what to do on their own keychain', () => {
  assert.match(plainKeychainProblem('cannot save: User interaction is not allowed', 'darwin').action, /Keychain Access/);
  assert.match(plainKeychainProblem('writing a probe entry failed: something odd', 'win32').problem, /Windows Credential Manager refused a test key/);
  assert.match(plainKeychainProblem('cannot load @napi-rs/keyring: not found', 'linux').problem, /keychain module did not load/);
});

test('a working keychain says where keys live; nothing to fix', async () => {
  const entries = new Map<string, string>();
  const backend: KeychainBackend = {
    set: async (s, a, v) => void entries.set(`${s}/${a}`, v),
    get: async (s, a) => entries.get(`${s}/${a}`) ?? null,
    delete: async (s, a) => entries.delete(`${s}/${a}`),
    accounts: async () => [],
  };
  const store = createKeychainStore({ backend, platform: 'darwin' });
  const view = describeSecretStore({ kind: store.kind, probe: await store.probe(), platform: 'darwin' });
  assert.deepEqual([view.available, view.osKeychain, view.where, view.problem, view.warning], [true, true, 'the macOS Keychain', undefined, undefined]);
});

test('the file store is never described without its plaintext warning', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const path = join(dir, 'secrets.json');
  const store = createFileStore({ path });
  const view = describeSecretStore({ kind: store.kind, probe: await store.probe(), location: store.location });
  assert.equal(view.available, true);
  assert.equal(view.osKeychain, false);
  assert.equal(view.plaintext, true);
  assert.equal(view.where, `a plaintext file, ${path}`);
  assert.match(view.warning ?? '', /plaintext file.*`--secret-store file`.*Anyone who can read that file/);
});

test("the companion's credentials carry the plain words (what status shows)", async () => {
  const logger = createLogger({ level: 'error', sink: () => undefined });
  const store = createKeychainStore({ backend: failingBackend('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled'), env: {} });
  const credentials = await createCredentials({
    store,
    profile: 'custom',
    auth: { type: 'header', name: 'x-api-key' },
    env: {},
    primary: true,
    logger,
    onSecret: () => undefined,
  });
  const view = credentials.secretStore;
  assert.equal(view.available, false);
  assert.ok(view.problem && view.action, 'a problem and what to do');
  assert.doesNotMatch(view.problem, RAW);

  const memory = await createCredentials({
    store: createMemoryStore(),
    profile: 'custom',
    auth: { type: 'none' },
    env: {},
    primary: true,
    logger,
    onSecret: () => undefined,
  });
  assert.equal(memory.secretStore.available, true);
});

test('a key store that is down is asked again after a while, not at every call (each call would wait on it)', async () => {
  const logger = createLogger({ level: 'error', sink: () => undefined });
  let asked = 0;
  const down = {
    ...createMemoryStore(),
    probe: async () => ({ available: false as const, reason: 'no Secret Service' }),
    get: async () => {
      asked++;
      throw new Error('the keychain is down');
    },
  };
  const credentials = await createCredentials({
    store: down,
    profile: 'github',
    auth: { type: 'bearer' },
    env: {},
    primary: true,
    logger,
    onSecret: () => undefined,
  });
  const first = asked;
  for (let i = 0; i < 5; i++) await assert.rejects(credentials.get(), /down/);
  assert.equal(asked, first, 'the failure is remembered, and said again');
  credentials.invalidate();
  await assert.rejects(credentials.get(), /down/);
  assert.ok(asked > first, 'a key set or removed makes it ask again');
});

test("an API's credentials name the variable its key came from, and the log names the variables that reach it", async () => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', sink: (l) => lines.push(l) });
  const down = createMemoryStore({ unavailable: 'no keychain here' });
  const auth = { type: 'header' as const, name: 'x-api-key' };
  const env = { AIRLOCK_KEY_SECOND_API: 'sk-second-0123', AIRLOCK_API_KEY: 'sk-shared-4567' };
  // Not the primary: its own variable, never AIRLOCK_API_KEY.
  const second = await createCredentials({ store: down, profile: 'second-api', auth, env, primary: false, logger, onSecret: () => undefined });
  assert.equal(await second.get(), 'sk-second-0123');
  assert.equal(second.state.source, 'env');
  assert.equal(second.state.env, 'AIRLOCK_KEY_SECOND_API');
  assert.equal(second.keyEnv, 'AIRLOCK_KEY_SECOND_API');
  assert.match(lines.join('\n'), /profile second-api uses AIRLOCK_KEY_SECOND_API/);
  // No variable of its own: the store's error, with the variable that would reach it.
  lines.length = 0;
  const third = await createCredentials({ store: down, profile: 'third', auth, env, primary: false, logger, onSecret: () => undefined });
  assert.equal(third.state.source, 'none');
  await assert.rejects(third.get());
  assert.match(lines.join('\n'), /API key for profile third: .*\(this API's variable: AIRLOCK_KEY_THIRD\)/);
  // The primary still falls back to AIRLOCK_API_KEY.
  const primary = await createCredentials({ store: down, profile: 'third', auth, env, primary: true, logger, onSecret: () => undefined });
  assert.equal(primary.state.env, 'AIRLOCK_API_KEY');
  // A working store with no key: the variables that reach this API, and only those.
  lines.length = 0;
  await createCredentials({ store: createMemoryStore(), profile: 'fourth', auth, env: {}, primary: false, logger, onSecret: () => undefined });
  assert.match(lines.join('\n'), /no API key for profile fourth: set one with `airlock keys set fourth` or AIRLOCK_KEY_FOURTH \(calls go out/);
  lines.length = 0;
  await createCredentials({ store: createMemoryStore(), profile: 'fourth', auth, env: {}, primary: true, logger, onSecret: () => undefined });
  assert.match(lines.join('\n'), /or AIRLOCK_KEY_FOURTH \(or AIRLOCK_API_KEY\) \(calls go out/);
});
