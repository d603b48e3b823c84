// A bounded ring of log entries with batched, replayable subscriptions.
// Producers never block and memory never grows past `capacity` entries;
// a subscriber that attaches late can replay what the ring still holds.

import { LOG_LEVELS } from '../../../contract/names.ts';
import type { LogLevel } from '../../../contract/logs.ts';

export { LOG_LEVELS, type LogLevel };

export interface LogEntry {
  seq: number;
  time: string; // ISO 8601
  level: LogLevel;
  source: string; // 'core', 'http', 'mcp', 'sandbox', 'renderer', …
  message: string;
  runId?: string;
}

export interface LogQuery {
  level?: LogLevel; // minimum level
  source?: string;
  grep?: string; // case-insensitive substring
  since?: number | string; // a seq (exclusive) or an ISO time (inclusive)
  limit?: number; // newest N that match
}

export type LogListener = (batch: LogEntry[]) => void;

export function levelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

export class LogBuffer {
  readonly capacity: number;
  private readonly ring: (LogEntry | undefined)[];
  private next = 0; // index of the next write
  private size = 0;
  private seq = 0;
  private readonly listeners = new Set<LogListener>();
  private pending: LogEntry[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly batchMs: number;
  private readonly now: () => Date;
  private readonly redact: (text: string) => string;

  /**
   * `redact` runs on every line as it enters the ring, whoever appends it
   * (the logger, sandbox console output, the UI): what the ring holds — and
   * so every reader of it — is already scrubbed.
   */
  constructor(options: { capacity?: number; batchMs?: number; now?: () => Date; redact?: (text: string) => string } = {}) {
    this.capacity = Math.max(1, options.capacity ?? 5000);
    this.ring = new Array(this.capacity);
    this.batchMs = options.batchMs ?? 5;
    this.now = options.now ?? (() => new Date());
    this.redact = options.redact ?? ((text) => text);
  }

  append(entry: Omit<LogEntry, 'seq' | 'time'> & { time?: string }): LogEntry {
    const full: LogEntry = {
      ...entry,
      message: this.redact(entry.message),
      source: this.redact(entry.source),
      seq: ++this.seq,
      time: entry.time ?? this.now().toISOString(),
    };
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
    if (this.listeners.size > 0) this.schedule(full);
    return full;
  }

  /** Entries oldest first. */
  entries(): LogEntry[] {
    const out: LogEntry[] = [];
    const start = (this.next - this.size + this.capacity) % this.capacity;
    for (let i = 0; i < this.size; i++) {
      const e = this.ring[(start + i) % this.capacity];
      if (e) out.push(e);
    }
    return out;
  }

  get lastSeq(): number {
    return this.seq;
  }

  query(q: LogQuery = {}): LogEntry[] {
    const min = q.level ? levelRank(q.level) : 0;
    const needle = q.grep?.toLowerCase();
    const matches = this.entries().filter((e) => {
      if (levelRank(e.level) < min) return false;
      if (q.source && e.source !== q.source) return false;
      if (needle && !e.message.toLowerCase().includes(needle)) return false;
      if (typeof q.since === 'number' && e.seq <= q.since) return false;
      if (typeof q.since === 'string' && e.time < q.since) return false;
      return true;
    });
    return q.limit !== undefined ? matches.slice(-Math.max(0, q.limit)) : matches;
  }

  /**
   * Batched updates. With `replay`, the listener first receives what the ring
   * holds after `replay.since` (all of it when since is omitted).
   */
  subscribe(listener: LogListener, options: { replay?: { since?: number } } = {}): () => void {
    if (options.replay) {
      const since = options.replay.since;
      const backlog = since === undefined ? this.entries() : this.query({ since });
      if (backlog.length > 0) listener(backlog);
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Delivers pending batches now (tests and shutdown). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    for (const l of this.listeners) {
      try {
        l(batch);
      } catch {
        // A failing subscriber must not break logging for the others.
      }
    }
  }

  private schedule(entry: LogEntry): void {
    this.pending.push(entry);
    if (this.pending.length > this.capacity) this.pending.splice(0, this.pending.length - this.capacity);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), this.batchMs);
      this.flushTimer.unref?.();
    }
  }
}
