// Where Airlock keeps its state. The default is the directory Electron's
// app.getPath('userData') returns for an app named "Airlock", so the desktop
// app and the headless `airlock serve` share one data dir.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, chmodSync, statSync, accessSync, realpathSync, constants, writeFileSync, rmSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { AirlockError } from '../util/errors.ts';
import { messageOf } from '../../../contract/values.ts';

export const APP_NAME = 'Airlock';

export interface PlatformEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

export function defaultDataDir(p: PlatformEnv = { platform: process.platform, env: process.env, home: homedir() }): string {
  switch (p.platform) {
    case 'darwin':
      return join(p.home, 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return join(p.env.APPDATA ?? join(p.home, 'AppData', 'Roaming'), APP_NAME);
    default:
      return join(p.env.XDG_CONFIG_HOME || join(p.home, '.config'), APP_NAME);
  }
}

/** The files Airlock keeps in its data dir, by purpose. */
export function dataPaths(dataDir: string) {
  return {
    root: dataDir,
    settings: join(dataDir, 'settings.json'),
    profiles: join(dataDir, 'profiles'),
    /** Other MCP servers Airlock connects to as a client (upstream/serverStore.ts). */
    servers: join(dataDir, 'servers.json'),
    /** The tool definitions a person accepted for each of them (upstream/toolPins.ts). */
    serverReviews: join(dataDir, 'server-reviews.json'),
    specCache: join(dataDir, 'spec-cache'),
    mcpToken: join(dataDir, 'token'),
    controlToken: join(dataDir, 'control-token'),
    /** What Prometheus presents at /metrics (--metrics token). */
    metricsToken: join(dataDir, 'metrics-token'),
    /** HTTP clients' own tokens, as hashes (http/clientTokens.ts). */
    clientTokens: join(dataDir, 'client-tokens.json'),
    serverInfo: join(dataDir, 'server.json'),
    demo: join(dataDir, 'demo'),
    audit: join(dataDir, 'audit.sqlite'),
    denoDir: join(dataDir, 'deno-cache'),
    secretsFile: join(dataDir, 'secrets.json'),
    grants: join(dataDir, 'grants.json'),
    lock: join(dataDir, 'companion.lock'),
    clientBackups: join(dataDir, 'client-backups'),
  };
}
export type DataPaths = ReturnType<typeof dataPaths>;

/** Kernel and device file systems: never a place for Airlock's state. */
const FORBIDDEN_ROOTS = ['/proc', '/sys', '/dev'];

/** The deepest existing ancestor of a path, resolved through symlinks. */
function existingAncestor(path: string): string {
  let current = resolve(path);
  for (;;) {
    try {
      return realpathSync(current);
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/**
 * Checks that a data dir can be used before anything touches it: not under a
 * kernel file system, not a file, writable. Fails with one line naming the
 * path and the reason.
 */
export function checkDataDir(dataDir: string, flag = '--data-dir'): void {
  const fail = (reason: string) =>
    new AirlockError('usage', `${flag} ${dataDir} cannot be used: ${reason}`, { hint: 'pass a writable directory, e.g. the default (omit the flag)' });
  const real = existingAncestor(dataDir);
  if (process.platform !== 'win32') {
    const root = FORBIDDEN_ROOTS.find((r) => real === r || real.startsWith(r + sep));
    if (root) throw fail(`it is under ${root}, a kernel file system`);
  }
  let isDir: boolean | undefined;
  try {
    isDir = statSync(dataDir).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw fail('a part of the path is a file');
    if (code !== 'ENOENT') throw fail(messageOf(error));
  }
  if (isDir === false) throw fail('it is a file, not a directory');
  const target = isDir ? dataDir : real;
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch {
    throw fail(isDir ? 'it is not writable by this user' : `${target} (where it would be created) is not writable by this user`);
  }
  if (isDir) {
    // Permission bits are not the whole story (read-only mounts): try a write.
    const probe = `${dataDir}${sep}.airlock-write-probe-${process.pid}`;
    try {
      writeFileSync(probe, '', { mode: 0o600 });
      rmSync(probe, { force: true });
    } catch (error) {
      throw fail(`cannot write in it (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`);
    }
  }
}

/** Creates the data dir, private to the user (0700). */
export function ensureDataDir(dataDir: string): void {
  checkDataDir(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch {
    // Windows: permissions come from the profile directory's ACL.
  }
}
