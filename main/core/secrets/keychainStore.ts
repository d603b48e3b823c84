// API keys in the OS keychain (macOS Keychain, Windows Credential Manager, a
// Secret Service such as gnome-keyring or KWallet on Linux) through
// @napi-rs/keyring: maintained, N-API (one prebuilt binary serves every Node
// and Electron version, no per-Electron rebuild), shipped as optional
// per-platform packages with no install script. keytar is archived and is a
// NAN addon that must be rebuilt for each Electron ABI.
//
// The keychain fails silently in ways that would leak or lose keys, so this
// module makes every failure explicit:
// - On Linux the library by default falls back, without a word, from the
//   Secret Service to the kernel keyring (in memory only, gone at reboot),
//   and with no Secret Service reads answer null and deletes answer false as
//   if the profile simply had no key. Entries here are pinned to the Secret
//   Service, so a missing one is an error, never a quiet fallback.
// - probe() writes a random probe entry, reads it back, deletes it and checks
//   it is gone; any step that throws, or answers wrong (nothing, another
//   value, still there), makes the store unavailable with that reason.
// - An unavailable store throws SecretStoreUnavailableError ("keychain
//   unavailable: <reason>", with a hint) from every method; there is no
//   plaintext fallback. set() reads the key back before it reports success.
//   The probe's verdict is kept: call probe() again to retry (after the
//   person unlocked the keyring, say).
// Listing uses the library's findCredentials (a search by service on every
// platform), keeping only the account names; no index file is needed. (It
// fetches each password too, dropped at once; on macOS that read may prompt.)
// Error texts never contain a key: the library's messages are scrubbed of the
// value being written.
import { randomBytes } from 'node:crypto';
import {
  type ProbeResult,
  type SecretStore,
  SERVICE_NAME,
  isAccount,
  SecretStoreUnavailableError,
  assertProfileName,
  assertSecret,
  scrub,
} from './secretStore.ts';

/** The few keychain operations the store needs; the real one is @napi-rs/keyring, tests pass fakes. */
export interface KeychainBackend {
  set(service: string, account: string, secret: string): Promise<void>;
  /** null or undefined when there is no entry (or, on a broken store, silently: the probe catches that). */
  get(service: string, account: string): Promise<string | null | undefined>;
  delete(service: string, account: string): Promise<boolean>;
  /** Account names that have an entry under the service. */
  accounts(service: string): Promise<string[]>;
}

export interface KeychainStoreOptions {
  /** Keychain service name; tests use their own so they never touch real entries. */
  service?: string;
  /** Defaults to @napi-rs/keyring, loaded on first use (a load failure makes the store unavailable). */
  backend?: KeychainBackend | (() => Promise<KeychainBackend>);
  /** For the hint only; defaults to process.platform. */
  platform?: NodeJS.Platform;
  /** Only for the Linux reason when no session bus is set; defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/** Prefix of probe entries' accounts; it can never be a profile name. */
export const PROBE_ACCOUNT_PREFIX = '__airlock_probe__';

export function keychainHint(platform: NodeJS.Platform = process.platform): string {
  switch (platform) {
    case 'darwin':
      return 'unlock the login keychain and allow Airlock to use it (Keychain Access); or give each API its key in a variable of its own, AIRLOCK_KEY_<API> (the name of the API in capitals, `-` as `_`), or opt in to the plaintext file store with --secret-store file';
    case 'win32':
      return 'Windows Credential Manager must be usable by this user; or give each API its key in a variable of its own, AIRLOCK_KEY_<API> (the name of the API in capitals, `-` as `_`), or opt in to the plaintext file store with --secret-store file';
    default:
      return 'start a Secret Service in this login session and unlock it (Debian/Ubuntu: `apt install gnome-keyring dbus-user-session libsecret-1-0`, then log in again; KWallet and KeePassXC work too); on a headless server give each API its key in a variable of its own, AIRLOCK_KEY_<API> (the name of the API in capitals, `-` as `_`), or opt in to the plaintext file store with --secret-store file';
  }
}

/** The real backend. Entries are pinned to the Secret Service on Linux (no kernel-keyring fallback). */
export async function loadNapiKeyringBackend(): Promise<KeychainBackend> {
  const lib = await import('@napi-rs/keyring');
  const options = { linux: { store: 'secret-service' as const } };
  const entry = (service: string, account: string) => new lib.AsyncEntry(service, account, options);
  return {
    async set(service, account, secret) {
      await entry(service, account).setPassword(secret);
    },
    async get(service, account) {
      return entry(service, account).getPassword();
    },
    async delete(service, account) {
      return entry(service, account).deleteCredential();
    },
    async accounts(service) {
      // findCredentials returns the passwords too: they are dropped here, at once.
      const found = await lib.findCredentialsAsync(service);
      return found.map((c) => c.account);
    },
  };
}

// Library messages that need a plain-words gloss.
const GLOSSES: [RegExp, string][] = [
  [/Secret Service: no result found/i, 'the Secret Service has no default keyring to write to'],
  [/prompt was dismissed|IsLocked/i, 'the keyring is locked and could not be unlocked here'],
];

function describe(error: unknown, secrets: readonly (string | undefined)[]): string {
  const raw = error instanceof Error ? error.message : String(error);
  const text = scrub(raw.replace(/\s+/g, ' ').trim(), secrets) || 'unknown error';
  const gloss = GLOSSES.find(([re]) => re.test(text));
  return gloss ? `${text} (${gloss[1]})` : text;
}

export function createKeychainStore(options: KeychainStoreOptions = {}): SecretStore {
  const service = options.service ?? SERVICE_NAME;
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const hint = keychainHint(platform);
  let backendPromise: Promise<KeychainBackend> | undefined;
  let state: Promise<ProbeResult> | undefined;
  let inFlight: Promise<ProbeResult> | undefined;

  const backend = (): Promise<KeychainBackend> => {
    if (!backendPromise) {
      const b = options.backend ?? loadNapiKeyringBackend;
      backendPromise = typeof b === 'function' ? b() : Promise.resolve(b);
    }
    return backendPromise;
  };

  const noBusReason = (): string | undefined => {
    if (platform !== 'linux' && platform !== 'freebsd') return undefined;
    if (env.DBUS_SESSION_BUS_ADDRESS) return undefined;
    return 'DBUS_SESSION_BUS_ADDRESS is not set (no D-Bus session bus, so no Secret Service)';
  };

  const runProbe = async (): Promise<ProbeResult> => {
    let kc: KeychainBackend;
    try {
      kc = await backend();
    } catch (error) {
      return { available: false, reason: `cannot load @napi-rs/keyring: ${describe(error, [])}` };
    }
    const account = `${PROBE_ACCOUNT_PREFIX}-${process.pid}-${randomBytes(6).toString('hex')}`;
    const value = `probe-${randomBytes(16).toString('hex')}`;
    const fail = (step: string, error: unknown): ProbeResult => {
      const bus = noBusReason();
      const detail = describe(error, [value]);
      return { available: false, reason: bus ? `${bus}; ${step}: ${detail}` : `${step}: ${detail}` };
    };
    try {
      await kc.set(service, account, value);
    } catch (error) {
      return fail('writing a probe entry failed', error);
    }
    let back: string | null | undefined;
    try {
      back = await kc.get(service, account);
    } catch (error) {
      return fail('reading the probe entry back failed', error);
    }
    if (back !== value) {
      // Best effort: do not leave a probe entry behind.
      await kc.delete(service, account).catch(() => false);
      const what = back === null || back === undefined ? 'nothing' : 'a different value';
      return { available: false, reason: `the keychain accepted a probe entry but read back ${what}: it does not keep what is written` };
    }
    try {
      if (!(await kc.delete(service, account))) return { available: false, reason: 'deleting the probe entry reported that it did not exist' };
      const after = await kc.get(service, account);
      if (after !== null && after !== undefined) return { available: false, reason: 'the probe entry was still there after it was deleted' };
    } catch (error) {
      return fail('deleting the probe entry failed', error);
    }
    return { available: true, detail: describeAvailable(platform, service) };
  };

  const probe = (): Promise<ProbeResult> => {
    if (!inFlight) {
      inFlight = runProbe().finally(() => {
        inFlight = undefined;
      });
      state = inFlight;
    }
    return inFlight;
  };

  /** The backend, once a probe has shown the keychain works; otherwise the explicit error. */
  const ready = async (): Promise<KeychainBackend> => {
    const result = await (state ?? probe());
    if (!result.available) throw new SecretStoreUnavailableError('keychain', result.reason, hint);
    return backend();
  };

  const failed = (what: string, error: unknown, secrets: readonly (string | undefined)[] = []): SecretStoreUnavailableError =>
    new SecretStoreUnavailableError('keychain', `${what}: ${describe(error, secrets)}`, hint);

  return {
    kind: 'keychain',
    probe,
    async get(profile) {
      assertProfileName(profile);
      const kc = await ready();
      let value: string | null | undefined;
      try {
        value = await kc.get(service, profile);
      } catch (error) {
        throw failed(`cannot read the key of profile '${profile}'`, error);
      }
      return value === null || value === undefined || value === '' ? undefined : value;
    },
    async set(profile, secret) {
      assertProfileName(profile);
      assertSecret(secret);
      const kc = await ready();
      try {
        await kc.set(service, profile, secret);
      } catch (error) {
        throw failed(`cannot save the key of profile '${profile}'`, error, [secret]);
      }
      let back: string | null | undefined;
      try {
        back = await kc.get(service, profile);
      } catch (error) {
        throw failed(`cannot read back the key of profile '${profile}'`, error, [secret]);
      }
      if (back !== secret) {
        throw new SecretStoreUnavailableError(
          'keychain',
          `the key of profile '${profile}' was not kept (read back ${back ? 'a different value' : 'nothing'})`,
          hint,
        );
      }
    },
    async delete(profile) {
      assertProfileName(profile);
      const kc = await ready();
      let removed: boolean;
      try {
        removed = await kc.delete(service, profile);
        if (!removed) {
          // "false" must mean "there was none": check rather than trust it.
          const still = await kc.get(service, profile);
          if (still !== null && still !== undefined) throw new Error('the keychain reported nothing to delete, but the key is still there');
        }
      } catch (error) {
        throw failed(`cannot delete the key of profile '${profile}'`, error);
      }
      return removed;
    },
    async list() {
      const kc = await ready();
      let accounts: string[];
      try {
        accounts = await kc.accounts(service);
      } catch (error) {
        throw failed('cannot list the keys', error);
      }
      return [...new Set(accounts.filter((a) => isAccount(a)))].sort();
    },
  };
}

function describeAvailable(platform: NodeJS.Platform, service: string): string {
  const where = platform === 'darwin' ? 'macOS Keychain' : platform === 'win32' ? 'Windows Credential Manager' : 'Secret Service';
  return `${where} (service "${service}"): a probe entry was written, read back and deleted`;
}
