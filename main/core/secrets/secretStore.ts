// The contract every place that keeps API keys fulfils: the OS keychain (the
// default), an explicitly opted-in plaintext file (headless servers) and
// memory (tests). One key per profile: service "Airlock", account = the
// profile name.
//
// Guarantees shared by every store:
// - A store that cannot be used says so: probe() reports why, and every other
//   method throws SecretStoreUnavailableError (an AirlockError of kind
//   'config' whose message starts "<store> unavailable:"). Nothing falls back
//   to another store behind the caller's back.
// - No error text built here or in a store ever contains a secret; messages
//   name the profile and the store only.
import { AirlockError } from '../util/errors.ts';
import { PROFILE_NAME } from '../profiles/profile.ts';

export const SERVICE_NAME = 'Airlock';

export type SecretStoreKind = 'keychain' | 'file' | 'memory';

export type ProbeResult = { available: true; detail: string } | { available: false; reason: string };

export interface SecretStore {
  readonly kind: SecretStoreKind;
  /** Where the keys are, when that is a path (the file store's file). */
  readonly location?: string;
  /** Checks the store works end to end (keychain: writes, reads back and deletes a probe entry). */
  probe(): Promise<ProbeResult>;
  /** The profile's key, or undefined when it has none. */
  get(profile: string): Promise<string | undefined>;
  set(profile: string, secret: string): Promise<void>;
  /** True when a key was removed, false when the profile had none. */
  delete(profile: string): Promise<boolean>;
  /** Names of the profiles that have a key, sorted. Never the keys themselves. */
  list(): Promise<string[]>;
}

const STORE_LABEL: Record<SecretStoreKind, string> = { keychain: 'keychain', file: 'file store', memory: 'memory store' };

/** The one error an unusable store throws; `reason` says what is wrong, `hint` what to do. */
export class SecretStoreUnavailableError extends AirlockError {
  readonly store: SecretStoreKind;
  readonly reason: string;

  constructor(store: SecretStoreKind, reason: string, hint: string | undefined) {
    super('unavailable', `${STORE_LABEL[store]} unavailable: ${reason}`, hint === undefined ? {} : { hint });
    this.name = 'SecretStoreUnavailableError';
    this.store = store;
    this.reason = reason;
  }
}

// Keychain accounts are profile names (an API's key), or an MCP server's
// secret: `mcp-server:<server>:<VARIABLE>` (upstream/serverEntry.ts). Accounts
// that match neither are never listed, which is what keeps the keychain's
// probe entries out of list().
export const PROFILE_ACCOUNT = PROFILE_NAME;
export const SERVER_SECRET_ACCOUNT = /^mcp-server:[a-z0-9][a-z0-9_-]{0,29}:[A-Za-z0-9_-]{1,128}$/;

export function isAccount(account: string): boolean {
  return PROFILE_ACCOUNT.test(account) || SERVER_SECRET_ACCOUNT.test(account);
}

export function assertProfileName(profile: string): void {
  if (typeof profile !== 'string' || !isAccount(profile)) {
    const shown = typeof profile === 'string' && profile.length <= 40 ? `'${profile}'` : 'that';
    throw new AirlockError('usage', `${shown} is not a profile name (lowercase letters, digits, - and _, at most 40)`);
  }
}

/** Longest key accepted; real API keys and tokens are far shorter. */
export const MAX_SECRET_LENGTH = 8192;

/** Rejects what cannot be an API key. The message never quotes the value. */
export function assertSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length === 0) throw new AirlockError('usage', 'the key is empty');
  if (secret.trim().length === 0) throw new AirlockError('usage', 'the key is only whitespace');
  if (/[\r\n\0]/.test(secret)) throw new AirlockError('usage', 'the key spans several lines or holds a NUL character', { hint: 'an API key is one line' });
  if (secret.length > MAX_SECRET_LENGTH) throw new AirlockError('usage', `the key is longer than ${MAX_SECRET_LENGTH} characters`);
}

/** Removes every occurrence of the given secrets from a text that is about to become an error message. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}
