// A run in flight on a QuickJS worker, as the engine's thread holds it: handed
// to its worker (the clock started, the caller's signal listened to, the
// client shapes the worker does not hold yet sent along), its deadline (a
// clock published to the worker's interrupt handler and parked while a person
// decides, the worker then not counting against maxWorkers), cancelled (the
// shared flag, a message, and a grace period before the worker is terminated)
// and settled, once, with its console.
import type { ClientRoot, ConsoleEntry, RunError, RunOutcome, RunRequest } from '../engine.ts';
import { CANCEL_ABORTED, CANCEL_NONE, CANCEL_TIMEOUT, PAUSED_DEADLINE, type HostToWorker, type ResolvedLimits, type WorkerOutcome } from './protocol.ts';
import { clientRoots } from '../guestClient.ts';
import { RunClock } from '../runClock.ts';
import { limitError } from '../runBudget.ts';
import { unlisten, type Slot, type WorkerPool } from './workerPool.ts';

/** How long a cancelled worker has to answer before it is terminated. */
const CANCEL_GRACE_MS = 500;
/** Client shapes a worker keeps between runs (Microsoft Graph's is 2 MB of text). */
const KEPT_SHAPES = 16;

export interface ActiveRun {
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

/** What a run needs of the pool: to say its worker waits for a person, and to replace a worker that does not stop. */
export type RunsPool = Pick<WorkerPool<ActiveRun>, 'paused' | 'recycle'>;

/**
 * Hands the run to the worker it acquired: the run is the slot's, its clock
 * starts, the caller's signal cancels it, and the 'run' message goes with the
 * shapes the worker lacks (each counted in `sent.shapesSent`). Resolves once
 * the run is settled.
 */
export function startOnWorker(
  pool: RunsPool,
  slot: Slot<ActiveRun>,
  run: { seq: number; request: RunRequest; limits: ResolvedLimits; started: number },
  sent: { shapesSent: number },
): Promise<RunOutcome> {
  const { request, limits } = run;
  return new Promise<RunOutcome>((resolve) => {
    const active: ActiveRun = {
      seq: run.seq,
      request,
      limits,
      started: run.started,
      console: [],
      stopping: false,
      settled: false,
      resolve,
      clock: runClock(slot, limits.timeoutMs, () => cancel(pool, slot, active, 'timeout')),
      signal: undefined,
      onAbort: undefined,
    };
    slot.run = active;
    Atomics.store(slot.control.cancel, 0, CANCEL_NONE);
    active.clock.start();
    const signal = request.signal;
    if (signal) {
      const onAbort = () => cancel(pool, slot, active, 'aborted');
      active.signal = signal;
      active.onAbort = onAbort;
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const roots = clientRoots(request.client);
    const shapes = shapesFor(slot, roots, active.seq);
    sent.shapesSent += shapes.shapes.length;
    slot.worker.postMessage({
      type: 'run',
      seq: active.seq,
      code: request.code,
      roots: roots.map((r) => ({ key: r.shape.key, idPrefix: r.idPrefix, globals: r.globals, ...(r.unavailable ? { unavailable: r.unavailable } : {}) })),
      ...shapes,
      limits,
    } satisfies HostToWorker);
    if (signal?.aborted) cancel(pool, slot, active, 'aborted');
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
  return { shapes, forget: drop };
}

// ---- deadline -------------------------------------------------------------

export function clearRunTimers(run: ActiveRun): void {
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

export function pause(pool: RunsPool, run: ActiveRun): void {
  if (run.settled) return;
  const first = !run.clock.paused;
  run.clock.pause();
  if (!first) return;
  // Its worker sits idle while a person decides: let another run have a worker.
  run.countedAsPaused = true;
  pool.paused(1);
}

function unpause(pool: RunsPool, run: ActiveRun): void {
  if (!run.countedAsPaused) return;
  run.countedAsPaused = false;
  pool.paused(-1);
}

export function resume(pool: RunsPool, run: ActiveRun): void {
  if (!run.clock.paused) return;
  run.clock.resume();
  if (!run.clock.paused) unpause(pool, run);
}

/**
 * Stops the run: the worker's interrupt handler sees the flag at once, and a
 * worker waiting on a host call gets the message. No further API call of the
 * run is forwarded. A timeout waits for the worker's own report (it carries
 * the last console lines); an abort settles now. A worker that does not
 * answer within the grace period is terminated.
 */
function cancel(pool: RunsPool, slot: Slot<ActiveRun>, run: ActiveRun, kind: 'timeout' | 'aborted'): void {
  if (run.settled || run.stopping) return;
  run.stopping = true;
  Atomics.store(slot.control.cancel, 0, kind === 'timeout' ? CANCEL_TIMEOUT : CANCEL_ABORTED);
  const error: RunError = limitError(kind, run.limits);
  if (kind === 'aborted') settle(pool, run, { ok: false, error });
  slot.worker.postMessage({ type: 'cancel', seq: run.seq } satisfies HostToWorker);
  run.graceTimer = setTimeout(() => {
    settle(pool, run, { ok: false, error });
    if (slot.run === run) pool.recycle(slot, 'did not stop after cancel');
  }, CANCEL_GRACE_MS);
}

export function settle(pool: RunsPool, run: ActiveRun, outcome: WorkerOutcome, consoleTruncated = false): void {
  if (run.settled) return;
  run.settled = true;
  unlisten(run);
  unpause(pool, run);
  run.clock.stop();
  const durationMs = performance.now() - run.started;
  const common = { console: run.console, consoleTruncated, durationMs };
  run.resolve(outcome.ok ? { ok: true, value: outcome.value, ...common } : { ok: false, error: outcome.error, ...common });
}
