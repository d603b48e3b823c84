// Fairness and load caps for `execute`: a global concurrency cap with a
// bounded FIFO queue and a queue timeout (both ending in a retryable "at
// capacity" error), a per-caller concurrency cap (a busy caller's extra runs
// wait without blocking other callers), and a per-caller token bucket for
// HTTP calls.

export class CapacityError extends Error {
  readonly retryable = true;
}

export interface CapsOptions {
  maxConcurrent: number;
  queueSize: number;
  queueTimeoutMs: number;
  perCallerConcurrent: number;
}

interface Waiter {
  caller: string;
  grant: (release: () => void) => void;
  fail: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ExecutionCaps {
  private options: CapsOptions;
  private active = 0;
  private readonly perCaller = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  constructor(options: CapsOptions) {
    this.options = options;
  }

  /** New caps apply at once: runs already going keep going; a larger cap starts queued ones. */
  configure(options: Partial<CapsOptions>): void {
    this.options = { ...this.options, ...options };
    this.drain();
  }

  stats(): { active: number; queued: number; maxConcurrent: number; queueSize: number } {
    return { active: this.active, queued: this.queue.length, maxConcurrent: this.options.maxConcurrent, queueSize: this.options.queueSize };
  }

  /** Resolves with a release function once the caller may run; rejects with CapacityError. */
  acquire(caller: string, signal?: AbortSignal): Promise<() => void> {
    // Queued runs are all blocked (drain() starts any that can run), so a caller
    // that is eligible now overtakes nobody who could have started.
    if (this.eligible(caller)) return Promise.resolve(this.start(caller));
    if (this.queue.length >= this.options.queueSize) {
      return Promise.reject(
        new CapacityError(
          `Airlock is at capacity: ${this.active} runs active and ${this.queue.length} queued (the queue holds ${this.options.queueSize}). Retry in a few seconds.`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        caller,
        grant: resolve,
        fail: reject,
        timer: setTimeout(() => {
          this.remove(waiter);
          reject(
            new CapacityError(
              `Airlock is at capacity: waited ${this.options.queueTimeoutMs} ms in the queue without a free slot (${this.active} runs active). Retry in a few seconds.`,
            ),
          );
        }, this.options.queueTimeoutMs),
      };
      signal?.addEventListener('abort', () => {
        if (this.remove(waiter)) reject(new Error('cancelled while queued'));
      });
      this.queue.push(waiter);
    });
  }

  private eligible(caller: string): boolean {
    return this.active < this.options.maxConcurrent && (this.perCaller.get(caller) ?? 0) < this.options.perCallerConcurrent;
  }

  private start(caller: string): () => void {
    this.active++;
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const n = (this.perCaller.get(caller) ?? 1) - 1;
      if (n <= 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, n);
      this.drain();
    };
  }

  private remove(waiter: Waiter): boolean {
    const i = this.queue.indexOf(waiter);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    clearTimeout(waiter.timer);
    return true;
  }

  /** Starts queued runs in FIFO order, skipping callers at their own cap. */
  private drain(): void {
    for (let i = 0; i < this.queue.length && this.active < this.options.maxConcurrent;) {
      const w = this.queue[i]!;
      if (this.eligible(w.caller)) {
        this.queue.splice(i, 1);
        clearTimeout(w.timer);
        w.grant(this.start(w.caller));
      } else i++;
    }
  }
}

/** Per-key token buckets: `rate` tokens per second, up to `burst`. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private rate: number;
  private burst: number;
  private readonly now: () => number;

  constructor(rate: number, burst: number, now: () => number = () => performance.now()) {
    this.rate = rate;
    this.burst = Math.max(1, burst);
    this.now = now;
  }

  configure(rate: number, burst: number): void {
    this.rate = rate;
    this.burst = Math.max(1, burst);
    this.buckets.clear();
  }

  take(key: string): boolean {
    if (this.rate <= 0) return true; // 0 = unlimited
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(key, b);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value!);
    return ok;
  }
}
