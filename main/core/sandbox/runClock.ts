// A run's deadline, the same for every engine: it starts when the code is
// about to run, stops while the host waits on a person
// (`RunControl.whilePaused`, nested pauses counted), resumes with the time
// that was left, and calls `onExpire` once when it runs out. `publish` tells
// an engine's other side (the QuickJS worker's interrupt handler) the epoch
// ms at which the run expires, or `undefined` while paused or stopped.

export class RunClock {
  readonly timeoutMs: number;
  readonly #onExpire: () => void;
  readonly #publish: (deadlineAt: number | undefined) => void;
  readonly #now: () => number;
  #remainingMs: number;
  #deadlineAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #depth = 0;
  #state: 'idle' | 'running' | 'stopped' = 'idle';

  constructor(options: { timeoutMs: number; onExpire: () => void; publish?: (deadlineAt: number | undefined) => void; now?: () => number }) {
    this.timeoutMs = options.timeoutMs;
    this.#remainingMs = options.timeoutMs;
    this.#onExpire = options.onExpire;
    this.#publish = options.publish ?? (() => {});
    this.#now = options.now ?? Date.now;
  }

  /** The code is about to run: the deadline starts (unless a pause is already on). */
  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'running';
    if (this.#depth === 0) this.#arm();
    else this.#publish(undefined);
  }

  pause(): void {
    if (this.#depth++ > 0 || this.#state !== 'running') return;
    this.#remainingMs = Math.max(0, this.#deadlineAt - this.#now());
    this.#clear();
    this.#publish(undefined);
  }

  resume(): void {
    if (this.#depth === 0 || --this.#depth > 0 || this.#state !== 'running') return;
    this.#arm();
  }

  /** The run settled: no expiry after this. */
  stop(): void {
    this.#state = 'stopped';
    this.#clear();
  }

  get paused(): boolean {
    return this.#depth > 0;
  }

  /** Epoch ms of expiry while running and not paused. */
  get deadlineAt(): number | undefined {
    return this.#state === 'running' && this.#depth === 0 ? this.#deadlineAt : undefined;
  }

  #arm(): void {
    this.#clear();
    const ms = this.#remainingMs;
    this.#deadlineAt = this.#now() + ms;
    this.#publish(this.#deadlineAt);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#state !== 'running' || this.#depth > 0) return;
      this.#state = 'stopped';
      this.#onExpire();
    }, ms);
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
