// The engine the execute service holds: it forwards to the current engine
// and can be switched while the companion runs. A run keeps the engine it
// started on; the engine switched away from is closed once its last run has
// ended, so a change takes effect for the next run without cutting one short.
import type { EngineName, RunOutcome, RunRequest, SandboxEngine } from './engine.ts';

export class SwitchableEngine implements SandboxEngine {
  #current: SandboxEngine;
  readonly #inFlight = new Map<SandboxEngine, number>();
  readonly #retiring = new Set<SandboxEngine>();
  readonly #closing: Promise<void>[] = [];

  constructor(initial: SandboxEngine) {
    this.#current = initial;
  }

  get name(): EngineName {
    return this.#current.name;
  }

  describeBoundary(): string {
    return this.#current.describeBoundary();
  }

  warmUp(): void {
    this.#current.warmUp?.();
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const engine = this.#current;
    this.#inFlight.set(engine, (this.#inFlight.get(engine) ?? 0) + 1);
    try {
      return await engine.run(request);
    } finally {
      const left = (this.#inFlight.get(engine) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(engine, left);
      else {
        this.#inFlight.delete(engine);
        if (this.#retiring.has(engine)) this.#retire(engine);
      }
    }
  }

  /** The next run uses `next`; the previous engine closes when its runs have ended. */
  switchTo(next: SandboxEngine): void {
    const previous = this.#current;
    if (previous === next) return;
    this.#current = next;
    this.#retiring.add(previous);
    if (!this.#inFlight.has(previous)) this.#retire(previous);
  }

  /** Runs still going on engines switched away from. */
  get retiringRuns(): number {
    let n = 0;
    for (const engine of this.#retiring) n += this.#inFlight.get(engine) ?? 0;
    return n;
  }

  async close(): Promise<void> {
    const all = [this.#current, ...this.#retiring].map((engine) => engine.close());
    await Promise.allSettled([...all, ...this.#closing]);
  }

  #retire(engine: SandboxEngine): void {
    this.#retiring.delete(engine);
    this.#closing.push(engine.close().catch(() => undefined));
  }
}
