// The caps a subprocess run is held to, worked out from the caller's
// `RunLimits`: the runtime's V8 heap, its stack, and the OS cap on memory
// for everything else (array buffers, Buffers, wasm memory, native
// allocations), which V8's heap limit does not see.
//
// The promise: the processes of a run (the runtime, and the srt wrapper's
// processes around it) never hold more than `memoryBytes` + 64 MB of RSS.
//
// How (Linux): RLIMIT_DATA, which counts private writable mappings, and
// counts them when they are made writable (mmap, brk, and mprotect: V8's
// heap pages, array buffer backing stores, wasm memory growing inside its
// reservation are all in it since Linux 4.7). Not RLIMIT_AS: V8 reserves
// far more address space than it ever commits (Node needs ~1.2 GB of it to
// start, Deno more than 32 GB for V8's sandbox cage).
//
// A fixed RLIMIT_DATA cannot do it: both runtimes start with ~550 MB of
// private writable mappings (mostly reserved, not resident: V8's 512 MB code
// range, thread stacks), so a cap of that baseline plus a budget let a run
// reach baseline-sized RSS over its cap. Instead, two steps:
// 1. At launch (prlimit in front of the runtime) a generous backstop
//    (`dataCapBytes`) that only covers the runtime's start and the prelude.
// 2. Once the prelude is ready, before the caller's code runs (it waits for
//    the host), the host measures the run's processes and lowers the
//    runtime's RLIMIT_DATA to its current VmData + `dataBudget(...)`:
//    whatever the code allocates after that comes out of the budget, and the
//    budget is what keeps the tree's RSS under the cap. A watchdog samples
//    the tree's RSS as defence in depth (see memoryGuard.ts).
//
// The V8 heap cap (`--max-heap-size`, young and old generation together) is
// kept below the data budget: a heap that grows into the OS cap first makes
// V8 thrash in GC for many seconds instead of failing, while its own limit
// fails fast and cleanly.

import type { RunLimits } from '../engine.ts';

const MIB = 1024 * 1024;

/** The launch-time RLIMIT_DATA above the baseline (~550 MB, measured on Node 24 and Deno 2): lowered before any code runs. */
export const RUNTIME_DATA_BASELINE_BYTES = 768 * MIB;
/** Below this V8 cannot run the prelude (and Deno its bootstrap). */
export const MIN_HEAP_BYTES = 16 * MIB;
/** How far over `memoryBytes` the RSS of a run's processes may go. */
export const MEMORY_SLACK_BYTES = 64 * MIB;
/**
 * The part of the slack the data budget leaves for growth RLIMIT_DATA does
 * not count: pages of the runtime's binary read later, stacks, code in V8's
 * pre-reserved code range, a wrapper's per-connection processes.
 */
const UNCOUNTED_GROWTH_BYTES = 24 * MIB;
/**
 * The watchdog acts this far below the cap + slack: what a run can add
 * between two samples of pages the rlimit does not count (it is slow to
 * grow: pages of the runtime's binary are touched by running code paths).
 */
const WATCH_MARGIN_BYTES = 8 * MIB;
/** Between the heap cap and the data budget: the heap's own bookkeeping, and room for V8 to fail cleanly. */
const HEAP_MARGIN_BYTES = 16 * MIB;
/** The least a run gets for what the heap cap does not cover. */
const MIN_OFF_HEAP_BYTES = 16 * MIB;

/**
 * What the runtime holds before the code runs (RSS), as estimated before the
 * first run is measured (Node ~45 MB, Deno ~35 MB on Linux x64, with or
 * without the srt wrapper, whose own processes are not charged to the run).
 * Only the heap cap is sized from this; the data budget is sized from what
 * is measured.
 */
export const BARE_BASELINE_BYTES = 48 * MIB;

const MIN_STACK_BYTES = 64 * 1024;
/** The main thread's stack is 8 MB on Linux and macOS: V8 must stay well inside it. */
const MAX_STACK_BYTES = 4 * MIB;

export interface SubprocessLimits {
  timeoutMs: number;
  memoryBytes: number;
  outputBytes: number;
  /** V8's `--max-heap-size` (young and old generation together), in MB. */
  heapMb: number;
  /** V8 `--stack-size` in KB, when the caller asked for a stack cap. */
  stackKb?: number;
  /** RLIMIT_DATA for the runtime process at launch (Linux, via prlimit): a backstop until the host lowers it. */
  dataCapBytes: number;
  /**
   * RLIMIT_CPU: a backstop, not the deadline. It bounds a child whose host
   * is gone, and a busy loop left running while the deadline is paused for a
   * human; normal runs never come near it.
   */
  cpuSeconds: number;
}

function finite(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** What the RSS of the run's processes may reach with the data budget spent: the cap plus the slack, less the uncounted growth. */
function budgetCeiling(memoryBytes: number): number {
  return memoryBytes + MEMORY_SLACK_BYTES - UNCOUNTED_GROWTH_BYTES;
}

/**
 * @param baselineBytes what the run's processes are expected to hold when
 * the code starts (the last run's measure, or BARE_BASELINE_BYTES).
 */
export function resolveSubprocessLimits(limits: RunLimits, baselineBytes: number = BARE_BASELINE_BYTES): SubprocessLimits {
  const memoryBytes = Math.max(MIN_HEAP_BYTES, Math.floor(finite(limits.memoryBytes, MIN_HEAP_BYTES)));
  const heapBytes = clamp(
    budgetCeiling(memoryBytes) - Math.max(0, finite(baselineBytes, BARE_BASELINE_BYTES)) - HEAP_MARGIN_BYTES,
    MIN_HEAP_BYTES,
    memoryBytes,
  );
  const stack =
    limits.stackBytes === undefined ? undefined : Math.min(MAX_STACK_BYTES, Math.max(MIN_STACK_BYTES, Math.floor(finite(limits.stackBytes, MIN_STACK_BYTES))));
  return {
    timeoutMs: Math.max(1, Math.floor(finite(limits.timeoutMs, 1))),
    memoryBytes,
    outputBytes: Math.max(0, Math.floor(finite(limits.outputBytes, 0))),
    heapMb: Math.floor(heapBytes / MIB),
    ...(stack === undefined ? {} : { stackKb: Math.floor(stack / 1024) }),
    dataCapBytes: RUNTIME_DATA_BASELINE_BYTES + 2 * memoryBytes,
    cpuSeconds: 2 * Math.ceil(Math.max(1, finite(limits.timeoutMs, 1)) / 1000) + 10,
  };
}

export interface RunMemoryBudget {
  /** How much more private writable memory the runtime may map (its RLIMIT_DATA = VmData now + this). */
  dataBudgetBytes: number;
  /** The watchdog's line: RSS of the run's processes above this ends the run (the cap + 56 MB, unless the floor applies). */
  watchBytes: number;
}

/**
 * The budget of a run whose processes hold `readyRssBytes` (RSS, summed)
 * when its code is about to start: what keeps them under the cap plus the
 * slack. It never leaves less than the heap cap plus some off-heap room
 * (a cap that small, or a wrapper that large, gets that floor; the watchdog
 * line moves up with it, so the floor is not killed on sight).
 */
export function dataBudget(limits: Pick<SubprocessLimits, 'memoryBytes' | 'heapMb'>, readyRssBytes: number): RunMemoryBudget {
  const floor = limits.heapMb * MIB + Math.max(HEAP_MARGIN_BYTES, MIN_OFF_HEAP_BYTES);
  const dataBudgetBytes = Math.max(floor, budgetCeiling(limits.memoryBytes) - readyRssBytes);
  const watchBytes = Math.max(limits.memoryBytes + MEMORY_SLACK_BYTES, readyRssBytes + dataBudgetBytes + UNCOUNTED_GROWTH_BYTES) - WATCH_MARGIN_BYTES;
  return { dataBudgetBytes, watchBytes };
}
