// When a stdio MCP server that crashed is started again (issue 20): after a
// delay that doubles with each crash in a row (1 s, 2 s, 4 s… up to a
// ceiling), and not at all once it has crashed `maxCrashes` times within
// `windowMs` — a crash loop — until a person starts it again, with the reason
// kept to show. A run that stayed up past `windowMs` counts as recovered: the
// next crash starts the count again. Time comes from a clock seam, so the
// rule is tested without waiting.
export interface RestartPolicyOptions {
  /** The first delay, doubled with each crash in a row. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** This many crashes within `windowMs`… */
  maxCrashes?: number;
  /** …stop the server until a person starts it again. */
  windowMs?: number;
  now?: () => number;
}

export type RestartDecision = { restart: true; afterMs: number } | { restart: false; reason: string };

export class RestartPolicy {
  private readonly base: number;
  private readonly max: number;
  private readonly maxCrashes: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private crashes: number[] = [];
  private stoppedReason: string | undefined;

  constructor(options: RestartPolicyOptions = {}) {
    this.base = options.baseDelayMs ?? 1000;
    this.max = options.maxDelayMs ?? 60_000;
    this.maxCrashes = options.maxCrashes ?? 5;
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** A crash just happened (`why`: its exit code or signal, its last stderr line): whether, and when, to start again. */
  crashed(why: string): RestartDecision {
    if (this.stoppedReason) return { restart: false, reason: this.stoppedReason };
    const at = this.now();
    this.crashes = [...this.crashes.filter((t) => at - t < this.windowMs), at];
    if (this.crashes.length >= this.maxCrashes) {
      this.stoppedReason = `crashed ${this.crashes.length} times in ${Math.round(this.windowMs / 60_000)} min (last: ${why}); stopped until started again`;
      return { restart: false, reason: this.stoppedReason };
    }
    return { restart: true, afterMs: Math.min(this.max, this.base * 2 ** (this.crashes.length - 1)) };
  }

  /** Why it is stopped, while it is. */
  get stopped(): string | undefined {
    return this.stoppedReason;
  }

  /** A person starts it again: the count starts over. */
  reset(): void {
    this.crashes = [];
    this.stoppedReason = undefined;
  }
}
