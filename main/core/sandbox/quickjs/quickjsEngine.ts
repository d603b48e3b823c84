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
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type {
  ApiCallRequest,
  ApiCallResult,
  ClientRoot,
  ConsoleEntry,
  RunControl,
  RunError,
  RunLimits,
  RunOutcome,
  RunRequest,
  SandboxEngine,
} from '../engine.ts';
import { silentLogger, type Logger } from '../../log/logger.ts';
import {
  CANCEL_ABORTED,
  CANCEL_NONE,
  CANCEL_TIMEOUT,
  PAUSED_DEADLINE,
  WASM_MAX_PAGES,
  WASM_MIN_PAGES,
  WASM_PAGE,
  type HostToWorker,
  type ResolvedLimits,
  type WorkerOutcome,
  type WorkerToHost,
} from './protocol.ts';
import { clientRoots } from '../guestClient.ts';
import { RunClock } from '../runClock.ts';
import { limitError } from '../runBudget.ts';
import { Wasm, type WasmModule } from './wasm.ts';
import { PoolClosed, unlisten, WorkerPool, type Slot } from './workerPool.ts';

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
  queuedRuns: number;
  /** The shared budget: its size, the wasm memory counted against it now, and the most it ever held. */
  sandboxMemory: { budgetBytes: number; usedBytes: number; peakBytes: number };
  /** Client shapes sent to workers (each worker is sent a shape once, and keeps it). */
  shapesSent: number;
  /** Namespaces of clients that runs built (a run builds only what its code reaches: none for code that calls nothing). */
  clientNamespacesBuilt: number;
}

export interface QuickJsEngine extends SandboxEngine {
  warmUp(): void;
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
/** Client shapes a worker keeps between runs (Microsoft Graph's is 2 MB of text). */
const KEPT_SHAPES = 16;
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

export function createQuickJsEngine(options: QuickJsEngineOptions = {}): QuickJsEngine {
  const log = (options.logger ?? silentLogger).child('quickjs');
  const poolSize = Math.max(0, Math.floor(options.poolSize ?? 2));
  const maxWorkers = Math.max(1, poolSize, Math.floor(options.maxWorkers ?? Math.max(poolSize, 8)));
  let closed = false;
  let nextSeq = 0;
  let shapesSent = 0;
  let clientNamespacesBuilt = 0;
  const pool: WorkerPool<ActiveRun> = new WorkerPool<ActiveRun>({
    log,
    workerUrl: options.workerUrl ?? defaultWorkerUrl(),
    poolSize,
    maxWorkers,
    sandboxMemoryBytes: options.sandboxMemoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES,
    warmStackMb: workerStackMb(DEFAULT_STACK_BYTES),
    warmPages: resolveLimits({ timeoutMs: 1, memoryBytes: options.memoryBytes ?? DEFAULT_MEMORY_BYTES, outputBytes: 0 }).memoryBytes / WASM_PAGE,
    wasm: () => compiled,
    onMessage: (slot, message) => onWorkerMessage(slot, message),
    onRunLost: (run, kind) => {
      if (run.settled) return;
      const error: RunError = kind === 'memory' ? limitError('memory', run.limits) : { kind: 'internal', message: 'The QuickJS worker stopped unexpectedly' };
      settle(run, { ok: false, error });
    },
    onRunDropped: (run) => clearRunTimers(run),
  });

  // ---- deadline -------------------------------------------------------------

  function clearRunTimers(run: ActiveRun): void {
    run.clock.stop();
    if (run.graceTimer) clearTimeout(run.graceTimer);
    run.graceTimer = undefined;
  }

  function runClock(slot: Slot<ActiveRun>, timeoutMs: number, onExpire: () => void): RunClock {
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
    pool.paused(1);
  }

  function unpause(run: ActiveRun): void {
    if (!run.countedAsPaused) return;
    run.countedAsPaused = false;
    pool.paused(-1);
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
  function cancel(slot: Slot<ActiveRun>, run: ActiveRun, kind: 'timeout' | 'aborted'): void {
    if (run.settled || run.stopping) return;
    run.stopping = true;
    Atomics.store(slot.control.cancel, 0, kind === 'timeout' ? CANCEL_TIMEOUT : CANCEL_ABORTED);
    const error: RunError = limitError(kind, run.limits);
    if (kind === 'aborted') settle(run, { ok: false, error });
    slot.worker.postMessage({ type: 'cancel', seq: run.seq } satisfies HostToWorker);
    run.graceTimer = setTimeout(() => {
      settle(run, { ok: false, error });
      if (slot.run === run) pool.recycle(slot, 'did not stop after cancel');
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

  function onWorkerMessage(slot: Slot<ActiveRun>, message: WorkerToHost): void {
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
        clientNamespacesBuilt += message.clientNamespaces;
        settle(run, message.outcome, message.consoleTruncated);
        clearRunTimers(run);
        slot.run = undefined;
        slot.warm = false;
        const kind = message.outcome.ok ? undefined : message.outcome.error.kind;
        if (message.recycle || kind === 'internal') pool.recycle(slot, 'engine state unsound');
        else if (kind === 'memory' || message.wasmBytes > RECYCLE_WASM_BYTES) pool.recycle(slot, 'wasm memory grew');
        else pool.markIdle(slot);
        return;
      }
    }
  }

  async function forwardCall(slot: Slot<ActiveRun>, run: ActiveRun, callId: number, request: ApiCallRequest): Promise<void> {
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
      const roots = clientRoots(request.client);
      slot.worker.postMessage({
        type: 'run',
        seq: active.seq,
        code: request.code,
        roots: roots.map((r) => ({ key: r.shape.key, idPrefix: r.idPrefix, globals: r.globals, ...(r.unavailable ? { unavailable: r.unavailable } : {}) })),
        ...shapesFor(slot, roots, active.seq),
        limits,
      } satisfies HostToWorker);
      if (signal?.aborted) cancel(slot, active, 'aborted');
    });
  }

  /** The shapes a run needs that its worker does not hold yet, and those it may drop (the least recently used beyond a few). */
  function shapesFor(slot: Slot<ActiveRun>, roots: readonly ClientRoot[], seq: number): { shapes: { key: string; json: string }[]; forget: string[] } {
    const shapes: { key: string; json: string }[] = [];
    for (const { shape, unavailable } of roots) {
      if (unavailable) continue;
      if (!slot.shapes.has(shape.key) && !shapes.some((s) => s.key === shape.key)) shapes.push({ key: shape.key, json: shape.json });
      slot.shapes.set(shape.key, seq);
    }
    const forget = [...slot.shapes].filter(([, last]) => last !== seq).sort((a, b) => a[1] - b[1]);
    const drop = forget.slice(0, Math.max(0, slot.shapes.size - KEPT_SHAPES)).map(([key]) => key);
    for (const key of drop) slot.shapes.delete(key);
    shapesSent += shapes.length;
    return { shapes, forget: drop };
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
    await pool.close((active) => {
      if (!active.settled) settle(active, { ok: false, error: limitError('aborted', active.limits, 'The QuickJS engine was closed') });
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
    stats: () => ({ ...pool.stats(), shapesSent, clientNamespacesBuilt }),
  };
}
