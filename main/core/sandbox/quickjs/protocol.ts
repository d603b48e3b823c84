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
import type { ClientNode } from '../guestClient.ts';

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
}

export type HostToWorker =
  | {
      type: 'run';
      seq: number;
      code: string;
      tree: ClientNode;
      globals: string[];
      operationIds: string[];
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
    };

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MB`;
  const kib = bytes / 1024;
  if (kib >= 1) return `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KB`;
  return `${bytes} bytes`;
}
