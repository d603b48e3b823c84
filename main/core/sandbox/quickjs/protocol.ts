// The contract between the QuickJS engine (main thread) and its worker
// threads: the messages each side sends, the shared control block both read,
// and the limits once resolved. Both sides import this module, so a change to
// the protocol is a type error on both ends rather than a silent mismatch.
//
// The control block is a SharedArrayBuffer the host writes and the worker's
// QuickJS interrupt handler reads on every poll: a cancel reason and the
// run's deadline (epoch milliseconds). While the host waits for a human
// (`RunControl.whilePaused`) it parks the deadline at PAUSED_DEADLINE, so
// paused time never counts against the run.
//
// The memory budget is a second SharedArrayBuffer, one for the engine, shared
// by every worker: Int32 cells counting wasm pages. Cell 0 is the high-water
// mark of the total, cell 1 a generation bumped whenever pages are handed
// back (a starting run waits on it), and each live worker owns one of the
// other cells. How the total is kept within the budget is `reservePages`.

import type { ApiCallRequest, ConsoleEntry, RunError } from '../engine.ts';
import type { WasmModule } from './wasm.ts';

/** Layout of the shared control block: Int32 cancel reason at 0, BigInt64 deadline at byte 8. */
export const CONTROL_BYTES = 16;
export const CANCEL_NONE = 0;
export const CANCEL_TIMEOUT = 1;
export const CANCEL_ABORTED = 2;
/** The deadline while the clock is paused: far enough to never pass. */
export const PAUSED_DEADLINE = 2n ** 62n;

export interface ControlViews {
  cancel: Int32Array;
  deadline: BigInt64Array;
}

export function controlViews(buffer: SharedArrayBuffer): ControlViews {
  return { cancel: new Int32Array(buffer, 0, 1), deadline: new BigInt64Array(buffer, 8, 1) };
}

/** Bytes in one wasm page. */
export const WASM_PAGE = 65536;
/** The QuickJS module's own minimum memory (its static data, C stack and first heap): 16 MiB. */
export const WASM_MIN_PAGES = 256;
/** The module's declared maximum (wasm32): 2 GiB. */
export const WASM_MAX_PAGES = 32768;

/** Budget cells: the high-water mark of the total (pages), the release generation, then one cell per worker. */
export const BUDGET_PEAK = 0;
export const BUDGET_GENERATION = 1;
export const BUDGET_FIRST_CELL = 2;
/** Worker cells in a budget buffer: far more than the workers an engine runs at once (4 KiB in all). */
export const BUDGET_WORKER_CELLS = 1024;

export function budgetBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer((BUDGET_FIRST_CELL + BUDGET_WORKER_CELLS) * Int32Array.BYTES_PER_ELEMENT);
}

/** Wasm pages all workers hold together: the sum of the worker cells. */
export function accountedPages(cells: Int32Array): number {
  let total = 0;
  for (let i = BUDGET_FIRST_CELL; i < cells.length; i++) total += Atomics.load(cells, i);
  return total;
}

/**
 * Asks for `pages` more wasm pages for the worker owning `cell`. The pages are
 * added to the worker's own cell first, then every cell is summed: if the sum
 * is over the budget the pages are taken back and the answer is no. Each
 * grower sees its own addition and every addition made before it, so two
 * growers racing for the last pages can both be refused, but never both
 * granted past the budget. A grant raises the high-water mark.
 */
export function reservePages(cells: Int32Array, cell: number, pages: number, budgetPages: number): boolean {
  if (pages <= 0) return true;
  Atomics.add(cells, cell, pages);
  const total = accountedPages(cells);
  if (total > budgetPages) {
    Atomics.sub(cells, cell, pages);
    return false;
  }
  let peak = Atomics.load(cells, BUDGET_PEAK);
  while (total > peak) {
    const seen = Atomics.compareExchange(cells, BUDGET_PEAK, peak, total);
    if (seen === peak) break;
    peak = seen;
  }
  return true;
}

/** Hands pages back (a worker's instance was collected, or the worker exited) and wakes runs waiting for memory. */
export function releasePages(cells: Int32Array, cell: number, pages?: number): void {
  if (pages === undefined) Atomics.store(cells, cell, 0);
  else if (pages > 0) Atomics.sub(cells, cell, pages);
  else return;
  Atomics.add(cells, BUDGET_GENERATION, 1);
  Atomics.notify(cells, BUDGET_GENERATION);
}

/** Limits after defaults and clamping, as the worker applies them. */
export interface ResolvedLimits {
  timeoutMs: number;
  /** The cap actually enforced: the wasm memory's maximum, in bytes. */
  memoryBytes: number;
  outputBytes: number;
  stackBytes: number;
}

export interface WorkerData {
  wasmModule: WasmModule;
  control: SharedArrayBuffer;
  /** The wasm memory cap (in pages) to prepare the first instance for. */
  warmPages: number;
  /** The engine's memory budget: the shared cells, this worker's cell, and the budget in pages. */
  budget: { cells: SharedArrayBuffer; cell: number; pages: number };
}

export type HostToWorker =
  | {
      type: 'run';
      seq: number;
      code: string;
      /** The client's roots: each tree by its shape's key, the prefix of its operation ids, its globals. */
      roots: { key: string; idPrefix: string; globals: string[]; unavailable?: { code: string; message: string } }[];
      /** Shapes this worker does not hold yet (it keeps them for later runs), and keys it may drop. */
      shapes: { key: string; json: string }[];
      forget: string[];
      limits: ResolvedLimits;
    }
  | { type: 'apiResult'; seq: number; callId: number; json: string }
  | { type: 'cancel'; seq: number };

/** What the worker reports at the end of a run (console lines were streamed before). */
export type WorkerOutcome = { ok: true; value: unknown } | { ok: false; error: RunError };

export type WorkerToHost =
  /** A sandbox is prepared: the next run starts without waiting (sent at start-up and after each run). */
  | { type: 'ready' }
  | { type: 'call'; seq: number; callId: number; request: ApiCallRequest }
  | { type: 'console'; seq: number; entries: ConsoleEntry[] }
  | {
      type: 'done';
      seq: number;
      outcome: WorkerOutcome;
      consoleTruncated: boolean;
      /** Size the run's wasm memory reached, in bytes. */
      wasmBytes: number;
      /** The worker asks to be replaced (its state may be unsound). */
      recycle: boolean;
      /** Namespaces of the client the run built (what its code reached). */
      clientNamespaces: number;
      /** The run compiled the prelude's extras (it printed, failed or reached an unavailable API). */
      extrasCompiled: boolean;
    };
