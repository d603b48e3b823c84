// The default sandbox engine: the model's code runs in QuickJS compiled to
// WebAssembly, inside a worker thread. Nothing exists in the guest but the
// standard built-ins, the API client and a console, so the boundary holds by
// construction: every API call is a message to this thread, which hands it to
// `callApi` (the egress gate) and sends back plain JSON.
//
// What the engine guarantees (with workerPool.ts, the workers; activeRun.ts, a
// run in flight; workerMessages.ts, what a worker reports):
// - A fresh QuickJS runtime and context per run; concurrent runs use
//   different workers and never share state.
// - The deadline is enforced twice: by the worker's interrupt handler, and by
//   a timer on this thread that cancels the run, then terminates the worker
//   if it does not answer. Time inside `whilePaused` does not count: the shared deadline
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
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { RunError, RunLimits, RunOutcome, RunRequest, SandboxEngine } from '../engine.ts';
import { silentLogger, type Logger } from '../../log/logger.ts';
import { WASM_MAX_PAGES, WASM_MIN_PAGES, WASM_PAGE, type ResolvedLimits } from './protocol.ts';
import { limitError } from '../runBudget.ts';
import { Wasm, type WasmModule } from './wasm.ts';
import { PoolClosed, WorkerPool, type Slot } from './workerPool.ts';
import { clearRunTimers, settle, startOnWorker, type ActiveRun } from './activeRun.ts';
import { onWorkerMessage, type MessageContext } from './workerMessages.ts';

export interface QuickJsEngineOptions {
  logger?: Logger;
  /** Idle workers kept warm (default 2). */
  poolSize?: number;
  /**
   * Compile QuickJS and start the warm workers at once (default true). When
   * false, they start at the first `warmUp()` or run: an idle companion does
   * not hold a worker (~25 MB) before anyone needs one.
   */
  warmAtStart?: boolean;
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
  /** The worker module (default: the one beside this module; tests point it at the built one). */
  workerUrl?: URL;
}

/**
 * The worker's module beside this one: TypeScript in a checkout, the built
 * `quickjsWorker.js` in the bundled app (electron-vite builds it as its own
 * entry in out/main, next to the main bundle).
 */
export function defaultWorkerUrl(moduleUrl: string = import.meta.url): URL {
  return new URL(moduleUrl.endsWith('.ts') ? './quickjsWorker.ts' : './quickjsWorker.js', moduleUrl);
}

export interface QuickJsEngineStats {
  /** Workers started since the engine was created. */
  workersStarted: number;
  /** Workers terminated to be replaced (after a limit, a failure or heap growth). */
  workersRecycled: number;
  liveWorkers: number;
  idleWorkers: number;
  /** Idle workers whose next sandbox is prepared (a run is sent to one of these first). */
  warmWorkers: number;
  queuedRuns: number;
  /** The shared budget: its size, the wasm memory counted against it now, and the most it ever held. */
  sandboxMemory: { budgetBytes: number; usedBytes: number; peakBytes: number };
  /** Client shapes sent to workers (each worker is sent a shape once, and keeps it). */
  shapesSent: number;
  /** Namespaces of clients that runs built (a run builds only what its code reaches: none for code that calls nothing). */
  clientNamespacesBuilt: number;
  /** Runs that compiled the prelude's extras: those that printed, failed or reached an unavailable API (guestPrelude.ts). */
  preludeExtrasCompiled: number;
}

export interface QuickJsEngine extends SandboxEngine {
  warmUp(): void;
  stats(): QuickJsEngineStats;
}

const MIB = 1024 * 1024;
export const DEFAULT_STACK_BYTES = MIB;
const MIN_STACK_BYTES = 64 * 1024;
const MAX_STACK_BYTES = 4 * MIB;
/** Warm instances are sized for this cap until a run says otherwise. */
const DEFAULT_MEMORY_BYTES = 64 * MIB;
/** Default budget of all sandboxes together. */
export const DEFAULT_SANDBOX_MEMORY_BYTES = 384 * MIB;
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

function fail(started: number, error: RunError): RunOutcome {
  return { ok: false, error, console: [], consoleTruncated: false, durationMs: performance.now() - started };
}

function describeBoundary(): string {
  return (
    'QuickJS (a JavaScript interpreter compiled to WebAssembly) running in a worker thread: the code has no filesystem, network, ' +
    'process, module loader or timers; the only things it can reach are the api client (every call goes through Airlock) and console. ' +
    'Each run gets a fresh QuickJS runtime and context and is capped in time (the deadline, not counting time waiting for a human approval), ' +
    'memory (a hard cap on the WebAssembly heap, at least 16 MB, within one memory budget shared by all runs in flight), call stack depth, and output (console plus return value).'
  );
}

export function createQuickJsEngine(options: QuickJsEngineOptions = {}): QuickJsEngine {
  const log = (options.logger ?? silentLogger).child('quickjs');
  const poolSize = Math.max(0, Math.floor(options.poolSize ?? 2));
  const maxWorkers = Math.max(1, poolSize, Math.floor(options.maxWorkers ?? Math.max(poolSize, 8)));
  let closed = false;
  let nextSeq = 0;
  /** What stats() reports beside the pool's. */
  const counts = { shapesSent: 0, clientNamespacesBuilt: 0, extrasCompiled: 0 };
  const pool: WorkerPool<ActiveRun> = new WorkerPool<ActiveRun>({
    log,
    workerUrl: options.workerUrl ?? defaultWorkerUrl(),
    poolSize,
    maxWorkers,
    sandboxMemoryBytes: options.sandboxMemoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES,
    warmStackMb: workerStackMb(DEFAULT_STACK_BYTES),
    warmPages: resolveLimits({ timeoutMs: 1, memoryBytes: options.memoryBytes ?? DEFAULT_MEMORY_BYTES, outputBytes: 0 }).memoryBytes / WASM_PAGE,
    wasm: () => compiled,
    onMessage: (slot, message) => onWorkerMessage(messages, slot, message),
    onRunLost: (run, kind) => {
      if (run.settled) return;
      const error: RunError = kind === 'memory' ? limitError('memory', run.limits) : { kind: 'internal', message: 'The QuickJS worker stopped unexpectedly' };
      settle(pool, run, { ok: false, error });
    },
    onRunDropped: (run) => clearRunTimers(run),
  });
  const messages: MessageContext = { log, pool, built: counts };

  async function run(request: RunRequest): Promise<RunOutcome> {
    const started = performance.now();
    if (closed) return fail(started, { kind: 'internal', message: 'The QuickJS engine is closed' });
    if (request.signal?.aborted) return fail(started, { kind: 'aborted', message: 'Execution was aborted' });
    const limits = resolveLimits(request.limits);
    const stackMb = workerStackMb(limits.stackBytes);
    pool.warmFor(stackMb, limits.memoryBytes / WASM_PAGE);

    let slot: Slot<ActiveRun>;
    try {
      await compiledQuickJs();
      slot = await pool.acquire(stackMb, request.signal);
    } catch (error) {
      if (request.signal?.aborted) return fail(started, { kind: 'aborted', message: 'Execution was aborted' });
      if (error instanceof PoolClosed || closed) return fail(started, { kind: 'aborted', message: 'The QuickJS engine was closed' });
      return fail(started, { kind: 'internal', message: 'The QuickJS engine could not start a worker' });
    }
    if (closed) return fail(started, { kind: 'aborted', message: 'The QuickJS engine was closed' });
    return startOnWorker(pool, slot, { seq: ++nextSeq, request, limits, started }, counts);
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await pool.close((active) => {
      if (!active.settled) settle(pool, active, { ok: false, error: limitError('aborted', active.limits, 'The QuickJS engine was closed') });
      clearRunTimers(active);
    });
  }

  // Pre-warm: compile the module and start the pool, so the first run does not pay for it.
  let warming = false;
  function warmUp(): void {
    if (warming || closed || poolSize === 0) return;
    warming = true;
    compiledQuickJs().then(
      () => {
        if (!closed) pool.replenish();
      },
      (error: unknown) => log.warn(`QuickJS could not be compiled: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
  if (options.warmAtStart !== false) warmUp();

  return {
    name: 'quickjs',
    describeBoundary,
    run,
    warmUp,
    close,
    stats: () => ({
      ...pool.stats(),
      shapesSent: counts.shapesSent,
      clientNamespacesBuilt: counts.clientNamespacesBuilt,
      preludeExtrasCompiled: counts.extrasCompiled,
    }),
  };
}
