// The secret store in plain words, for the UI and `status`: where keys live,
// whether that is the OS keychain or a plaintext file, and, when the store
// cannot be used, what is wrong and what to do — never a raw D-Bus or
// library message as the headline. The technical reason is kept apart
// (`detail`) for support and logs.
import type { ProbeResult, SecretStoreKind } from './secretStore.ts';

export interface SecretStoreView {
  kind: SecretStoreKind;
  /** True for the OS keychain (macOS Keychain, Windows Credential Manager, a Secret Service). */
  osKeychain: boolean;
  /** Keys are kept unencrypted on disk (the file store). */
  plaintext: boolean;
  /** Where keys live, in words ("the macOS Keychain", "a plaintext file, /…/secrets.json"). */
  where: string;
  available: boolean;
  /** When unavailable: what is wrong, in plain words. */
  problem?: string;
  /** When unavailable: what to do about it. */
  action?: string;
  /** The ways to give Airlock a key without this store (with their risk named). */
  alternatives?: string;
  /** The file store: the warning to show while it is in use. */
  warning?: string;
  /** The store's own words (a probe or library message): for support, not a headline. */
  detail: string;
}

export const FILE_STORE_FLAG = '--secret-store file';

/** The ways that work without a keychain, for every API served: its own variable (the APIs screen names each), or the file store. */
const ALTERNATIVES =
  "Without a keychain you can still give Airlock a key: start it with the key in the API's own environment variable, " +
  '`AIRLOCK_KEY_<API>` (its name in capitals, every other character as `_`: `AIRLOCK_KEY_MY_API` for my-api; the APIs screen names it for each API), ' +
  `or start it with \`${FILE_STORE_FLAG}\` — keys are then kept in a plaintext file that anyone who can read your files, or a backup of them, can use.`;

function keychainName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'the Secret Service (GNOME Keyring, KWallet or KeePassXC)';
}

interface Plain {
  problem: string;
  action: string;
}

/** What a keychain failure means and what to do, from the probe's reason; tested against real library messages. */
export function plainKeychainProblem(reason: string, platform: NodeJS.Platform = process.platform): Plain {
  const linux = platform !== 'darwin' && platform !== 'win32';
  const installKeyring =
    'Install and start a keychain: on Debian or Ubuntu run `sudo apt install gnome-keyring dbus-user-session libsecret-1-0`, ' +
    'log out and back in, then restart Airlock (KWallet or KeePassXC work too).';
  if (/cannot load @napi-rs\/keyring/i.test(reason)) {
    return { problem: "Airlock's keychain module did not load, so it cannot reach the keychain.", action: 'Reinstall Airlock, then restart it.' };
  }
  if (linux && /DBUS_SESSION_BUS_ADDRESS|autolaunch|no D-Bus|dbus-daemon|NoServer|Failed to connect to socket|Connection refused/i.test(reason)) {
    return {
      problem:
        'There is no desktop session here (no D-Bus session bus), so there is no keychain to keep keys in. This is usual over SSH, in containers and on servers.',
      action: installKeyring,
    };
  }
  if (linux && /ServiceUnknown|org\.freedesktop\.secrets|not provided by any|Secret Service/i.test(reason) && !/no result found/i.test(reason)) {
    return { problem: 'No keychain service (such as GNOME Keyring or KWallet) is running in this session.', action: installKeyring };
  }
  if (/locked|IsLocked|prompt was dismissed|user interaction is not allowed|denied/i.test(reason)) {
    return {
      problem: 'The keychain is locked, and Airlock could not unlock it from here.',
      action:
        platform === 'darwin'
          ? 'Open Keychain Access, unlock the login keychain and allow Airlock to use it, then restart Airlock.'
          : platform === 'win32'
            ? 'Sign in to Windows as this user so Credential Manager is unlocked, then restart Airlock.'
            : 'Unlock it: open “Passwords and Keys” (Seahorse) and unlock the Login keyring (or log in to the desktop), then restart Airlock.',
    };
  }
  if (/no result found|no default keyring|default collection/i.test(reason)) {
    return {
      problem: 'The keychain has no default keyring to keep keys in.',
      action: 'Open “Passwords and Keys” (Seahorse), create a keyring and make it the default, then restart Airlock.',
    };
  }
  if (/does not keep|read back|still there after|did not exist|was not kept/i.test(reason)) {
    return {
      problem: 'The keychain accepted a test key but did not keep it correctly, so Airlock does not trust it with yours.',
      action: linux ? installKeyring : `Check that ${keychainName(platform)} works for this user, then restart Airlock.`,
    };
  }
  return {
    problem: `${capitalise(keychainName(platform))} refused a test key that Airlock tried to store.`,
    action: linux ? installKeyring : `Check that ${keychainName(platform)} works for this user, then restart Airlock.`,
  };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function fileStoreWarning(path: string): string {
  return (
    `Keys are kept in a plaintext file, ${path}, because Airlock was started with \`${FILE_STORE_FLAG}\`. ` +
    'Anyone who can read that file as you, or a backup of it, can use them. Without that option keys go in the OS keychain.'
  );
}

export function describeSecretStore(options: {
  kind: SecretStoreKind;
  probe: ProbeResult;
  /** The file store's path. */
  location?: string;
  platform?: NodeJS.Platform;
}): SecretStoreView {
  const { kind, probe } = options;
  const platform = options.platform ?? process.platform;
  const detail = probe.available ? probe.detail : probe.reason;
  if (kind === 'file') {
    const path = options.location ?? 'the secrets file';
    return {
      kind,
      osKeychain: false,
      plaintext: true,
      where: `a plaintext file, ${path}`,
      available: probe.available,
      warning: fileStoreWarning(path),
      ...(probe.available
        ? {}
        : {
            problem: `The key file cannot be used: ${probe.reason.replace(`${path}: `, 'it ')}.`,
            action: `Fix the file as the technical detail says, or start Airlock without \`${FILE_STORE_FLAG}\` to use the OS keychain.`,
          }),
      detail,
    };
  }
  if (kind === 'memory') {
    return {
      kind,
      osKeychain: false,
      plaintext: false,
      where: 'memory only (forgotten when Airlock stops)',
      available: probe.available,
      ...(probe.available ? {} : { problem: 'The in-memory store was made unavailable.', action: 'Restart Airlock.' }),
      detail,
    };
  }
  return {
    kind,
    osKeychain: true,
    plaintext: false,
    where: keychainName(platform),
    available: probe.available,
    ...(probe.available ? {} : { ...plainKeychainProblem(probe.reason, platform), alternatives: ALTERNATIVES }),
    detail,
  };
}
