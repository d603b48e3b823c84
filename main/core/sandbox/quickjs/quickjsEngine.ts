// The default sandbox engine: the model's code runs in QuickJS compiled to
// WebAssembly, inside a worker thread. Nothing exists in the guest but the
// standard built-ins, the API client and a console, so the boundary holds by
// construction: every API call is a message to this thread, which hands it to
// `callApi` (the egress gate) and sends back plain JSON.
//
// What this module guarantees:
// - A fresh QuickJS runtime and context per run; concurrent runs use
//   different workers and never share state.
// - The deadline is enforced twice: by the worker's interrupt handler, and by
//   a timer here that cancels the run, then terminates the worker if it does
//   not answer. Time inside `whilePaused` does not count: the shared deadline
//   is parked while a human decides.
// - The memory cap is the wasm memory's maximum. A worker whose run hit the
//   cap, failed inside the engine, ignored a cancel, or grew its heap past a
//   threshold is terminated and replaced, so host memory comes back.
// - All sandboxes together stay within one memory budget
//   (`sandboxMemoryBytes`, the `--sandbox-memory-mb` setting). The budget
//   counts wasm memory: every instance's initial pages and every growth, in
//   the pages QuickJS's wasm heap really has. Each worker owns one Int32 cell
//   of a SharedArrayBuffer shared by all of them; before growing its heap a
//   worker adds the growth to its cell, sums every cell, and takes it back
//   and refuses the growth if the sum is over the budget (protocol.ts
//   `reservePages`), so the guest gets an ordinary out-of-memory whose
//   message names the budget. The host zeroes a worker's cell once the
//   worker has exited (its memory is gone with the thread) and reuses the
//   cell. Not counted: each worker's own V8 heap and the engine itself
//   (`stats().sandboxMemory` reports the counted total and its peak).
// - `signal` aborts a run; `close()` settles every pending run and terminates
//   every worker. Idle workers do not keep the process alive.
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ApiCallRequest, ApiCallResult, ConsoleEntry, RunControl, RunError, RunLimits, RunOutcome, RunRequest, SandboxEngine } from '../engine.ts';
import { silentLogger, type Logger } from '../../log/logger.ts';
import {
  BUDGET_FIRST_CELL,
  BUDGET_PEAK,
  BUDGET_WORKER_CELLS,
  CANCEL_ABORTED,
  CANCEL_NONE,
  CANCEL_TIMEOUT,
  CONTROL_BYTES,
  PAUSED_DEADLINE,
  accountedPages,
  budgetBuffer,
  releasePages,
  WASM_MAX_PAGES,
  WASM_MIN_PAGES,
  WASM_PAGE,
  controlViews,
  type ControlViews,
  type HostToWorker,
  type ResolvedLimits,
  type WorkerData,
  type WorkerOutcome,
  type WorkerToHost,
} from './protocol.ts';
import { clientGlobals, clientTree } from '../guestClient.ts';
import { RunClock } from '../runClock.ts';
import { limitError } from '../runBudget.ts';
import { Wasm, type WasmModule } from './wasm.ts';

export interface QuickJsEngineOptions {
  logger?: Logger;
  /** Idle workers kept warm (default 2). */
  poolSize?: number;
  /**
   * Workers running guest code at once; further runs wait for one (default
   * max(poolSize, 8)). A worker whose run waits for a person (inside
   * `whilePaused`) does not count, so an approval never stalls other runs.
   */
  maxWorkers?: number;
  /**
   * Memory budget of all sandboxes together, in bytes (default 384 MiB): the
   * wasm memory of every worker's instances, counted in pages. Runs that
   * would take the total past it get a memory error naming the budget.
   */
  sandboxMemoryBytes?: number;
  /** The memory cap runs are expected to ask for: warm sandboxes are sized for it (default 64 MiB, then the last run's). */
  memoryBytes?: number;
}

export interface QuickJsEngineStats {
  /** Workers started since the engine was created. */
  workersStarted: number;
  /** Workers terminated to be replaced (after a limit, a failure or heap growth). */
  workersRecycled: number;
  liveWorkers: number;
  idleWorkers: number;
  queuedRuns: number;
  /** The shared budget: its size, the wasm memory counted against it now, and the most it ever held. */
  sandboxMemory: { budgetBytes: number; usedBytes: number; peakBytes: number };
}

export interface QuickJsEngine extends SandboxEngine {
  stats(): QuickJsEngineStats;
}

const MIB = 1024 * 1024;
export const DEFAULT_STACK_BYTES = MIB;
const MIN_STACK_BYTES = 64 * 1024;
const MAX_STACK_BYTES = 4 * MIB;
/** A worker whose wasm memory grew past this is replaced after the run. */
const RECYCLE_WASM_BYTES = 32 * MIB;
/** How long a cancelled worker has to answer before it is terminated. */
const CANCEL_GRACE_MS = 500;
/** Warm instances are sized for this cap until a run says otherwise. */
const DEFAULT_MEMORY_BYTES = 64 * MIB;
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
/** Default budget of all sandboxes together. */
export const DEFAULT_SANDBOX_MEMORY_BYTES = 384 * MIB;
/** Workers dying before they are ready this many times in a row stop the automatic restarts. */
const MAX_START_FAILURES = 3;

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function resolveLimits(limits: RunLimits): ResolvedLimits {
  const pages = clamp(Math.ceil((Number.isFinite(limits.memoryBytes) ? limits.memoryBytes : 0) / WASM_PAGE), WASM_MIN_PAGES, WASM_MAX_PAGES);
  return {
    timeoutMs: Math.max(1, Math.floor(Number.isFinite(limits.timeoutMs) ? limits.timeoutMs : 1)),
    memoryBytes: pages * WASM_PAGE,
    outputBytes: Math.max(0, Math.floor(Number.isFinite(limits.outputBytes) ? limits.outputBytes : 0)),
    stackBytes: clamp(Math.floor(limits.stackBytes ?? DEFAULT_STACK_BYTES), MIN_STACK_BYTES, MAX_STACK_BYTES),
  };
}

/** QuickJS frames live on the worker's native stack too: it must hold well over the QuickJS limit. */
function workerStackMb(stackBytes: number): number {
  return Math.max(4, Math.ceil((4 * stackBytes) / MIB));
}

let wasmModulePromise: Promise<WasmModule> | undefined;
let compiled: WasmModule | undefined;

/** The QuickJS wasm, compiled once per process and shared with every worker. */
function compiledQuickJs(): Promise<WasmModule> {
  wasmModulePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const fromLibrary = createRequire(require.resolve('quickjs-emscripten'));
    const bytes = await readFile(fromLibrary.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
    compiled = await Wasm.compile(bytes);
    return compiled;
  })();
  wasmModulePromise.catch(() => {
    wasmModulePromise = undefined;
  });
  return wasmModulePromise;
}

interface ActiveRun {
  seq: number;
  request: RunRequest;
  /**
   * The caller's signal and the listener on it, removed when the run settles.
   * Kept as fields rather than captured by a wrapper closure stored on the run:
   * that closure (holding the signal) made V8 promote every run's objects out
   * of the young generation, growing the main heap by ~25 MB over 10,000 runs.
   */
  signal?: AbortSignal;
  onAbort?: () => void;
  limits: ResolvedLimits;
  started: number;
  console: ConsoleEntry[];
  /** Cancelled (deadline or abort): waiting for the worker to stop. */
  stopping: boolean;
  settled: boolean;
  resolve(outcome: RunOutcome): void;
  /** The deadline, published to the worker's interrupt handler; parked while a person decides. */
  clock: RunClock;
  /** Counted in pausedWorkers (its worker does not count against maxWorkers). */
  countedAsPaused?: boolean;
  graceTimer?: NodeJS.Timeout;
}

interface Slot {
  id: number;
  worker: Worker;
  control: ControlViews;
  stackMb: number;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  /** The worker has a sandbox prepared for its next run. */
  warm: boolean;
  idleSince: number;
  run?: ActiveRun;
}

interface Waiter {
  stackMb: number;
  resolve(slot: Slot): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

class EngineClosed extends Error {}

/** Takes a run's or a waiter's listener off the caller's signal. */
function unlisten(holder: { signal?: AbortSignal; onAbort?: () => void }): void {
  if (holder.signal && holder.onAbort) holder.signal.removeEventListener('abort', holder.onAbort);
  holder.signal = undefined;
  holder.onAbort = undefined;
}

export function createQuickJsEngine(options: QuickJsEngineOptions = {}): QuickJsEngine {
  const log = (options.logger ?? silentLogger).child('quickjs');
  const poolSize = Math.max(0, Math.floor(options.poolSize ?? 2));
  const maxWorkers = Math.max(1, poolSize, Math.floor(options.maxWorkers ?? Math.max(poolSize, 8)));
  const slots = new Set<Slot>();
  const queue: Waiter[] = [];
  let pausedWorkers = 0;
  let closed = false;
  let nextSlotId = 0;
  let nextSeq = 0;
  let warmStackMb = workerStackMb(DEFAULT_STACK_BYTES);
  let warmPages = resolveLimits({ timeoutMs: 1, memoryBytes: options.memoryBytes ?? DEFAULT_MEMORY_BYTES, outputBytes: 0 }).memoryBytes / WASM_PAGE;
  let workersStarted = 0;
  let workersRecycled = 0;
  let startFailures = 0;
  const budgetBytes = Math.max(WASM_MIN_PAGES * WASM_PAGE, Math.floor(options.sandboxMemoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES));
  const budgetPages = Math.floor(budgetBytes / WASM_PAGE);
  const budgetCells = budgetBuffer();
  const budget = new Int32Array(budgetCells);
  /** Budget cells no live worker owns. */
  const freeCells = Array.from({ length: BUDGET_WORKER_CELLS }, (_, i) => BUDGET_FIRST_CELL + BUDGET_WORKER_CELLS - 1 - i);
  /** One promise per worker thread, settled when it has exited (close() waits for all of them). */
  const threadExits = new Set<Promise<void>>();

  function idleSlots(): Slot[] {
    return [...slots].filter((slot) => slot.state === 'idle');
  }

  /** The idle worker to use for a stack size: a warm one first, then the one idle the longest. */
  function pickIdle(stackMb: number): Slot | undefined {
    let best: Slot | undefined;
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

  function spawn(stackMb: number, wasmModule: WasmModule): Slot {
    const buffer = new SharedArrayBuffer(CONTROL_BYTES);
    const id = ++nextSlotId;
    const budgetCell = freeCells.pop()!;
    const worker = new Worker(new URL('./quickjsWorker.ts', import.meta.url), {
      workerData: { wasmModule, control: buffer, warmPages, budget: { cells: budgetCells, cell: budgetCell, pages: budgetPages } } satisfies WorkerData,
      resourceLimits: { stackSizeMb: stackMb, maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      // stdout carries the MCP protocol in stdio mode: the worker's stdout is never forwarded to ours
      // (the worker also sends its own stdout writes to stderr, so nothing accumulates here).
      stdout: true,
      stderr: false,
    });
    const slot: Slot = { id, worker, control: controlViews(buffer), stackMb, state: 'starting', warm: false, idleSince: 0 };
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
      onWorkerMessage(slot, message);
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

  function workerGone(slot: Slot, kind: 'memory' | 'internal'): void {
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
    if (run && !run.settled) {
      const error: RunError = kind === 'memory' ? limitError('memory', run.limits) : { kind: 'internal', message: 'The QuickJS worker stopped unexpectedly' };
      settle(run, { ok: false, error });
    }
    if (!closed) {
      replenish();
      serveQueue();
    }
  }

  function terminate(slot: Slot, reason: string): void {
    if (slot.state === 'dead') return;
    log.debug(`worker ${slot.id} terminated: ${reason}`);
    slot.state = 'dead';
    slots.delete(slot);
    if (slot.run) clearRunTimers(slot.run);
    slot.run = undefined;
    void slot.worker.terminate();
  }

  function recycle(slot: Slot, reason: string): void {
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
    if (closed || !compiled) return;
    const warm = [...slots].filter((slot) => (slot.state === 'idle' || slot.state === 'starting') && slot.stackMb === warmStackMb).length;
    for (let i = warm; i < poolSize && canSpawn(); i++) spawn(warmStackMb, compiled);
  }

  function markIdle(slot: Slot): void {
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

  function acquire(stackMb: number, signal: AbortSignal | undefined): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = { stackMb, resolve, reject, signal: undefined, onAbort: undefined };
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

  // ---- deadline -------------------------------------------------------------

  function clearRunTimers(run: ActiveRun): void {
    run.clock.stop();
    if (run.graceTimer) clearTimeout(run.graceTimer);
    run.graceTimer = undefined;
  }

  function runClock(slot: Slot, timeoutMs: number, onExpire: () => void): RunClock {
    return new RunClock({
      timeoutMs,
      onExpire,
      publish: (at) => Atomics.store(slot.control.deadline, 0, at === undefined ? PAUSED_DEADLINE : BigInt(at)),
    });
  }

  function pause(run: ActiveRun): void {
    if (run.settled) return;
    const first = !run.clock.paused;
    run.clock.pause();
    if (!first) return;
    // Its worker sits idle while a person decides: let another run have a worker.
    run.countedAsPaused = true;
    pausedWorkers++;
    serveQueue();
  }

  function unpause(run: ActiveRun): void {
    if (!run.countedAsPaused) return;
    run.countedAsPaused = false;
    pausedWorkers--;
  }

  function resume(run: ActiveRun): void {
    if (!run.clock.paused) return;
    run.clock.resume();
    if (!run.clock.paused) unpause(run);
  }

  /**
   * Stops the run: the worker's interrupt handler sees the flag at once, and a
   * worker waiting on a host call gets the message. No further API call of the
   * run is forwarded. A timeout waits for the worker's own report (it carries
   * the last console lines); an abort settles now. A worker that does not
   * answer within the grace period is terminated.
   */
  function cancel(slot: Slot, run: ActiveRun, kind: 'timeout' | 'aborted'): void {
    if (run.settled || run.stopping) return;
    run.stopping = true;
    Atomics.store(slot.control.cancel, 0, kind === 'timeout' ? CANCEL_TIMEOUT : CANCEL_ABORTED);
    const error: RunError = limitError(kind, run.limits);
    if (kind === 'aborted') settle(run, { ok: false, error });
    slot.worker.postMessage({ type: 'cancel', seq: run.seq } satisfies HostToWorker);
    run.graceTimer = setTimeout(() => {
      settle(run, { ok: false, error });
      if (slot.run === run) recycle(slot, 'did not stop after cancel');
    }, CANCEL_GRACE_MS);
  }

  function settle(run: ActiveRun, outcome: WorkerOutcome, consoleTruncated = false): void {
    if (run.settled) return;
    run.settled = true;
    unlisten(run);
    unpause(run);
    run.clock.stop();
    const durationMs = performance.now() - run.started;
    const common = { console: run.console, consoleTruncated, durationMs };
    run.resolve(outcome.ok ? { ok: true, value: outcome.value, ...common } : { ok: false, error: outcome.error, ...common });
  }

  // ---- messages from a worker -----------------------------------------------

  function onWorkerMessage(slot: Slot, message: WorkerToHost): void {
    const run = slot.run;
    if (!run || message.type === 'ready' || message.seq !== run.seq) return;
    switch (message.type) {
      case 'console':
        if (run.settled) return;
        for (const entry of message.entries) {
          run.console.push(entry);
          try {
            run.request.onConsole?.(entry);
          } catch (error) {
            log.warn(`onConsole listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        return;
      case 'call':
        // A stopping run forwards nothing: no API call may leave after the deadline or an abort.
        if (run.settled || run.stopping) return;
        void forwardCall(slot, run, message.callId, message.request);
        return;
      case 'done': {
        settle(run, message.outcome, message.consoleTruncated);
        clearRunTimers(run);
        slot.run = undefined;
        slot.warm = false;
        const kind = message.outcome.ok ? undefined : message.outcome.error.kind;
        if (message.recycle || kind === 'internal') recycle(slot, 'engine state unsound');
        else if (kind === 'memory' || message.wasmBytes > RECYCLE_WASM_BYTES) recycle(slot, 'wasm memory grew');
        else markIdle(slot);
        return;
      }
    }
  }

  async function forwardCall(slot: Slot, run: ActiveRun, callId: number, request: ApiCallRequest): Promise<void> {
    const control: RunControl = {
      whilePaused: async <T>(wait: () => Promise<T>): Promise<T> => {
        if (run.settled || slot.run !== run) return wait();
        pause(run);
        try {
          return await wait();
        } finally {
          resume(run);
        }
      },
    };
    let json: string;
    try {
      const result: ApiCallResult = await run.request.callApi(request, control);
      // Same shape as the subprocess engines give the guest: headers only when the gate sent some.
      json = JSON.stringify({ data: result.data ?? null, error: result.error ?? null, status: result.status, headers: result.headers });
    } catch (error) {
      log.warn(`callApi failed for ${request.operationId}: ${error instanceof Error ? error.name : 'error'}`);
      json = JSON.stringify({ data: null, error: { message: 'The API call failed inside Airlock' }, status: 0 });
    }
    if (run.settled || run.stopping || slot.run !== run || slot.state === 'dead') return;
    slot.worker.postMessage({ type: 'apiResult', seq: run.seq, callId, json } satisfies HostToWorker);
  }

  // ---- the engine -------------------------------------------------------------

  function fail(started: number, error: RunError): RunOutcome {
    return { ok: false, error, console: [], consoleTruncated: false, durationMs: performance.now() - started };
  }

  async function run(request: RunRequest): Promise<RunOutcome> {
    const started = performance.now();
    if (closed) return fail(started, { kind: 'internal', message: 'The QuickJS engine is closed' });
    if (request.signal?.aborted) return fail(started, { kind: 'aborted', message: 'Execution was aborted' });
    const limits = resolveLimits(request.limits);
    const stackMb = workerStackMb(limits.stackBytes);
    warmStackMb = stackMb;
    warmPages = limits.memoryBytes / WASM_PAGE;

    let slot: Slot;
    try {
      await compiledQuickJs();
      slot = await acquire(stackMb, request.signal);
    } catch (error) {
      if (request.signal?.aborted) return fail(started, { kind: 'aborted', message: 'Execution was aborted' });
      if (error instanceof EngineClosed || closed) return fail(started, { kind: 'aborted', message: 'The QuickJS engine was closed' });
      return fail(started, { kind: 'internal', message: 'The QuickJS engine could not start a worker' });
    }
    if (closed) return fail(started, { kind: 'aborted', message: 'The QuickJS engine was closed' });

    return new Promise<RunOutcome>((resolve) => {
      const active: ActiveRun = {
        seq: ++nextSeq,
        request,
        limits,
        started,
        console: [],
        stopping: false,
        settled: false,
        resolve,
        clock: runClock(slot, limits.timeoutMs, () => cancel(slot, active, 'timeout')),
        signal: undefined,
        onAbort: undefined,
      };
      slot.run = active;
      Atomics.store(slot.control.cancel, 0, CANCEL_NONE);
      active.clock.start();
      const signal = request.signal;
      if (signal) {
        const onAbort = () => cancel(slot, active, 'aborted');
        active.signal = signal;
        active.onAbort = onAbort;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      slot.worker.postMessage({
        type: 'run',
        seq: active.seq,
        code: request.code,
        tree: clientTree(request.client.operations),
        globals: clientGlobals(request.client.globals),
        operationIds: request.client.operations.map((operation) => operation.operationId),
        limits,
      } satisfies HostToWorker);
      if (signal?.aborted) cancel(slot, active, 'aborted');
    });
  }

  function describeBoundary(): string {
    return (
      'QuickJS (a JavaScript interpreter compiled to WebAssembly) running in a worker thread: the code has no filesystem, network, ' +
      'process, module loader or timers; the only things it can reach are the api client (every call goes through Airlock) and console. ' +
      'Each run gets a fresh QuickJS runtime and context and is capped in time (the deadline, not counting time waiting for a human approval), ' +
      'memory (a hard cap on the WebAssembly heap, at least 16 MB, within one memory budget shared by all runs in flight), call stack depth, and output (console plus return value).'
    );
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const waiter of queue.splice(0)) {
      unlisten(waiter);
      waiter.reject(new EngineClosed('closed'));
    }
    const terminations: Promise<number>[] = [];
    for (const slot of [...slots]) {
      const active = slot.run;
      if (active && !active.settled) settle(active, { ok: false, error: { kind: 'aborted', message: 'The QuickJS engine was closed' } });
      slot.state = 'dead';
      slots.delete(slot);
      if (active) clearRunTimers(active);
      slot.run = undefined;
      terminations.push(slot.worker.terminate());
    }
    await Promise.allSettled(terminations);
    // Workers recycled earlier may still be on their way out: close() returns once every thread has exited.
    await Promise.allSettled([...threadExits]);
  }

  // Pre-warm: compile the module and start the pool now, so the first run does not pay for it.
  if (poolSize > 0) {
    compiledQuickJs().then(
      () => replenish(),
      (error: unknown) => log.warn(`QuickJS could not be compiled: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  return {
    name: 'quickjs',
    describeBoundary,
    run,
    close,
    stats: () => ({
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
    }),
  };
}
