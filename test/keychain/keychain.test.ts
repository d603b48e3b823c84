// The keychain store on the real @napi-rs/keyring.
// - With a Secret Service (CI runs this file through
//   test/helpers/with-keyring.sh, which starts a throw-away gnome-keyring):
//   probe, set/get/list/delete round trip, the entry really is service/account
//   = <service>/<profile> in the keychain, and a canary key never shows up in
//   any error text. Skipped, saying why, when no Secret Service is reachable.
// - Without one (always run, on Linux): child processes with no session bus,
//   and with a dead one, show the probe unavailable with a reason, every
//   method throwing the explicit error, and AIRLOCK_API_KEY still usable.
// Every entry is written under a per-run service name, never "Airlock".
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import { createKeychainStore, PROBE_ACCOUNT_PREFIX } from '../../main/core/secrets/keychainStore.ts';
import { SecretStoreUnavailableError } from '../../main/core/secrets/secretStore.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { NODE, ROOT, tempDir } from '../helpers/paths.ts';

const SERVICE = `Airlock-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const CANARY = `sk-canary-${randomBytes(12).toString('hex')}`;
const PINNED = { linux: { store: 'secret-service' as const } };
const CHILD = join(ROOT, 'test', 'helpers', 'keychainChild.ts');

/** Is a Secret Service usable here? Asked of the library directly, not of the code under test. */
async function detectSecretService(): Promise<{ reachable: true } | { reachable: false; why: string }> {
  const entry = (() => {
    try {
      return new AsyncEntry(SERVICE, 'detect', PINNED);
    } catch (error) {
      return error as Error;
    }
  })();
  if (entry instanceof Error) return { reachable: false, why: entry.message };
  try {
    await entry.setPassword('detect');
    const back = await entry.getPassword();
    await entry.deleteCredential();
    return back === 'detect' ? { reachable: true } : { reachable: false, why: 'a written entry did not read back' };
  } catch (error) {
    return { reachable: false, why: (error as Error).message };
  }
}

const detected = await detectSecretService();
const noSecretService = detected.reachable
  ? false
  : `no Secret Service reachable (${detected.why}); to run this half: test/helpers/with-keyring.sh node --test test/keychain/keychain.test.ts`;

/** Every text an error could show a person or a log. */
const errorTexts = (error: unknown): string => {
  const e = error as AirlockError;
  return [e.message, e.hint ?? '', e.line ?? '', String(e.stack), e.cause === undefined ? '' : String(e.cause)].join('\n');
};

test("in this process, the store's probe agrees with what the library can reach (runs first: a later test locks the throw-away keyring)", async () => {
  const store = createKeychainStore({ service: SERVICE });
  const probe = await store.probe();
  assert.equal(probe.available, detected.reachable, JSON.stringify(probe));
  if (!probe.available) {
    assert.ok(probe.reason.length > 0);
    await assert.rejects(
      store.get('alpha'),
      (e: unknown) => e instanceof SecretStoreUnavailableError && /^keychain unavailable: /.test(e.message) && /Secret Service/.test(e.hint ?? ''),
    );
  }
});

describe('with a Secret Service', { skip: noSecretService }, () => {
  const store = createKeychainStore({ service: SERVICE });

  after(async () => {
    for (const c of await findCredentialsAsync(SERVICE).catch(() => [])) await new AsyncEntry(SERVICE, c.account, PINNED).deleteCredential().catch(() => false);
  });

  test('the probe says available and leaves no probe entry behind', async () => {
    const probe = await store.probe();
    assert.equal(probe.available, true, JSON.stringify(probe));
    assert.match(probe.available ? probe.detail : '', new RegExp(`service "${SERVICE}"`));
    const accounts = (await findCredentialsAsync(SERVICE)).map((c) => c.account);
    assert.ok(!accounts.some((a) => a.startsWith(PROBE_ACCOUNT_PREFIX)), accounts.join(','));
  });

  test('set, get, list, delete round trip through @napi-rs/keyring', async () => {
    await store.set('alpha', CANARY);
    await store.set('beta', 'second-key');
    assert.equal(await store.get('alpha'), CANARY);
    // It is a real keychain entry: service = the store's service, account = the profile.
    assert.equal(await new AsyncEntry(SERVICE, 'alpha', PINNED).getPassword(), CANARY);
    assert.deepEqual(await store.list(), ['alpha', 'beta']);
    await store.set('alpha', 'rotated-key');
    assert.equal(await store.get('alpha'), 'rotated-key');
    assert.equal(await store.delete('alpha'), true);
    assert.equal(await store.delete('alpha'), false);
    assert.equal(await store.get('alpha'), undefined);
    assert.equal(await new AsyncEntry(SERVICE, 'alpha', PINNED).getPassword(), null);
    assert.deepEqual(await store.list(), ['beta']);
    // A second store (another process, in effect) sees the same keychain.
    assert.equal(await createKeychainStore({ service: SERVICE }).get('beta'), 'second-key');
  });

  test('a canary key never appears in any error text', async () => {
    await store.set('alpha', CANARY);
    const errors: unknown[] = [];
    const collect = async (p: Promise<unknown>) => {
      await p.then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => errors.push(e),
      );
    };
    await collect(store.set('Not A Profile', CANARY));
    await collect(store.set('alpha', `${CANARY}\n`));
    await collect(store.set('alpha', `${CANARY}\r\nsecond line`));

    // On the throw-away keyring only: lock it, so the library itself fails.
    if (process.env.AIRLOCK_TEST_KEYRING === 'throwaway') {
      const gdbus = (method: string, ...args: string[]) =>
        execFileSync(
          'gdbus',
          ['call', '--session', '--dest', 'org.freedesktop.secrets', '--object-path', '/org/freedesktop/secrets', '--method', method, ...args],
          { encoding: 'utf8' },
        );
      const collection = /objectpath '([^']+)'/.exec(gdbus('org.freedesktop.Secret.Service.ReadAlias', 'default'))?.[1];
      assert.ok(collection && collection !== '/', 'the throw-away keyring has a default collection');
      gdbus('org.freedesktop.Secret.Service.Lock', `[objectpath '${collection}']`);
      const locked = createKeychainStore({ service: SERVICE });
      const probe = await locked.probe();
      assert.equal(probe.available, false);
      assert.match(probe.available ? '' : probe.reason, /locked/);
      const calls = [
        () => locked.get('alpha'),
        () => locked.set('alpha', CANARY),
        () => locked.delete('alpha'),
        () => locked.list(),
        () => store.set('alpha', CANARY),
        () => store.get('alpha'),
        () => store.list(),
      ];
      for (const call of calls) {
        await call().then(
          () => assert.fail('a locked keyring must not answer'),
          (e: unknown) => {
            assert.ok(e instanceof SecretStoreUnavailableError, String(e));
            assert.match(e.message, /^keychain unavailable: /);
            errors.push(e);
          },
        );
      }
    }
    assert.ok(errors.length >= 3);
    for (const e of errors) {
      assert.ok(e instanceof AirlockError, String(e));
      assert.ok(!errorTexts(e).includes(CANARY), errorTexts(e));
    }
  });
});

describe('without a Secret Service', { skip: process.platform !== 'linux' && 'a keychain cannot be switched off on this platform' }, () => {
  const runChild = (env: Record<string, string | undefined>) => {
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) childEnv[k] = v;
    const r = spawnSync(NODE, [CHILD, SERVICE], { cwd: ROOT, env: childEnv, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, any>;
  };

  const checkUnavailable = (seen: Record<string, any>, reason: RegExp) => {
    assert.equal(seen.probe.available, false, JSON.stringify(seen.probe));
    assert.match(seen.probe.reason, reason);
    for (const op of ['get', 'set', 'delete', 'list']) {
      const o = seen[op];
      assert.equal(o.ok, false, `${op} must throw`);
      assert.equal(o.name, 'SecretStoreUnavailableError', op);
      assert.equal(o.kind, 'unavailable', op);
      assert.match(o.message, /^keychain unavailable: \S/, op);
      assert.match(o.hint, /start a Secret Service .* and unlock it/, op);
      assert.match(o.hint, /--secret-store file/, op);
      for (const text of [o.message, o.hint, o.line, o.stack]) assert.ok(!String(text).includes(CANARY), `${op} leaks the canary`);
    }
    // AIRLOCK_API_KEY still works, and the caller is told the keychain is down.
    assert.equal(seen.resolved.ok, true);
    assert.equal(seen.resolved.value.source, 'env');
    assert.equal(seen.resolved.value.secret, 'env-key-for-test');
    assert.match(seen.resolved.value.storeUnavailable, /^keychain unavailable: /);
  };

  test('no session bus: the probe says why, every method throws the explicit error', (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const seen = runChild({ DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: dir, AIRLOCK_TEST_CANARY: CANARY, AIRLOCK_API_KEY: 'env-key-for-test' });
    checkUnavailable(seen, /DBUS_SESSION_BUS_ADDRESS is not set/);
  });

  test('a dead session bus: the same, with the connection error as the reason', (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const seen = runChild({
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}`,
      XDG_RUNTIME_DIR: dir,
      AIRLOCK_TEST_CANARY: CANARY,
      AIRLOCK_API_KEY: 'env-key-for-test',
    });
    checkUnavailable(seen, /writing a probe entry failed: .*no-bus/);
  });
});
