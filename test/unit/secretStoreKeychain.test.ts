// The keychain store's logic over fake backends: the probe catches the
// library's silent failure modes (a read that answers nothing, a write that is
// not kept, a delete that lies), an unavailable store throws the explicit
// error from every method, and no error text carries a key. The real library
// is exercised in test/keychain/keychain.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeychainStore, keychainHint, PROBE_ACCOUNT_PREFIX, type KeychainBackend } from '../../main/core/secrets/keychainStore.ts';
import { SecretStoreUnavailableError } from '../../main/core/secrets/secretStore.ts';
import { AirlockError } from '../../main/core/util/errors.ts';

const CANARY = 'sk-canary-4b1f0e9d8c7a';

/** A keychain that works, recording the services it was asked about. */
function workingBackend() {
  const entries = new Map<string, string>();
  const services = new Set<string>();
  const key = (s: string, a: string) => `${s}\u0000${a}`;
  const backend: KeychainBackend = {
    async set(s, a, v) {
      services.add(s);
      entries.set(key(s, a), v);
    },
    async get(s, a) {
      services.add(s);
      return entries.get(key(s, a)) ?? null;
    },
    async delete(s, a) {
      services.add(s);
      return entries.delete(key(s, a));
    },
    async accounts(s) {
      services.add(s);
      return [...entries.keys()].filter((k) => k.startsWith(s + '\u0000')).map((k) => k.slice(s.length + 1));
    },
  };
  return { backend, entries, services };
}

const explicit =
  (re: RegExp = /./) =>
  (error: unknown) =>
    error instanceof SecretStoreUnavailableError &&
    error.kind === 'unavailable' &&
    error.store === 'keychain' &&
    error.message.startsWith('keychain unavailable: ') &&
    re.test(error.message) &&
    typeof error.hint === 'string' &&
    error.hint.length > 0 &&
    !error.line.includes(CANARY);

async function allMethodsThrow(store: ReturnType<typeof createKeychainStore>, re: RegExp) {
  await assert.rejects(store.get('alpha'), explicit(re));
  await assert.rejects(store.set('alpha', CANARY), explicit(re));
  await assert.rejects(store.delete('alpha'), explicit(re));
  await assert.rejects(store.list(), explicit(re));
}

test('a working keychain: the probe writes, reads back and deletes its entry; round trip under service "Airlock"', async () => {
  const { backend, entries, services } = workingBackend();
  const store = createKeychainStore({ backend, platform: 'linux', env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' } });
  assert.equal(store.kind, 'keychain');
  const probe = await store.probe();
  assert.equal(probe.available, true);
  assert.match(probe.available ? probe.detail : '', /Secret Service \(service "Airlock"\)/);
  assert.equal(entries.size, 0, 'the probe entry is removed');
  await store.set('alpha', CANARY);
  await store.set('beta', 'other');
  assert.equal(entries.get('Airlock\u0000alpha'), CANARY);
  assert.equal(await store.get('alpha'), CANARY);
  assert.equal(await store.get('gamma'), undefined);
  assert.deepEqual(await store.list(), ['alpha', 'beta']);
  assert.equal(await store.delete('alpha'), true);
  assert.equal(await store.delete('alpha'), false);
  assert.deepEqual(await store.list(), ['beta']);
  assert.deepEqual([...services], ['Airlock']);
});

test('methods probe on first use; list hides probe leftovers and foreign accounts', async () => {
  const { backend, entries } = workingBackend();
  entries.set(`Airlock\u0000${PROBE_ACCOUNT_PREFIX}-1-abc`, 'left over by a crash');
  entries.set('Airlock\u0000Someone Else', 'not ours');
  entries.set('Other\u0000alpha', 'another service');
  const store = createKeychainStore({ backend, service: 'Airlock' });
  await store.set('alpha', CANARY);
  assert.deepEqual(await store.list(), ['alpha']);
});

test('silent failure: a keychain that accepts writes but reads back nothing is unavailable', async () => {
  // What @napi-rs/keyring's default Linux entry does without a Secret Service:
  // writes go elsewhere (or nowhere), reads say null, deletes say false.
  const backend: KeychainBackend = {
    set: async () => undefined,
    get: async () => null,
    delete: async () => false,
    accounts: async () => [],
  };
  const store = createKeychainStore({ backend, platform: 'linux' });
  const probe = await store.probe();
  assert.equal(probe.available, false);
  assert.match(probe.available ? '' : probe.reason, /read back nothing: it does not keep what is written/);
  await allMethodsThrow(store, /read back nothing/);
});

test('silent failure: undefined and a different value are caught too', async () => {
  for (const answer of [undefined, 'something else']) {
    const store = createKeychainStore({ backend: { set: async () => undefined, get: async () => answer, delete: async () => true, accounts: async () => [] } });
    const probe = await store.probe();
    assert.equal(probe.available, false, String(answer));
    await assert.rejects(store.get('alpha'), explicit(/read back (nothing|a different value)/));
  }
});

test('silent failure: a delete that does not delete makes the probe fail', async () => {
  const { backend } = workingBackend();
  const store = createKeychainStore({ backend: { ...backend, delete: async () => true } });
  const probe = await store.probe();
  assert.equal(probe.available, false);
  assert.match(probe.available ? '' : probe.reason, /still there after it was deleted/);
});

test('a throwing keychain is unavailable with the library reason, and on Linux a missing session bus is named', async () => {
  const backend: KeychainBackend = {
    set: async () => {
      throw new Error('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled');
    },
    get: async () => null,
    delete: async () => false,
    accounts: async () => [],
  };
  const store = createKeychainStore({ backend, platform: 'linux', env: {} });
  const probe = await store.probe();
  assert.equal(probe.available, false);
  assert.match(probe.available ? '' : probe.reason, /^DBUS_SESSION_BUS_ADDRESS is not set .*; writing a probe entry failed: Platform failure/);
  await allMethodsThrow(store, /writing a probe entry failed/);
  await assert.rejects(store.get('alpha'), (e: unknown) => e instanceof AirlockError && /Secret Service/.test(e.hint ?? ''));
});

test('a library that cannot load makes the store unavailable, not a crash', async () => {
  const store = createKeychainStore({
    backend: async () => {
      throw new Error('Cannot find native binding');
    },
  });
  const probe = await store.probe();
  assert.deepEqual(probe, { available: false, reason: 'cannot load @napi-rs/keyring: Cannot find native binding' });
  await allMethodsThrow(store, /cannot load @napi-rs\/keyring/);
});

test('the verdict is kept until probe() is called again', async () => {
  const { backend } = workingBackend();
  let locked = true;
  const store = createKeychainStore({
    backend: {
      ...backend,
      set: async (s, a, v) => {
        if (locked) throw new Error('prompt was dismissed');
        return backend.set(s, a, v);
      },
    },
  });
  await assert.rejects(store.get('alpha'), explicit(/locked and could not be unlocked/));
  locked = false;
  await assert.rejects(store.get('alpha'), explicit(), 'still the first verdict');
  assert.equal((await store.probe()).available, true);
  await store.set('alpha', CANARY);
  assert.equal(await store.get('alpha'), CANARY);
});

test('concurrent first calls share one probe', async () => {
  const { backend } = workingBackend();
  let probes = 0;
  const store = createKeychainStore({
    backend: {
      ...backend,
      set: async (s, a, v) => {
        if (a.startsWith(PROBE_ACCOUNT_PREFIX)) probes++;
        return backend.set(s, a, v);
      },
    },
  });
  await Promise.all([store.get('a'), store.get('b'), store.list(), store.probe()]);
  assert.equal(probes, 1);
});

test('set reads the key back: a write that is not kept is an error, not a success', async () => {
  const { backend } = workingBackend();
  const store = createKeychainStore({
    backend: {
      ...backend,
      set: async (s, a, v) => {
        if (a.startsWith(PROBE_ACCOUNT_PREFIX)) return backend.set(s, a, v);
      },
    },
  });
  await assert.rejects(store.set('alpha', CANARY), explicit(/the key of profile 'alpha' was not kept \(read back nothing\)/));
});

test('delete answering false while the key is still there is an error', async () => {
  const { backend } = workingBackend();
  const store = createKeychainStore({ backend: { ...backend, delete: async (s, a) => (a.startsWith(PROBE_ACCOUNT_PREFIX) ? backend.delete(s, a) : false) } });
  await store.set('alpha', CANARY);
  await assert.rejects(
    store.delete('alpha'),
    explicit(/cannot delete the key of profile 'alpha': the keychain reported nothing to delete, but the key is still there/),
  );
});

test('library errors that echo the key are scrubbed before they become error text', async () => {
  const { backend } = workingBackend();
  const store = createKeychainStore({
    backend: {
      ...backend,
      set: async (s, a, v) => {
        if (a.startsWith(PROBE_ACCOUNT_PREFIX)) return backend.set(s, a, v);
        throw new Error(`could not store "${v}" for ${a}`);
      },
    },
  });
  await assert.rejects(store.set('alpha', CANARY), (e: unknown) => {
    assert.ok(explicit(/cannot save the key of profile 'alpha': could not store "\[redacted\]" for alpha/)(e));
    assert.ok(!String((e as Error).stack).includes(CANARY));
    assert.equal((e as Error).cause, undefined);
    return true;
  });
});

test('failures after a good probe are explicit too (the keychain went away)', async () => {
  const { backend } = workingBackend();
  let gone = false;
  const fail = async () => {
    throw new Error('Failed to connect to socket');
  };
  const store = createKeychainStore({
    backend: {
      set: (s, a, v) => (gone ? fail() : backend.set(s, a, v)),
      get: (s, a) => (gone ? fail() : backend.get(s, a)),
      delete: (s, a) => (gone ? fail() : backend.delete(s, a)),
      accounts: (s) => (gone ? fail() : backend.accounts(s)),
    },
  });
  await store.set('alpha', CANARY);
  gone = true;
  await assert.rejects(store.get('alpha'), explicit(/cannot read the key of profile 'alpha': Failed to connect/));
  await assert.rejects(store.set('alpha', CANARY), explicit(/cannot save the key/));
  await assert.rejects(store.delete('alpha'), explicit(/cannot delete the key/));
  await assert.rejects(store.list(), explicit(/cannot list the keys/));
});

test('hints name what to run or unlock on each platform, and never suggest a silent fallback', () => {
  assert.match(keychainHint('linux'), /start a Secret Service .* and unlock it \(Debian\/Ubuntu: `apt install gnome-keyring dbus-user-session libsecret-1-0`/);
  assert.match(keychainHint('darwin'), /unlock the login keychain/);
  assert.match(keychainHint('win32'), /Credential Manager/);
  for (const p of ['linux', 'darwin', 'win32'] as const) {
    // A variable every API reads (AIRLOCK_API_KEY reaches only the API the command named).
    assert.match(keychainHint(p), /AIRLOCK_KEY_<API>/);
    assert.doesNotMatch(keychainHint(p), /AIRLOCK_API_KEY/);
    assert.match(keychainHint(p), /opt in to the plaintext file store with --secret-store file/);
  }
});
