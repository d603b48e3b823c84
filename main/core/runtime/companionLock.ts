// One companion per data directory. `serve` (and the desktop app) take
// <data dir>/companion.lock before anything else; a second one finds the
// holder alive and refuses with one line that says who holds it and how to
// reach it. A lock left by a dead process is taken over. The lock file is
// created atomically with its content (written beside, then hard-linked into
// place), and removed on exit only by its holder — so a second process never
// deletes the first one's lock or server.json.
import { linkSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { AirlockError } from '../util/errors.ts';
import { isAlive as isProcessAlive, readLock, type LockInfo } from '../config/serverInfo.ts';
import { messageOf } from '../../../contract/values.ts';

export type { LockInfo };

export interface CompanionLock {
  readonly file: string;
  /** Records where the holder can be reached. */
  update(info: Partial<Pick<LockInfo, 'url' | 'port'>>): void;
  release(): void;
}

function heldError(dataDir: string, holder: LockInfo): AirlockError {
  const where = holder.url ? `serving ${holder.url}` : 'starting';
  return new AirlockError('usage', `another Airlock (pid ${holder.pid}, ${where}, since ${holder.startedAt}) already runs on data dir ${dataDir}`, {
    hint: holder.url
      ? `use it: its MCP endpoint is ${holder.url}/mcp, and \`airlock approvals list --data-dir ${dataDir}\` talks to it; or stop it first, or pass another --data-dir`
      : `stop it first, or pass another --data-dir`,
  });
}

export function acquireCompanionLock(file: string, dataDir: string, kind: LockInfo['kind'], isAlive: (pid: number) => boolean = isProcessAlive): CompanionLock {
  const mine: LockInfo = { pid: process.pid, startedAt: new Date().toISOString(), kind };
  const write = (info: LockInfo, target: string) => writeFileSync(target, JSON.stringify(info) + '\n', { mode: 0o600 });
  for (let attempt = 0; attempt < 5; attempt++) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    write(mine, tmp);
    try {
      linkSync(tmp, file);
      rmSync(tmp, { force: true });
      let current = mine;
      return {
        file,
        update(info) {
          current = { ...current, ...info };
          const next = `${file}.${process.pid}.next`;
          write(current, next);
          renameSync(next, file);
        },
        release() {
          if (readLock(file)?.pid === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      rmSync(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new AirlockError('usage', `cannot lock data dir ${dataDir}: ${messageOf(error)}`);
      }
    }
    const holder = readLock(file);
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) throw heldError(dataDir, holder);
    // Left by a dead process (or unreadable): take it over.
    rmSync(file, { force: true });
  }
  throw new AirlockError('conflict', `cannot lock data dir ${dataDir}: another process keeps taking it`);
}
