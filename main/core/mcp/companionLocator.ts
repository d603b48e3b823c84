// Finding the companion for a data dir (server.json, a live pid, the MCP
// token file — read here, never written into a client's config) and, when
// none runs, starting one in the background: the desktop app when it is
// installed (in the tray, no window), else a headless `airlock serve` that
// exits once it has had no client for a while (--exit-when-idle).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { dataPaths } from '../config/dataDir.ts';
import { AirlockError } from '../util/errors.ts';
import { isAlive, lockHolder, readServerInfo, whileStarting } from '../config/serverInfo.ts';
import { messageOf } from '../../../contract/values.ts';

export interface CompanionAddress {
  mcpUrl: string;
  token: string;
  pid: number;
}

export function locateCompanion(dataDir: string): CompanionAddress | undefined {
  const info = readServerInfo(dataDir);
  if (!info || !isAlive(info.pid)) return undefined;
  try {
    return { mcpUrl: info.mcpUrl, token: readFileSync(dataPaths(dataDir).mcpToken, 'utf8').trim(), pid: info.pid };
  } catch {
    return undefined;
  }
}

/** The installed desktop app's executable, if any (AIRLOCK_DESKTOP_APP names another one; `none` never starts it). */
export function findDesktopApp(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string | undefined {
  if (env.AIRLOCK_DESKTOP_APP) return env.AIRLOCK_DESKTOP_APP === 'none' ? undefined : env.AIRLOCK_DESKTOP_APP;
  const candidates =
    platform === 'darwin'
      ? ['/Applications/Airlock.app/Contents/MacOS/Airlock', join(home, 'Applications', 'Airlock.app', 'Contents', 'MacOS', 'Airlock')]
      : platform === 'win32'
        ? [
            join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Programs', 'Airlock', 'Airlock.exe'),
            join(env.ProgramFiles ?? 'C:\\Program Files', 'Airlock', 'Airlock.exe'),
          ]
        : ['/opt/Airlock/airlock', join(home, 'Applications', 'Airlock.AppImage')];
  return candidates.find((path) => existsSync(path));
}

/** Starts the desktop app in the background (tray only) for a data dir and waits until it serves. */
export function startDesktopApp(app: string, dataDir: string, timeoutMs = 20_000): Promise<CompanionAddress> {
  return launchAndWait(app, ['--background', '--data-dir', dataDir], dataDir, timeoutMs);
}

export interface StartOptions {
  dataDir: string;
  /** The Node and CLI entry to run `serve` with (this process's own). */
  node: string;
  cli: string;
  idleExitSeconds: number;
  /** How long to wait for it to serve. */
  timeoutMs?: number;
  /** Extra flags (e.g. the profile) the background companion starts with. */
  args?: string[];
}

/** Starts `airlock serve` detached (its output in <data dir>/companion.log) and waits until it serves. */
export function startCompanion(options: StartOptions): Promise<CompanionAddress> {
  return launchAndWait(
    options.node,
    [options.cli, 'serve', '--data-dir', options.dataDir, '--port', '0', '--exit-when-idle', String(options.idleExitSeconds), ...(options.args ?? [])],
    options.dataDir,
    options.timeoutMs ?? 30_000,
  );
}

async function launchAndWait(command: string, args: string[], dataDir: string, timeoutMs: number): Promise<CompanionAddress> {
  const logFile = join(dataDir, 'companion.log');
  const log = openSync(logFile, 'a', 0o600);
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], windowsHide: true });
  child.unref();
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', () => (exited = -1));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = locateCompanion(dataDir);
    if (found) return found;
    if (exited !== undefined) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const tail = (() => {
    try {
      return readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' / ');
    } catch {
      return '';
    }
  })();
  throw new AirlockError(
    'unavailable',
    exited !== undefined
      ? `the Airlock companion (${command}) could not start (exit ${exited})${tail ? `: ${tail}` : ''}`
      : `the Airlock companion (${command}) did not start serving within ${timeoutMs / 1000} s`,
    { hint: `see ${logFile}, or run \`airlock stdio --in-process\`` },
  );
}

/**
 * The companion for a data dir: the running one, else the desktop app
 * started in the background, else a headless `serve` (with `serveArgs`) that
 * exits after `idleExitSeconds` without clients.
 */
/** How long a companion started in the background by `stdio` waits without clients before it exits. */
export const BACKGROUND_IDLE_SECONDS = 300;

export async function connectOrStart(options: {
  dataDir: string;
  node: string;
  cli: string;
  /** 0: BACKGROUND_IDLE_SECONDS. */
  idleExitSeconds: number;
  serveArgs?: string[];
  log(level: 'info' | 'warn', message: string): void;
}): Promise<CompanionAddress> {
  const running = locateCompanion(options.dataDir);
  if (running) return running;
  // One is starting (it holds the lock, it does not serve yet): it is waited for, not raced by another.
  const lock = dataPaths(options.dataDir).lock;
  const starting = lockHolder(lock);
  if (starting) {
    options.log('info', `the companion for ${options.dataDir} is starting (pid ${starting.pid}): waiting for it`);
    const started = await whileStarting(lock, () => locateCompanion(options.dataDir), 30_000);
    if (started) return started;
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const app = findDesktopApp();
  if (app) {
    options.log('info', `no companion serves ${options.dataDir}: starting the desktop app (${app}) in the background`);
    try {
      return await startDesktopApp(app, options.dataDir);
    } catch (error) {
      options.log('warn', `${messageOf(error)}; starting a headless companion instead`);
    }
  }
  options.log('info', `no companion serves ${options.dataDir}: starting one in the background`);
  return startCompanion({
    dataDir: options.dataDir,
    node: options.node,
    cli: options.cli,
    idleExitSeconds: options.idleExitSeconds || BACKGROUND_IDLE_SECONDS,
    ...(options.serveArgs ? { args: options.serveArgs } : {}),
  });
}
