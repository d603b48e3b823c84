// API keys in a plaintext JSON file, for headless servers without a keychain.
// It is never a fallback: it exists only when the person opted in and gave
// its path, and the caller prints fileStoreBanner() at every start.
//
// Guarantees:
// - The file is only created by set(), with mode 0600 (its directory, when
//   created here, 0700), and is replaced atomically: a temp file in the same
//   directory, written, fsynced and renamed over it, so a crash leaves the
//   old file or the new one, never half of one.
// - Every operation first checks the file: a regular file (not a symlink),
//   owned by the current user, with no permission for group or others. A file
//   with wider permissions is refused, with the chmod that fixes it; so is one
//   that does not parse (without quoting it: it holds keys).
// - Errors name the path and the profile, never a key.
// On Windows, POSIX modes mean nothing: the ownership and mode checks are
// skipped there and the file relies on the user profile's ACLs.
import { lstat, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { type ProbeResult, type SecretStore, SecretStoreUnavailableError, isAccount, assertProfileName, assertSecret } from './secretStore.ts';
import { shellQuote } from '../../../contract/values.ts';

export interface FileStoreOptions {
  /** The key file; the person chose it when opting in. */
  path: string;
  /** Defaults to process.platform; 'win32' skips the POSIX mode checks. */
  platform?: NodeJS.Platform;
}

const FORMAT = 'airlock-keys';
const VERSION = 1;

interface KeyFile {
  format: typeof FORMAT;
  version: typeof VERSION;
  keys: Record<string, string>;
}

/** What the caller prints at every start while the file store is in use. */
export function fileStoreBanner(path: string): string {
  return (
    `WARNING: API keys are stored in PLAINTEXT in ${path} (file store, explicitly opted in). ` +
    'Anyone who can read that file as you, or a backup of it, can use them. ' +
    'Prefer the OS keychain wherever one can run.'
  );
}

export function createFileStore(options: FileStoreOptions): SecretStore {
  const path = options.path;
  const posix = (options.platform ?? process.platform) !== 'win32';
  const unavailable = (reason: string, hint?: string) =>
    new SecretStoreUnavailableError('file', `${path}: ${reason}`, hint ?? 'fix the file, or use the OS keychain instead of the file store');

  /** The checked contents; an empty map when the file does not exist yet. */
  const load = async (): Promise<Record<string, string>> => {
    let stat;
    try {
      stat = await lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw unavailable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (stat.isSymbolicLink()) throw unavailable('is a symbolic link', 'point the file store at the file itself');
    if (!stat.isFile()) throw unavailable('is not a regular file');
    if (posix) {
      const uid = process.getuid?.();
      if (uid !== undefined && stat.uid !== uid)
        throw unavailable(`is owned by uid ${stat.uid}, not by you (uid ${uid})`, `run: chown ${uid} ${shellQuote(path)}`);
      const mode = stat.mode & 0o777;
      if ((mode & 0o077) !== 0) {
        throw unavailable(
          `has mode ${mode.toString(8).padStart(4, '0')}, wider than 0600: other users may read the keys`,
          `run: chmod 600 ${shellQuote(path)}`,
        );
      }
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw unavailable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the text, which holds keys: not repeated.
      throw unavailable('is not valid JSON', 'restore it from a backup, or delete it and set the keys again');
    }
    const file = raw as Partial<KeyFile> | null;
    if (
      !file ||
      typeof file !== 'object' ||
      file.format !== FORMAT ||
      file.version !== VERSION ||
      !file.keys ||
      typeof file.keys !== 'object' ||
      Array.isArray(file.keys)
    ) {
      throw unavailable(`is not an Airlock key file (expected {"format":"${FORMAT}","version":${VERSION},"keys":{…}})`);
    }
    const keys: Record<string, string> = {};
    for (const [profile, secret] of Object.entries(file.keys)) {
      if (!isAccount(profile)) throw unavailable(`holds an entry whose name is not a profile name`);
      if (typeof secret !== 'string' || secret.length === 0) throw unavailable(`the key of profile '${profile}' is not a non-empty string`);
      keys[profile] = secret;
    }
    return keys;
  };

  /** Replaces the file atomically with the given keys, mode 0600. */
  const save = async (keys: Record<string, string>): Promise<void> => {
    const body: KeyFile = { format: FORMAT, version: VERSION, keys };
    try {
      await writeFileAtomic(path, JSON.stringify(body, null, 2) + '\n');
    } catch (error) {
      throw unavailable(`cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };

  // Read-modify-write cycles in this process run one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    kind: 'file',
    location: path,
    async probe(): Promise<ProbeResult> {
      try {
        const keys = await serial(load);
        const n = Object.keys(keys).length;
        const state = n === 0 ? 'no keys yet' : `${n} key${n === 1 ? '' : 's'}`;
        return { available: true, detail: `plaintext file ${path} (${state}${posix ? ', mode 0600' : ''})` };
      } catch (error) {
        if (error instanceof SecretStoreUnavailableError) return { available: false, reason: error.reason };
        throw error;
      }
    },
    async get(profile) {
      assertProfileName(profile);
      const keys = await serial(load);
      return Object.hasOwn(keys, profile) ? keys[profile] : undefined;
    },
    async set(profile, secret) {
      assertProfileName(profile);
      assertSecret(secret);
      await serial(async () => {
        const keys = await load();
        keys[profile] = secret;
        await save(keys);
      });
    },
    async delete(profile) {
      assertProfileName(profile);
      return serial(async () => {
        const keys = await load();
        if (!Object.hasOwn(keys, profile)) return false;
        delete keys[profile];
        await save(keys);
        return true;
      });
    },
    async list() {
      const keys = await serial(load);
      return Object.keys(keys).sort();
    },
  };
}
