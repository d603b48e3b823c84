// Which API key a profile runs with: the one saved for it in the secret store,
// else AIRLOCK_API_KEY. The environment is a key the person handed over
// explicitly, so it still works when the keychain is down: the store's error
// is then not thrown but returned as `storeUnavailable`, for the caller to
// log. With neither a working store nor AIRLOCK_API_KEY the store's explicit
// error is thrown; nothing is ever read from anywhere else.
import type { SecretStore, SecretStoreKind } from './secretStore.ts';
import { SecretStoreUnavailableError } from './secretStore.ts';

export const API_KEY_ENV = 'AIRLOCK_API_KEY';

export interface ResolvedCredential {
  secret: string;
  /** Where the key came from: the store's kind, or the environment. */
  source: SecretStoreKind | 'env';
  /** Set when the store could not be used and the key came from AIRLOCK_API_KEY: the store's error line, to log. */
  storeUnavailable?: string;
}

export interface ResolveCredentialOptions {
  store: SecretStore;
  profile: string;
  env: Record<string, string | undefined>;
}

export async function resolveCredential({ store, profile, env }: ResolveCredentialOptions): Promise<ResolvedCredential | undefined> {
  const fromEnv = env[API_KEY_ENV];
  const envKey = fromEnv !== undefined && fromEnv.length > 0 ? fromEnv : undefined;
  let stored: string | undefined;
  try {
    stored = await store.get(profile);
  } catch (error) {
    if (error instanceof SecretStoreUnavailableError && envKey !== undefined) {
      return { secret: envKey, source: 'env', storeUnavailable: error.line };
    }
    throw error;
  }
  if (stored !== undefined) return { secret: stored, source: store.kind };
  if (envKey !== undefined) return { secret: envKey, source: 'env' };
  return undefined;
}
