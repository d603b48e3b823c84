// The API key the gate injects: resolved from the secret store (else the
// API's own AIRLOCK_KEY_<API>, else — the API the command named only —
// AIRLOCK_API_KEY), cached for a few seconds, added to the redactor as soon
// as it is known, and described without ever being shown (its source and
// fingerprint). The store's availability is probed once at start and warned
// about once, with the way forward.
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { SecretStore } from './secretStore.ts';
import { apiKeyEnv, keyEnvsOf, resolveCredential, type ResolvedCredential } from './resolveCredential.ts';
import { fingerprint } from './fingerprint.ts';
import { describeSecretStore, type SecretStoreView } from './secretStoreView.ts';
import type { AuthScheme } from '../config/auth.ts';

const CREDENTIAL_TTL_MS = 10_000;

export interface CredentialState {
  source: 'keychain' | 'file' | 'env' | 'none';
  fingerprint?: string;
  /** The environment variable the key came from (source `env`): AIRLOCK_KEY_<API> or AIRLOCK_API_KEY. */
  env?: string;
}

export interface Credentials {
  get(): Promise<string | undefined>;
  readonly state: CredentialState;
  readonly keychain: { available: boolean; detail: string };
  /** The store in plain words: where keys live, and what to do when it cannot be used. */
  readonly secretStore: SecretStoreView;
  /** The environment variable this API's key may be given in (AIRLOCK_KEY_<API>), whatever the store. */
  readonly keyEnv: string;
  /** Forget the cached key (it was set or removed): the next call resolves it again. */
  invalidate(): void;
}

export async function createCredentials(options: {
  store: SecretStore;
  profile: string;
  auth: AuthScheme;
  env: Record<string, string | undefined>;
  /** The API the command named (--profile, --spec): it alone may fall back to AIRLOCK_API_KEY. */
  primary: boolean;
  logger: Logger;
  /** Called with each key as soon as it is known (the redactor). */
  onSecret(secret: string): void;
}): Promise<Credentials> {
  const { store, profile, logger } = options;
  const probe = await store.probe();
  const keychain = probe.available ? { available: true, detail: probe.detail } : { available: false, detail: `${store.kind} unavailable: ${probe.reason}` };
  const secretStore = describeSecretStore({ kind: store.kind, probe, ...(store.location ? { location: store.location } : {}) });
  /** The key as last resolved, or why it could not be (a store that is down is not asked again at every call). */
  let cached: { value: ResolvedCredential | undefined; error?: unknown; until: number } | undefined;
  let state: CredentialState = { source: 'none' };
  let warnedUnavailable = false;

  const get = async (): Promise<string | undefined> => {
    if (options.auth.type === 'none') return undefined;
    if (cached && cached.until > Date.now()) {
      if (cached.error !== undefined) throw cached.error;
      return cached.value?.secret;
    }
    let value: ResolvedCredential | undefined;
    try {
      value = await resolveCredential({ store, profile, env: options.env, primary: options.primary });
    } catch (error) {
      cached = { value: undefined, error, until: Date.now() + CREDENTIAL_TTL_MS };
      throw error;
    }
    cached = { value, until: Date.now() + CREDENTIAL_TTL_MS };
    if (value) options.onSecret(value.secret);
    state = value
      ? { source: value.source === 'memory' ? 'keychain' : value.source, fingerprint: fingerprint(value.secret), ...(value.env ? { env: value.env } : {}) }
      : { source: 'none' };
    return value?.secret;
  };

  try {
    await get();
  } catch (error) {
    // The store's error names the way forward; it is said once, here.
    warnedUnavailable = true;
    logger.warn(`API key for profile ${profile}: ${errorMessage(error)} (this API's variable: ${apiKeyEnv(profile)})`);
  }
  if (!keychain.available && !warnedUnavailable && options.auth.type !== 'none') {
    logger.warn(`${keychain.detail}${state.env ? `; profile ${profile} uses ${state.env}` : ''}`);
  } else if (!keychain.available && options.auth.type === 'none') {
    logger.debug(`${keychain.detail} (profile ${profile} sends no key)`);
  }
  if (options.auth.type !== 'none' && state.source === 'none' && !warnedUnavailable) {
    logger.warn(
      `no API key for profile ${profile}: set one with \`airlock keys set ${profile}\` or ${envWords(profile, options.primary)} (calls go out without a key)`,
    );
  }
  return {
    get,
    get state() {
      return state;
    },
    keychain,
    secretStore,
    keyEnv: apiKeyEnv(profile),
    invalidate() {
      cached = undefined;
      void get().catch(() => undefined);
    },
  };
}

/** The variables a profile's key may be given in, in words: "AIRLOCK_KEY_GITHUB" or "AIRLOCK_KEY_GITHUB (or AIRLOCK_API_KEY)". */
function envWords(profile: string, primary: boolean): string {
  const [own, ...more] = keyEnvsOf(profile, primary);
  return more.length > 0 ? `${own} (or ${more.join(', ')})` : own!;
}
