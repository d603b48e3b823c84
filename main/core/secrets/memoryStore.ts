// A secret store held in a Map, for tests and for callers that need a store
// shape without persistence. It can also play an unavailable store
// (`unavailable: '<reason>'`), so the code paths that must refuse, or fall
// back to AIRLOCK_API_KEY, can be tested without a broken keychain.
import { type ProbeResult, type SecretStore, SecretStoreUnavailableError, assertProfileName, assertSecret } from './secretStore.ts';

export interface MemoryStoreOptions {
  /** Initial keys by profile name. */
  entries?: Record<string, string>;
  /** When set, the store behaves as unavailable for this reason. */
  unavailable?: string;
}

export function createMemoryStore(options: MemoryStoreOptions = {}): SecretStore {
  const keys = new Map<string, string>();
  for (const [profile, secret] of Object.entries(options.entries ?? {})) {
    assertProfileName(profile);
    assertSecret(secret);
    keys.set(profile, secret);
  }
  const ready = (): void => {
    if (options.unavailable !== undefined) throw new SecretStoreUnavailableError('memory', options.unavailable, 'a test store made unavailable on purpose');
  };
  return {
    kind: 'memory',
    async probe(): Promise<ProbeResult> {
      if (options.unavailable !== undefined) return { available: false, reason: options.unavailable };
      return { available: true, detail: `in memory (${keys.size} key${keys.size === 1 ? '' : 's'}, not persisted)` };
    },
    async get(profile) {
      assertProfileName(profile);
      ready();
      return keys.get(profile);
    },
    async set(profile, secret) {
      assertProfileName(profile);
      assertSecret(secret);
      ready();
      keys.set(profile, secret);
    },
    async delete(profile) {
      assertProfileName(profile);
      ready();
      return keys.delete(profile);
    },
    async list() {
      ready();
      return [...keys.keys()].sort();
    },
  };
}
