// The QuickJS engine's workers: starting them (each with a cell of the shared
// memory budget), keeping a few warm, handing them to runs in order, and
// replacing or stopping them. What a run does with its worker is the
// engine's (quickjsEngine.ts); this module only tells it when a worker went
// away under a run.
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

export type WorkerPool<R> = ReturnType<typeof createWorkerPool<R>>;

export function createWorkerPool<R>(config: WorkerPoolConfig<R>) {
  const { log, poolSize, maxWorkers } = config;
  const slots = new Set<Slot<R>>();
  const queue: Waiter<R>[] = [];
  let pausedWorkers = 0;
  let closed = false;
  let nextSlotId = 0;
  let warmStackMb = config.warmStackMb;
  let warmPages = config.warmPages;
  let workersStarted = 0;
  let workersRecycled = 0;
  let startFailures = 0;
  const budgetBytes = Math.max(WASM_MIN_PAGES * WASM_PAGE, Math.floor(config.sandboxMemoryBytes));
  const budgetPages = Math.floor(budgetBytes / WASM_PAGE);
  const budgetCells = budgetBuffer();
  const budget = new Int32Array(budgetCells);
  /** Budget cells no live worker owns. */
  const freeCells = Array.from({ length: BUDGET_WORKER_CELLS }, (_, i) => BUDGET_FIRST_CELL + BUDGET_WORKER_CELLS - 1 - i);
  /** One promise per worker thread, settled when it has exited (close() waits for all of them). */
  const threadExits = new Set<Promise<void>>();

  function idleSlots(): Slot<R>[] {
    return [...slots].filter((slot) => slot.state === 'idle');
  }

  /** The idle worker to use for a stack size: a warm one first, then the one idle the longest. */
  function pickIdle(stackMb: number): Slot<R> | undefined {
    let best: Slot<R> | undefined;
    for (const slot of slots) {
      if (slot.state !== 'idle' || slot.stackMb !== stackMb) continue;
      if (!best || (slot.warm && !best.warm) || (slot.warm === best.warm && slot.idleSince < best.idleSince)) best = slot;
    }
    return best;
  }

  /** A worker may start: under maxWorkers, and a budget cell is free for it. */
  function canSpawn(): boolean {
    return countedWorkers() < maxWorkers && freeCells.length > 0;
  }

  function spawn(stackMb: number, wasmModule: WasmModule): Slot<R> {
    const buffer = new SharedArrayBuffer(CONTROL_BYTES);
    const id = ++nextSlotId;
    const budgetCell = freeCells.pop()!;
    const worker = new Worker(config.workerUrl, {
      workerData: { wasmModule, control: buffer, warmPages, budget: { cells: budgetCells, cell: budgetCell, pages: budgetPages } } satisfies WorkerData,
      resourceLimits: { stackSizeMb: stackMb, maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      // stdout carries the MCP protocol in stdio mode: the worker's stdout is never forwarded to ours
      // (the worker also sends its own stdout writes to stderr, so nothing accumulates here).
      stdout: true,
      stderr: false,
    });
    const slot: Slot<R> = { id, worker, control: controlViews(buffer), stackMb, state: 'starting', warm: false, idleSince: 0, shapes: new Map() };
    slots.add(slot);
    workersStarted++;
    log.debug(`worker ${id} starting (stack ${stackMb} MB)`);
    worker.on('message', (message: WorkerToHost) => {
      if (message.type === 'ready') {
        slot.warm = true;
        if (slot.state === 'starting') {
          slot.state = 'idle';
          slot.idleSince = performance.now();
          startFailures = 0;
          worker.unref();
          serveQueue();
        }
        return;
      }
      config.onMessage(slot, message);
    });
    worker.on('error', (error) => {
      log.warn(`worker ${id} failed: ${error.name}: ${error.message}`);
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      workerGone(slot, outOfMemory ? 'memory' : 'internal');
    });
    let exited!: () => void;
    const exit = new Promise<void>((resolve) => (exited = resolve));
    worker.on('exit', () => {
      // The thread is gone and its wasm memory with it: its pages go back to the budget, its cell to the pool.
      releasePages(budget, budgetCell);
      freeCells.push(budgetCell);
      threadExits.delete(exit);
      exited();
      workerGone(slot, 'internal');
      if (!closed) serveQueue();
    });
    threadExits.add(exit);
    return slot;
  }

  function workerGone(slot: Slot<R>, kind: 'memory' | 'internal'): void {
    if (slot.state === 'dead') return;
    if (slot.state === 'starting' && ++startFailures >= MAX_START_FAILURES) {
      // Workers that die before they are ready would die again: fail the waiting runs instead of looping.
      log.error('QuickJS workers fail to start; runs are refused until the next attempt');
      for (const waiter of queue.splice(0)) {
        unlisten(waiter);
        waiter.reject(new Error('worker failed to start'));
      }
      startFailures = 0;
      slot.state = 'dead';
      slots.delete(slot);
      return;
    }
    slot.state = 'dead';
    slots.delete(slot);
    const run = slot.run;
    slot.run = undefined;
    if (run) config.onRunLost(run, kind);
    if (!closed) {
      replenish();
      serveQueue();
    }
  }

  function terminate(slot: Slot<R>, reason: string): void {
    if (slot.state === 'dead') return;
    log.debug(`worker ${slot.id} terminated: ${reason}`);
    slot.state = 'dead';
    slots.delete(slot);
    if (slot.run) config.onRunDropped(slot.run);
    slot.run = undefined;
    void slot.worker.terminate();
  }

  function recycle(slot: Slot<R>, reason: string): void {
    workersRecycled++;
    terminate(slot, reason);
    if (!closed) {
      replenish();
      serveQueue();
    }
  }

  /** Workers that count against maxWorkers: all but those whose run waits for a person. */
  function countedWorkers(): number {
    return slots.size - pausedWorkers;
  }

  /** Keeps `poolSize` warm workers with the most recently used stack size. */
  function replenish(): void {
    const compiled = config.wasm();
    if (closed || !compiled) return;
    const warm = [...slots].filter((slot) => (slot.state === 'idle' || slot.state === 'starting') && slot.stackMb === warmStackMb).length;
    for (let i = warm; i < poolSize && canSpawn(); i++) spawn(warmStackMb, compiled);
  }

  function markIdle(slot: Slot<R>): void {
    slot.state = 'idle';
    slot.idleSince = performance.now();
    slot.worker.unref();
    serveQueue();
    if (slot.state === 'idle' && idleSlots().length > poolSize) terminate(slot, 'pool is full');
  }

  /** Hands idle workers to waiting runs in order, and starts workers for the runs still waiting. */
  function serveQueue(): void {
    if (closed) return;
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i]!;
      const slot = pickIdle(waiter.stackMb);
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
    const compiled = config.wasm();
    if (queue.length === 0 || !compiled) return;
    const waiting = new Map<number, number>();
    for (const waiter of queue) waiting.set(waiter.stackMb, (waiting.get(waiter.stackMb) ?? 0) + 1);
    for (const [stackMb, count] of waiting) {
      const starting = [...slots].filter((slot) => slot.state === 'starting' && slot.stackMb === stackMb).length;
      for (let needed = count - starting; needed > 0 && canSpawn(); needed--) spawn(stackMb, compiled);
    }
    // At capacity with runs waiting for a stack size no idle worker has: make room.
    const spareIdle = idleSlots()[0];
    if (!canSpawn() && spareIdle) {
      terminate(spareIdle, 'making room for a different stack size');
      serveQueue();
    }
  }

  function acquire(stackMb: number, signal: AbortSignal | undefined): Promise<Slot<R>> {
    return new Promise<Slot<R>>((resolve, reject) => {
      const waiter: Waiter<R> = { stackMb, resolve, reject, signal: undefined, onAbort: undefined };
      if (signal) {
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          unlisten(waiter);
          reject(new Error('aborted'));
        };
        waiter.signal = signal;
        waiter.onAbort = onAbort;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      queue.push(waiter);
      serveQueue();
    });
  }

  return {
    acquire,
    markIdle,
    recycle,
    terminate,
    replenish,
    /** Later workers are prepared for this stack size and memory cap. */
    warmFor(stackMb: number, pages: number): void {
      warmStackMb = stackMb;
      warmPages = pages;
    },
    /** A run's worker waits for a person (+1) or is back at work (-1): it does not count against maxWorkers meanwhile. */
    paused(delta: 1 | -1): void {
      pausedWorkers += delta;
      if (delta > 0) serveQueue();
    },
    /** Rejects the waiting runs, hands each busy worker's run to `onActive`, terminates every worker and waits for the threads. */
    async close(onActive: (run: R) => void): Promise<void> {
      if (closed) return;
      closed = true;
      for (const waiter of queue.splice(0)) {
        unlisten(waiter);
        waiter.reject(new PoolClosed('closed'));
      }
      const terminations: Promise<number>[] = [];
      for (const slot of [...slots]) {
        const active = slot.run;
        slot.state = 'dead';
        slots.delete(slot);
        slot.run = undefined;
        if (active) onActive(active);
        terminations.push(slot.worker.terminate());
      }
      await Promise.allSettled(terminations);
      // Workers recycled earlier may still be on their way out: close() returns once every thread has exited.
      await Promise.allSettled([...threadExits]);
    },
    stats() {
      return {
        workersStarted,
        workersRecycled,
        liveWorkers: slots.size,
        idleWorkers: idleSlots().length,
        queuedRuns: queue.length,
        sandboxMemory: {
          budgetBytes: budgetPages * WASM_PAGE,
          usedBytes: accountedPages(budget) * WASM_PAGE,
          peakBytes: Atomics.load(budget, BUDGET_PEAK) * WASM_PAGE,
        },
      };
    },
  };
}
