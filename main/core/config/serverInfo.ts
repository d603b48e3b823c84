// server.json in the data dir: where the companion that holds it serves, and
// whether its process is alive; companion.lock: who owns the directory — a
// companion starting (it does not serve yet) or running. Read by the CLI's
// control commands and by the stdio forwarder that joins the companion.
import { readFileSync } from 'node:fs';
import { dataPaths } from './dataDir.ts';

/** What server.json in the data dir says while a companion serves. */
export interface ServerInfo {
  pid: number;
  port: number;
  url: string;
  mcpUrl: string;
  version: string;
  /** The API the command named, when it named one (the companion may serve several). */
  profile?: string;
  startedAt: string;
}

export function readServerInfo(dataDir: string): ServerInfo | undefined {
  try {
    return JSON.parse(readFileSync(dataPaths(dataDir).serverInfo, 'utf8')) as ServerInfo;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What companion.lock says: the process that owns the data dir, and where it serves once it does. */
export interface LockInfo {
  pid: number;
  startedAt: string;
  /** Set once the loopback server listens. */
  url?: string;
  port?: number;
  kind: 'serve' | 'desktop';
}

export function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
    return typeof info?.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding the lock — a companion starting, or running — if any. */
export function lockHolder(file: string, alive: (pid: number) => boolean = isAlive): LockInfo | undefined {
  const holder = readLock(file);
  return holder && alive(holder.pid) ? holder : undefined;
}

/**
 * Waits while a companion is starting (it holds the lock but does not serve yet): until `serving()` finds it, the
 * holder is gone, or `timeoutMs` passes. Checked every 100 ms: another process's file has no event to wait on on
 * every platform.
 */
export async function whileStarting<T>(file: string, serving: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = serving();
    if (found || !lockHolder(file) || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
