// A run's console in the QuickJS worker: each line is charged to the run's
// output budget (console lines plus the return value) and buffered, and the
// buffer goes to the host as one 'console' message when it is large, when it
// is older than CONSOLE_FLUSH_MS (checked on every interrupt poll, so lines
// arrive while the guest keeps computing), and before anything else the run
// sends. Once the budget is spent the guest is interrupted.
import { Buffer } from 'node:buffer';
import type { ConsoleEntry, ConsoleLevel } from '../engine.ts';
import { OutputBudget } from '../runBudget.ts';
import type { WorkerToHost } from './protocol.ts';

const CONSOLE_FLUSH_ENTRIES = 256;
const CONSOLE_FLUSH_BYTES = 64 * 1024;
/** Buffered console lines older than this are sent even while the guest keeps computing. */
const CONSOLE_FLUSH_MS = 20;
const LEVELS = new Set<ConsoleLevel>(['log', 'info', 'warn', 'error', 'debug']);

export class ConsoleBuffer {
  /** Console lines plus the return value. */
  readonly output: OutputBudget;
  /** The output budget is spent: the guest is to be stopped. */
  exceeded = false;
  readonly #seq: number;
  readonly #post: (message: WorkerToHost) => void;
  #pending: ConsoleEntry[] = [];
  #pendingBytes = 0;
  #lastFlushAt = Date.now();

  constructor(seq: number, outputBytes: number, post: (message: WorkerToHost) => void) {
    this.#seq = seq;
    this.#post = post;
    this.output = new OutputBudget(outputBytes);
  }

  flush(): void {
    this.#lastFlushAt = Date.now();
    if (this.#pending.length === 0) return;
    this.#post({ type: 'console', seq: this.#seq, entries: this.#pending });
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  flushIfStale(): void {
    if (this.#pending.length > 0 && Date.now() - this.#lastFlushAt >= CONSOLE_FLUSH_MS) this.flush();
  }

  /** Records one console line (an unknown level reads as 'log'); returns the bytes left in the output budget, or -1 once it is spent. */
  write(levelName: string, text: string): number {
    if (this.exceeded) return -1;
    const level = LEVELS.has(levelName as ConsoleLevel) ? (levelName as ConsoleLevel) : 'log';
    const { entry, exceeded } = this.output.write(level, text);
    if (entry) {
      this.#pending.push(entry);
      this.#pendingBytes += Buffer.byteLength(entry.text, 'utf8') + 1;
    }
    if (exceeded) {
      this.exceeded = true;
      this.flush();
      return -1;
    }
    if (this.#pending.length >= CONSOLE_FLUSH_ENTRIES || this.#pendingBytes >= CONSOLE_FLUSH_BYTES) this.flush();
    else this.flushIfStale();
    return this.output.room;
  }
}
