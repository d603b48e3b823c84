// Whether an API has what it needs to send its key, in one word a person can
// act on: set (with where it is and its fingerprint), missing, not needed
// (the API sends no key), or unknown (the keychain cannot be read here). The
// APIs screen and the Overview say the same thing. Every API may run with a
// key from its own environment variable (AIRLOCK_KEY_<API>), and the primary
// (the one the command named) with AIRLOCK_API_KEY too: the API's view, or
// the status, names the variable.
import type { CredentialStateView, Status } from '../../../../contract/status.ts';

export interface StoredKey {
  profile: string;
  fingerprint: string;
  source: 'keychain' | 'file';
}

export type KeyState =
  { kind: 'not-needed'; stored?: StoredKey } | { kind: 'set'; fingerprint: string; from: string } | { kind: 'missing' } | { kind: 'unknown' };

/** "the AIRLOCK_KEY_GITHUB environment variable". */
export function envWords(credential: Pick<CredentialStateView, 'env'>): string {
  return `the ${credential.env ?? 'AIRLOCK_API_KEY'} environment variable`;
}

export function keyStateOf(
  api: { name: string; auth?: string | undefined; credential?: CredentialStateView | undefined },
  keys: readonly StoredKey[] | undefined,
  status: Status | undefined,
): KeyState {
  const stored = keys?.find((k) => k.profile === api.name);
  if (api.auth === 'none') return stored ? { kind: 'not-needed', stored } : { kind: 'not-needed' };
  if (stored) return { kind: 'set', fingerprint: stored.fingerprint, from: stored.source === 'file' ? 'the plaintext key file' : 'the OS keychain' };
  const inUse = api.credential ?? (status && status.profile === api.name ? status.credential : undefined);
  if (inUse?.source === 'env') return { kind: 'set', fingerprint: inUse.fingerprint ?? '', from: envWords(inUse) };
  if (status && !status.secretStore.available) return { kind: 'unknown' };
  return { kind: 'missing' };
}
