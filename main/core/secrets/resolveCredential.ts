// Which API key a profile runs with: the one saved for it in the secret store,
// else its own environment variable, AIRLOCK_KEY_<API> (apiKeyEnv: read for
// every API served), else — for the API the command named (--profile,
// --spec) only — AIRLOCK_API_KEY. The environment is a key the person handed
// over explicitly, so it still works when the keychain is down: the store's
// error is then not thrown but returned as `storeUnavailable`, for the caller
// to log. With neither a working store nor a variable for this API the
// store's explicit error is thrown; nothing is ever read from anywhere else.
import type { SecretStore, SecretStoreKind } from './secretStore.ts';
import { SecretStoreUnavailableError } from './secretStore.ts';

/** The variable only the API the command named (--profile, --spec) reads. */
export const API_KEY_ENV = 'AIRLOCK_API_KEY';

/**
 * The environment variable an API's key may be given in, read for every API served: `AIRLOCK_KEY_` and the
 * profile's name in capitals, every character outside A–Z and 0–9 as `_` (`my-api` → `AIRLOCK_KEY_MY_API`).
 */
export function apiKeyEnv(profile: string): string {
  return `AIRLOCK_KEY_${profile.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The variables an API reads, in order: its own, then (the primary only) AIRLOCK_API_KEY. */
export function keyEnvsOf(profile: string, primary: boolean): string[] {
  return primary ? [apiKeyEnv(profile), API_KEY_ENV] : [apiKeyEnv(profile)];
}

export interface ResolvedCredential {
  secret: string;
  /** Where the key came from: the store's kind, or the environment. */
  source: SecretStoreKind | 'env';
  /** The variable it came from, when the source is the environment. */
  env?: string;
  /** Set when the store could not be used and the key came from the environment: the store's error line, to log. */
  storeUnavailable?: string;
}

export interface ResolveCredentialOptions {
  store: SecretStore;
  profile: string;
  env: Record<string, string | undefined>;
  /** The API the command named: it alone may fall back to AIRLOCK_API_KEY. */
  primary: boolean;
}

export async function resolveCredential({ store, profile, env, primary }: ResolveCredentialOptions): Promise<ResolvedCredential | undefined> {
  const name = keyEnvsOf(profile, primary).find((n) => (env[n] ?? '').length > 0);
  const envKey = name !== undefined ? { secret: env[name]!, source: 'env' as const, env: name } : undefined;
  let stored: string | undefined;
  try {
    stored = await store.get(profile);
  } catch (error) {
    if (error instanceof SecretStoreUnavailableError && envKey !== undefined) {
      return { ...envKey, storeUnavailable: error.line };
    }
    throw error;
  }
  if (stored !== undefined) return { secret: stored, source: store.kind };
  return envKey;
}
