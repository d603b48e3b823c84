// What every engine shares about a run's limits, on the host and inside the
// QuickJS worker alike: how sizes read, the messages a limit ends a run
// with, and the one output budget (console lines plus the return value).
import type { ConsoleEntry, ConsoleLevel, RunError } from './engine.ts';

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MB`;
  const kib = bytes / 1024;
  if (kib >= 1) return `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KB`;
  return `${bytes} bytes`;
}

export type LimitKind = 'timeout' | 'memory' | 'output' | 'aborted';

/** The error a run ends with when a limit stops it; the same words on every engine. */
export function limitError(kind: LimitKind, limits: { timeoutMs: number; memoryBytes: number; outputBytes: number }, message?: string): RunError {
  switch (kind) {
    case 'timeout':
      return { kind, message: `Execution timed out after ${limits.timeoutMs} ms` };
    case 'memory':
      return { kind, message: `Memory limit of ${formatBytes(limits.memoryBytes)} exceeded` };
    case 'output':
      return { kind, message: `Output limit of ${formatBytes(limits.outputBytes)} exceeded (console output plus the return value)` };
    case 'aborted':
      return { kind, message: message ?? 'Execution was aborted' };
  }
}

/** The longest prefix of `text` that fits in `bytes` of UTF-8, never splitting a character. */
export function cutToBytes(text: string, bytes: number): string {
  if (bytes <= 0) return '';
  const buffer = Buffer.from(text, 'utf8');
  let end = Math.min(bytes, buffer.length);
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString('utf8');
}

/**
 * A run's output budget: each console line costs its UTF-8 bytes plus one,
 * and the return value gets what is left. The line that crosses the budget
 * is kept cut to the room left, and the budget is then spent.
 */
export class OutputBudget {
  readonly limit: number;
  #used = 0;
  #truncated = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The entry to keep (whole, cut, or none) and whether the budget is now exceeded. */
  write(level: ConsoleLevel, text: string): { entry?: ConsoleEntry; exceeded: boolean } {
    if (this.#truncated) return { exceeded: true };
    const bytes = Buffer.byteLength(text, 'utf8') + 1;
    const room = this.limit - this.#used;
    if (bytes > room) {
      const kept = cutToBytes(text, room - 1);
      this.#used = this.limit;
      this.#truncated = true;
      return kept.length > 0 ? { entry: { level, text: kept }, exceeded: true } : { exceeded: true };
    }
    this.#used += bytes;
    return { entry: { level, text }, exceeded: false };
  }

  /** Bytes left for more output or the return value. */
  get room(): number {
    return Math.max(0, this.limit - this.#used);
  }

  /** A line was cut or dropped. */
  get truncated(): boolean {
    return this.#truncated;
  }
}
