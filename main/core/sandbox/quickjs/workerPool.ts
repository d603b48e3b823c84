// The QuickJS engine's workers: starting them (each with a cell of the shared
// memory budget), keeping a few warm, handing them to runs in order, and
// replacing or stopping them. What a run does with its worker is the
// engine's (quickjsEngine.ts, activeRun.ts, workerMessages.ts); this module
// only tells it when a worker went away under a run.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log/logger.ts';
import {
  BUDGET_FIRST_CELL,
  BUDGET_PEAK,
  BUDGET_WORKER_CELLS,
  CONTROL_BYTES,
  accountedPages,
  budgetBuffer,
  releasePages,
  WASM_MIN_PAGES,
  WASM_PAGE,
  controlViews,
  type ControlViews,
  type WorkerData,
  type WorkerToHost,
} from './protocol.ts';
import type { WasmModule } from './wasm.ts';

/** The worker's own JS heap (console buffers, JSON in transit); the guest lives in wasm memory. */
const WORKER_HEAP_MB = 256;
/**
 * The worker's young generation. V8's default lets it grow to tens of MB under
 * the steady churn of runs (each builds a QuickJS runtime and its handles), and
 * a grown heap is never handed back: capped, a worker's heap stays near 13 MB
 * over 10,000 runs instead of climbing past 40 MB, at no measurable cost in
 * latency (bench/soak.bench.ts).
 */
const WORKER_YOUNG_GENERATION_MB = 4;
/** Workers dying before they are ready this many times in a row stop the automatic restarts. */
const MAX_START_FAILURES = 3;

export interface Slot<R> {
  id: number;
  worker: Worker;
  control: ControlViews;
  stackMb: number;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  /** The worker has a sandbox prepared for its next run. */
  warm: boolean;
  idleSince: number;
  /** The client shapes this worker holds (it keeps what it was sent), each with the last run that used it. */
  shapes: Map<string, number>;
  run?: R;
}

interface Waiter<R> {
  stackMb: number;
  resolve(slot: Slot<R>): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class PoolClosed extends Error {}

/** Takes a run's or a waiter's listener off the caller's signal. */
export function unlisten(holder: { signal?: AbortSignal; onAbort?: () => void }): void {
  if (holder.signal && holder.onAbort) holder.signal.removeEventListener('abort', holder.onAbort);
  holder.signal = undefined;
  holder.onAbort = undefined;
}

export interface WorkerPoolConfig<R> {
  log: Logger;
  workerUrl: URL;
  /** Idle workers kept warm. */
  poolSize: number;
  /** Workers running guest code at once (those waiting for a person do not count). */
  maxWorkers: number;
  sandboxMemoryBytes: number;
  warmStackMb: number;
  warmPages: number;
  /** The compiled QuickJS module, once it is. */
  wasm(): WasmModule | undefined;
  onMessage(slot: Slot<R>, message: WorkerToHost): void;
  /** The worker died under a run (out of memory, or a crash). */
  onRunLost(run: R, kind: 'memory' | 'internal'): void;
  /** The worker was terminated under a run: stop its timers. */
  onRunDropped(run: R): void;
}

/** The host side of the memory budget the workers share: its cells, one for each live worker, and what they hold. */
class BudgetCells {
  readonly pages: number;
  readonly #buffer = budgetBuffer();
  readonly #cells = new Int32Array(this.#buffer);
  /** Budget cells no live worker owns. */
  readonly #free = Array.from({ length: BUDGET_WORKER_CELLS }, (_, i) => BUDGET_FIRST_CELL + BUDGET_WORKER_CELLS - 1 - i);

  constructor(sandboxMemoryBytes: number) {
    const budgetBytes = Math.max(WASM_MIN_PAGES * WASM_PAGE, Math.floor(sandboxMemoryBytes));
    this.pages = Math.floor(budgetBytes / WASM_PAGE);
  }

  get hasFree(): boolean {
    return this.#free.length > 0;
  }

  /** A free cell for a new worker, as its workerData carries the budget. */
  claim(): WorkerData['budget'] {
    return { cells: this.#buffer, cell: this.#free.pop()!, pages: this.pages };
  }

  /** The worker owning `cell` has exited, its wasm memory gone with the thread: its pages go back to the budget, its cell to the free ones. */
  release(cell: number): void {
    releasePages(this.#cells, cell);
    this.#free.push(cell);
  }

  usage(): { budgetBytes: number; usedBytes: number; peakBytes: number } {
    return {
      budgetBytes: this.pages * WASM_PAGE,
      usedBytes: accountedPages(this.#cells) * WASM_PAGE,
      peakBytes: Atomics.load(this.#cells, BUDGET_PEAK) * WASM_PAGE,
    };
  }
}

/** A worker thread with its limits: a native stack for the runs' QuickJS stack, a bounded JS heap, and none of its stdout in ours. */
function startThread(workerUrl: URL, stackMb: number, workerData: WorkerData): Worker {
  return new Worker(workerUrl, {
    workerData,
    resourceLimits: { stackSizeMb: stackMb, maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    // stdout carries the MCP protocol in stdio mode: the worker's stdout is never forwarded to ours
    // (the worker also sends its own stdout writes to stderr, so nothing accumulates here).
    stdout: true,
    stderr: false,
  });
}

export class WorkerPool<R> {
  readonly #config: WorkerPoolConfig<R>;
  readonly #log: Logger;
  readonly #poolSize: number;
  readonly #maxWorkers: number;
  readonly #slots = new Set<Slot<R>>();
  readonly #queue: Waiter<R>[] = [];
  readonly #budget: BudgetCells;
  /** One promise per worker thread, settled when it has exited (close() waits for all of them). */
  readonly #threadExits = new Set<Promise<void>>();
  #pausedWorkers = 0;
  #closed = false;
  #nextSlotId = 0;
  #warmStackMb: number;
  #warmPages: number;
  #workersStarted = 0;
  #workersRecycled = 0;
  #startFailures = 0;

  constructor(config: WorkerPoolConfig<R>) {
    this.#config = config;
    this.#log = config.log;
    this.#poolSize = config.poolSize;
    this.#maxWorkers = config.maxWorkers;
    this.#warmStackMb = config.warmStackMb;
    this.#warmPages = config.warmPages;
    this.#budget = new BudgetCells(config.sandboxMemoryBytes);
  }

  acquire(stackMb: number, signal: AbortSignal | undefined): Promise<Slot<R>> {
    return new Promise<Slot<R>>((resolve, reject) => {
      const waiter: Waiter<R> = { stackMb, resolve, reject, signal: undefined, onAbort: undefined };
      if (signal) {
        const onAbort = () => {
          const index = this.#queue.indexOf(waiter);
          if (index >= 0) this.#queue.splice(index, 1);
          unlisten(waiter);
          reject(new Error('aborted'));
        };
        waiter.signal = signal;
        waiter.onAbort = onAbort;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.#queue.push(waiter);
      this.#serveQueue();
    });
  }

  markIdle(slot: Slot<R>): void {
    slot.state = 'idle';
    slot.idleSince = performance.now();
    slot.worker.unref();
    this.#serveQueue();
    if (slot.state === 'idle' && this.#idleSlots().length > this.#poolSize) this.terminate(slot, 'pool is full');
  }

  recycle(slot: Slot<R>, reason: string): void {
    this.#workersRecycled++;
    this.terminate(slot, reason);
    if (!this.#closed) {
      this.replenish();
      this.#serveQueue();
    }
  }

  terminate(slot: Slot<R>, reason: string): void {
    if (slot.state === 'dead') return;
    this.#log.debug(`worker ${slot.id} terminated: ${reason}`);
    slot.state = 'dead';
    this.#slots.delete(slot);
    if (slot.run) this.#config.onRunDropped(slot.run);
    slot.run = undefined;
    void slot.worker.terminate();
  }

  /** Keeps `poolSize` warm workers with the most recently used stack size. */
  replenish(): void {
    const compiled = this.#config.wasm();
    if (this.#closed || !compiled) return;
    const warmStackMb = this.#warmStackMb;
    const warm = [...this.#slots].filter((slot) => (slot.state === 'idle' || slot.state === 'starting') && slot.stackMb === warmStackMb).length;
    for (let i = warm; i < this.#poolSize && this.#canSpawn(); i++) this.#spawn(warmStackMb, compiled);
  }

  /** Later workers are prepared for this stack size and memory cap. */
  warmFor(stackMb: number, pages: number): void {
    this.#warmStackMb = stackMb;
    this.#warmPages = pages;
  }

  /** A run's worker waits for a person (+1) or is back at work (-1): it does not count against maxWorkers meanwhile. */
  paused(delta: 1 | -1): void {
    this.#pausedWorkers += delta;
    if (delta > 0) this.#serveQueue();
  }

  /** Rejects the waiting runs, hands each busy worker's run to `onActive`, terminates every worker and waits for the threads. */
  async close(onActive: (run: R) => void): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#rejectWaiting(() => new PoolClosed('closed'));
    const terminations: Promise<number>[] = [];
    for (const slot of [...this.#slots]) {
      const active = slot.run;
      slot.state = 'dead';
      this.#slots.delete(slot);
      slot.run = undefined;
      if (active) onActive(active);
      terminations.push(slot.worker.terminate());
    }
    await Promise.allSettled(terminations);
    // Workers recycled earlier may still be on their way out: close() returns once every thread has exited.
    await Promise.allSettled([...this.#threadExits]);
  }

  stats() {
    return {
      workersStarted: this.#workersStarted,
      workersRecycled: this.#workersRecycled,
      liveWorkers: this.#slots.size,
      idleWorkers: this.#idleSlots().length,
      warmWorkers: this.#idleSlots().filter((slot) => slot.warm).length,
      queuedRuns: this.#queue.length,
      sandboxMemory: this.#budget.usage(),
    };
  }

  #idleSlots(): Slot<R>[] {
    return [...this.#slots].filter((slot) => slot.state === 'idle');
  }

  /** The idle worker to use for a stack size: a warm one first, then the one idle the longest. */
  #pickIdle(stackMb: number): Slot<R> | undefined {
    let best: Slot<R> | undefined;
    for (const slot of this.#slots) {
      if (slot.state !== 'idle' || slot.stackMb !== stackMb) continue;
      if (!best || (slot.warm && !best.warm) || (slot.warm === best.warm && slot.idleSince < best.idleSince)) best = slot;
    }
    return best;
  }

  /** Workers that count against maxWorkers: all but those whose run waits for a person. */
  #countedWorkers(): number {
    return this.#slots.size - this.#pausedWorkers;
  }

  /** A worker may start: under maxWorkers, and a budget cell is free for it. */
  #canSpawn(): boolean {
    return this.#countedWorkers() < this.#maxWorkers && this.#budget.hasFree;
  }

  #rejectWaiting(error: () => Error): void {
    for (const waiter of this.#queue.splice(0)) {
      unlisten(waiter);
      waiter.reject(error());
    }
  }

  #spawn(stackMb: number, wasmModule: WasmModule): Slot<R> {
    const buffer = new SharedArrayBuffer(CONTROL_BYTES);
    const id = ++this.#nextSlotId;
    const budget = this.#budget.claim();
    const worker = startThread(this.#config.workerUrl, stackMb, { wasmModule, control: buffer, warmPages: this.#warmPages, budget });
    const slot: Slot<R> = { id, worker, control: controlViews(buffer), stackMb, state: 'starting', warm: false, idleSince: 0, shapes: new Map() };
    this.#slots.add(slot);
    this.#workersStarted++;
    this.#log.debug(`worker ${id} starting (stack ${stackMb} MB)`);
    worker.on('message', (message: WorkerToHost) => {
      if (message.type === 'ready') {
        slot.warm = true;
        if (slot.state === 'starting') {
          slot.state = 'idle';
          slot.idleSince = performance.now();
          this.#startFailures = 0;
          worker.unref();
          this.#serveQueue();
        }
        return;
      }
      this.#config.onMessage(slot, message);
    });
    worker.on('error', (error) => {
      this.#log.warn(`worker ${id} failed: ${error.name}: ${error.message}`);
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.#workerGone(slot, outOfMemory ? 'memory' : 'internal');
    });
    let exited!: () => void;
    const exit = new Promise<void>((resolve) => (exited = resolve));
    worker.on('exit', () => {
      // The thread is gone and its wasm memory with it: its pages go back to the budget, its cell to the pool.
      this.#budget.release(budget.cell);
      this.#threadExits.delete(exit);
      exited();
      this.#workerGone(slot, 'internal');
      if (!this.#closed) this.#serveQueue();
    });
    this.#threadExits.add(exit);
    return slot;
  }

  #workerGone(slot: Slot<R>, kind: 'memory' | 'internal'): void {
    if (slot.state === 'dead') return;
    if (slot.state === 'starting' && ++this.#startFailures >= MAX_START_FAILURES) {
      // Workers that die before they are ready would die again: fail the waiting runs instead of looping.
      this.#log.error('QuickJS workers fail to start; runs are refused until the next attempt');
      this.#rejectWaiting(() => new Error('worker failed to start'));
      this.#startFailures = 0;
      slot.state = 'dead';
      this.#slots.delete(slot);
      return;
    }
    slot.state = 'dead';
    this.#slots.delete(slot);
    const run = slot.run;
    slot.run = undefined;
    if (run) this.#config.onRunLost(run, kind);
    if (!this.#closed) {
      this.replenish();
      this.#serveQueue();
    }
  }

  /** Hands idle workers to waiting runs in order, and starts workers for the runs still waiting. */
  #serveQueue(): void {
    if (this.#closed) return;
    const queue = this.#queue;
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i]!;
      const slot = this.#pickIdle(waiter.stackMb);
      if (!slot) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      slot.state = 'busy';
      slot.warm = false;
      slot.worker.ref();
      unlisten(waiter);
      waiter.resolve(slot);
    }
    const compiled = this.#config.wasm();
    if (queue.length === 0 || !compiled) return;
    const waiting = new Map<number, number>();
    for (const waiter of queue) waiting.set(waiter.stackMb, (waiting.get(waiter.stackMb) ?? 0) + 1);
    for (const [stackMb, count] of waiting) {
      const starting = [...this.#slots].filter((slot) => slot.state === 'starting' && slot.stackMb === stackMb).length;
      for (let needed = count - starting; needed > 0 && this.#canSpawn(); needed--) this.#spawn(stackMb, compiled);
    }
    // At capacity with runs waiting for a stack size no idle worker has: make room.
    const spareIdle = this.#idleSlots()[0];
    if (!this.#canSpawn() && spareIdle) {
      this.terminate(spareIdle, 'making room for a different stack size');
      this.#serveQueue();
    }
  }
}
