// Finds the Airlock server running for a data dir (server.json + the control
// token file) and returns a control API client for it. A companion that is
// starting — it holds companion.lock, alive, but does not serve yet — is
// waited for (saying so on stderr) for up to 15 s: a command run right after
// `airlock serve` (or the app) starts finds it instead of saying none runs.
import { readFileSync } from 'node:fs';
import { dataPaths } from '../core/config/dataDir.ts';
import { AirlockError } from '../core/util/errors.ts';
import { createControlClient, type ControlClient } from '../core/control/controlClient.ts';
import { isAlive, lockHolder, readServerInfo, whileStarting, type ServerInfo } from '../core/config/serverInfo.ts';

export { isAlive, readServerInfo, type ServerInfo };

/** How long a command waits for a companion that is starting. */
export const STARTING_WAIT_MS = 15_000;

export interface StartingWait {
  timeoutMs?: number;
  /** Where the wait is said (stderr). */
  say?: (line: string) => void;
}

/**
 * The running companion's server.json; when none serves yet but one is starting (its lock held by a live
 * process), waits for it to serve, up to `timeoutMs`. Undefined when none runs or starts, or it did not serve in time.
 */
export async function serverInfoWhenStarted(dataDir: string, options: StartingWait = {}): Promise<ServerInfo | undefined> {
  const serving = () => {
    const info = readServerInfo(dataDir);
    return info && isAlive(info.pid) ? info : undefined;
  };
  const lock = dataPaths(dataDir).lock;
  const holder = serving() ? undefined : lockHolder(lock);
  if (!holder) return serving();
  const say = options.say ?? ((line: string) => void process.stderr.write(`${line}\n`));
  say(`airlock: the companion for ${dataDir} is starting (pid ${holder.pid}); waiting for it…`);
  return whileStarting(lock, serving, options.timeoutMs ?? STARTING_WAIT_MS);
}

function clientFor(dataDir: string, info: ServerInfo): ControlClient {
  let token: string;
  try {
    token = readFileSync(dataPaths(dataDir).controlToken, 'utf8').trim();
  } catch {
    throw new AirlockError('config', `cannot read the control token ${dataPaths(dataDir).controlToken}`, {
      hint: 'it is created by `airlock serve`; run the CLI as the same user',
    });
  }
  return createControlClient(info.url, token);
}

/** The running companion's control client (one that is starting is waited for); refused with how to start one when none runs. */
export async function connectToRunningServer(dataDir: string, options: StartingWait = {}): Promise<ControlClient> {
  const info = await serverInfoWhenStarted(dataDir, options);
  if (!info) {
    throw new AirlockError('config', `no running Airlock server for data dir ${dataDir}`, {
      hint: 'start it with `airlock serve` (or open the app), with the same --data-dir',
    });
  }
  return clientFor(dataDir, info);
}

/** The running companion's control client (one that is starting is waited for), or undefined when none runs for this data dir. */
export async function runningCompanion(dataDir: string, options: StartingWait = {}): Promise<ControlClient | undefined> {
  const info = await serverInfoWhenStarted(dataDir, options);
  return info ? clientFor(dataDir, info) : undefined;
}
