// Making committed audit records durable without blocking the event loop.
// The database runs with synchronous=NORMAL (a commit writes its WAL frames
// and returns), and the WAL file is then flushed with fdatasync in libuv's
// thread pool: the same guarantee as synchronous=FULL for a record whose
// promise has settled, while the event loop keeps serving other calls during
// the flush. Flushes are grouped: one covers every commit made before it
// started, and commits made while one runs wait for the next.
import { closeSync, fdatasync, openSync } from 'node:fs';

/** Flushes the WAL to disk; rejects if it cannot. */
export type SyncWal = () => Promise<void>;

export interface WalFile {
  sync: SyncWal;
  /** Closes the file once no flush is running. */
  close(): void;
}

/** The `-wal` file beside `dbFile`, opened on the first flush (SQLite creates it with the first write). */
export function walFile(dbFile: string): WalFile {
  let fd: number | undefined;
  let running = 0;
  let closing = false;
  const closeNow = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        try {
          fd ??= openSync(`${dbFile}-wal`, 'r+');
        } catch (error) {
          reject(error as Error);
          return;
        }
        running++;
        fdatasync(fd, (error) => {
          running--;
          if (closing && running === 0) closeNow();
          if (error) reject(error);
          else resolve();
        });
      }),
    close() {
      closing = true;
      if (running === 0) closeNow();
    },
  };
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** Groups flushes: each waiter is released by the first flush that started after it asked. */
export class GroupSync {
  readonly #sync: SyncWal;
  #waiting: Waiter[] = [];
  #running = false;
  #ended = false;

  constructor(sync: SyncWal) {
    this.#sync = sync;
  }

  /**
   * Call after a commit returned: settles once a flush covering that commit
   * has completed. Calls made in the same synchronous stretch share a flush.
   */
  afterCommit(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#ended) return reject(new Error('the audit log is closed'));
      this.#waiting.push({ resolve, reject });
      if (!this.#running) {
        this.#running = true;
        queueMicrotask(() => void this.#run());
      }
    });
  }

  /**
   * The database was closed (its closing checkpoint syncs everything
   * committed) or failed to: settles every waiter no flush has started for,
   * with that outcome, and starts no flush from now on. A flush already
   * running settles its own waiters.
   */
  end(error?: Error): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) {
      if (error) w.reject(error);
      else w.resolve();
    }
  }

  async #run(): Promise<void> {
    while (this.#waiting.length > 0 && !this.#ended) {
      const covered = this.#waiting;
      this.#waiting = [];
      try {
        await this.#sync();
        for (const w of covered) w.resolve();
      } catch (error) {
        for (const w of covered) w.reject(error as Error);
      }
    }
    this.#running = false;
  }
}
