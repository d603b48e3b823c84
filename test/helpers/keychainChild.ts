// Run by test/keychain/keychain.test.ts in a child process whose
// environment reaches no Secret Service (no or a dead D-Bus session bus):
// drives the real keychain store on @napi-rs/keyring and prints what it saw as
// one JSON line. Argument: the keychain service name. The canary key comes in
// AIRLOCK_TEST_CANARY, the env fallback in AIRLOCK_API_KEY.
import { createKeychainStore } from '../../main/core/secrets/keychainStore.ts';
import { resolveCredential } from '../../main/core/secrets/resolveCredential.ts';

const service = process.argv[2] ?? 'Airlock-test';
const canary = process.env.AIRLOCK_TEST_CANARY ?? '';

const outcome = async (run: () => Promise<unknown>) => {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const e = error as { name?: string; kind?: string; message?: string; hint?: string; line?: string; stack?: string };
    return { ok: false, name: e.name, kind: e.kind, message: e.message, hint: e.hint, line: e.line, stack: e.stack };
  }
};

const store = createKeychainStore({ service });
const result = {
  probe: await store.probe(),
  get: await outcome(() => store.get('alpha')),
  set: await outcome(() => store.set('alpha', canary)),
  delete: await outcome(() => store.delete('alpha')),
  list: await outcome(() => store.list()),
  resolved: await outcome(() => resolveCredential({ store, profile: 'alpha', env: process.env, primary: true })),
};
process.stdout.write(JSON.stringify(result) + '\n');
