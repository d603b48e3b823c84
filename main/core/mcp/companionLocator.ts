// Finding the companion for a data dir (server.json, a live pid, the MCP
// token file — read here, never written into a client's config) and, when
// none runs, starting one in the background: a headless `airlock serve` that
// exits once it has had no client for a while (--exit-when-idle).
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataPaths } from '../config/dataDir.ts';
import { AirlockError } from '../errors.ts';
import { isAlive, readServerInfo } from '../runtime/serverInfo.ts';

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
export async function startCompanion(options: StartOptions): Promise<CompanionAddress> {
  const log = openSync(join(options.dataDir, 'companion.log'), 'a', 0o600);
  const child = spawn(
    options.node,
    [options.cli, 'serve', '--data-dir', options.dataDir, '--port', '0', '--exit-when-idle', String(options.idleExitSeconds), ...(options.args ?? [])],
    { detached: true, stdio: ['ignore', log, log], windowsHide: true },
  );
  child.unref();
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    const found = locateCompanion(options.dataDir);
    if (found) return found;
    if (exited !== undefined) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const tail = (() => {
    try {
      return readFileSync(join(options.dataDir, 'companion.log'), 'utf8').trim().split('\n').slice(-3).join(' / ');
    } catch {
      return '';
    }
  })();
  throw new AirlockError(
    'unavailable',
    exited !== undefined
      ? `the Airlock companion could not start (exit ${exited})${tail ? `: ${tail}` : ''}`
      : `the Airlock companion did not start serving within ${(options.timeoutMs ?? 30_000) / 1000} s`,
    { hint: `see ${join(options.dataDir, 'companion.log')}, or run \`airlock stdio --in-process\`` },
  );
}
