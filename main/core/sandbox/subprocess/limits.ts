// The caps a subprocess run is held to, worked out once from the caller's
// `RunLimits`: the runtime's own heap cap (V8's old space), its stack, and an
// OS cap on memory for what the heap cap does not see (array buffers, wasm,
// native allocations).
//
// Why RLIMIT_DATA and not RLIMIT_AS: V8 reserves far more address space than
// it ever commits. Measured on Linux x64 (Node 24.21, Deno 2.9.6): Node needs
// about 1.2 GB of address space just to start, Deno more than 32 GB (it
// reserves V8's sandbox cage), so an address-space cap is either useless or
// breaks startup. RLIMIT_DATA counts private writable mappings, which is what
// memory actually costs: both runtimes start with ~550 MB of it (mostly
// reserved, not resident), so the cap is that baseline plus a budget derived
// from `memoryBytes`. Allocations past it fail inside the runtime (a clean
// V8 out-of-memory), never on the host.

import type { RunLimits } from '../engine.ts';

const MIB = 1024 * 1024;

/** Writable memory both runtimes map before running any code (measured ~550 MB), plus slack for threads. */
export const RUNTIME_DATA_BASELINE_BYTES = 768 * MIB;
/** Below this V8 cannot run the prelude. */
export const MIN_HEAP_BYTES = 16 * MIB;
const MIN_STACK_BYTES = 64 * 1024;
/** The main thread's stack is 8 MB on Linux and macOS: V8 must stay well inside it. */
const MAX_STACK_BYTES = 4 * MIB;

export interface SubprocessLimits {
  timeoutMs: number;
  memoryBytes: number;
  outputBytes: number;
  /** `--max-old-space-size`, in MB. */
  heapMb: number;
  /** V8 `--stack-size` in KB, when the caller asked for a stack cap. */
  stackKb?: number;
  /** RLIMIT_DATA for the runtime process (Linux, via prlimit). */
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

export function resolveSubprocessLimits(limits: RunLimits): SubprocessLimits {
  const memoryBytes = Math.max(MIN_HEAP_BYTES, Math.floor(finite(limits.memoryBytes, MIN_HEAP_BYTES)));
  const heapMb = Math.max(16, Math.floor(memoryBytes / MIB));
  const stack =
    limits.stackBytes === undefined ? undefined : Math.min(MAX_STACK_BYTES, Math.max(MIN_STACK_BYTES, Math.floor(finite(limits.stackBytes, MIN_STACK_BYTES))));
  return {
    timeoutMs: Math.max(1, Math.floor(finite(limits.timeoutMs, 1))),
    memoryBytes,
    outputBytes: Math.max(0, Math.floor(finite(limits.outputBytes, 0))),
    heapMb,
    ...(stack === undefined ? {} : { stackKb: Math.floor(stack / 1024) }),
    // The heap lives inside the data cap too; what is left over bounds off-heap memory.
    dataCapBytes: RUNTIME_DATA_BASELINE_BYTES + 2 * memoryBytes,
    cpuSeconds: 2 * Math.ceil(Math.max(1, finite(limits.timeoutMs, 1)) / 1000) + 10,
  };
}
