// Whether an API has what it needs to send its key, in one word a person can
// act on: set (with where it is and its fingerprint), missing, not needed
// (the API sends no key), or unknown (the keychain cannot be read here). The
// APIs screen and the Overview say the same thing. Only the primary API (the
// one the command named) may run with AIRLOCK_API_KEY: the status says so.
import type { Status } from '../../../../contract/status.ts';

export interface StoredKey {
  profile: string;
  fingerprint: string;
  source: 'keychain' | 'file';
}

export type KeyState =
  { kind: 'not-needed'; stored?: StoredKey } | { kind: 'set'; fingerprint: string; from: string } | { kind: 'missing' } | { kind: 'unknown' };

export function keyStateOf(api: { name: string; auth?: string | undefined }, keys: readonly StoredKey[] | undefined, status: Status | undefined): KeyState {
  const stored = keys?.find((k) => k.profile === api.name);
  if (api.auth === 'none') return stored ? { kind: 'not-needed', stored } : { kind: 'not-needed' };
  if (stored) return { kind: 'set', fingerprint: stored.fingerprint, from: stored.source === 'file' ? 'the plaintext key file' : 'the OS keychain' };
  if (status && status.profile === api.name && status.credential.source === 'env')
    return { kind: 'set', fingerprint: status.credential.fingerprint ?? '', from: 'the AIRLOCK_API_KEY environment variable' };
  if (status && !status.secretStore.available) return { kind: 'unknown' };
  return { kind: 'missing' };
}
