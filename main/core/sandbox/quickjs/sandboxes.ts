// The QuickJS worker's wasm instances and the sandboxes on them. An instance
// (its bounded WebAssembly.Memory) is made within this worker's cell of the
// shared budget: its initial pages and every growth are reserved there first
// (protocol.ts `reservePages`), and handed back when it is garbage collected.
// A sandbox is a fresh runtime and context on an instance, with the bridge
// functions and the evaluated prelude; it serves exactly one run. The next
// one is prepared while the worker is idle (the spare), on the instance of
// the run that just ended when that run left it sound: every handle freed,
// heap not grown past a small margin, cap never hit, at most
// MAX_RUNS_PER_INSTANCE runs. Anything else and it gets a new instance.
//
// What the bridge functions and the interrupt handler do for a run is the
// runs' (workerRuns.ts): this module only hands them the run bound to the
// sandbox, and refuses calls once that run has ended.
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { WASM_MIN_PAGES, WASM_PAGE, releasePages, reservePages } from './protocol.ts';
import { Wasm, type WasmMemory, type WasmModule } from './wasm.ts';
import { PRELUDE_EXTRAS_SOURCE, PRELUDE_FILENAME, PRELUDE_SOURCE } from './guestPrelude.ts';

/**
 * An instance serves at most this many runs (each in its own runtime) before a
 * new one is made. The old one is garbage until V8 collects it, and its pages
 * stay counted in the budget until then: at 100 runs an instance, a worker
 * held up to 14 dead 16 MB instances (224 MB of the budget) between
 * collections; at 1,000, one or two. A heap that grows is replaced at once
 * whatever this count (REUSE_MAX_BYTES).
 */
const MAX_RUNS_PER_INSTANCE = 1000;
/** An instance whose heap grew past this is not reused. */
const REUSE_MAX_BYTES = WASM_MIN_PAGES * WASM_PAGE + 8 * 1024 * 1024;

/** Thrown by the guarded allocator when the wasm heap cannot grow: the cap was hit. */
export class WasmOutOfMemory extends Error {}
/** A new instance's initial pages do not fit in the budget the workers share. */
export class BudgetExhausted extends Error {}

/** The engine's memory budget as this worker sees it: the shared cells, its own cell, the budget in pages. */
export interface WorkerBudget {
  cells: Int32Array;
  cell: number;
  pages: number;
}

/** Pages an instance holds in this worker's budget cell; handed back once the instance is collected. */
interface Accounting {
  budget: WorkerBudget;
  pages: number;
}

export interface Instance {
  module: QuickJSWASMModule;
  memory: WasmMemory;
  maxPages: number;
  /** Why the heap's last growth was refused (cleared when a smaller growth succeeds): its own cap or the shared budget. */
  refused?: 'cap' | 'budget';
  accounting: Accounting;
  /** Runs this instance has served, each with its own runtime and context. */
  runs: number;
}

/**
 * A sandbox made ready before a run needs it: a fresh runtime and context on
 * a wasm instance, the bridge functions and the evaluated prelude. It serves
 * exactly one run; then its runtime is freed (see `release`).
 */
export interface Sandbox<R> {
  instance: Instance;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  prelude: QuickJSHandle;
  hostCall: QuickJSHandle;
  hostWrite: QuickJSHandle;
  hostShape: QuickJSHandle;
  /** Compiles the prelude's extras (guestPrelude.ts) when the run first needs them. */
  hostExtras: QuickJSHandle;
  /** The run the bridge functions and the interrupt handler serve; whether it needed the prelude's extras. */
  binding: { run?: R; extrasCompiled?: boolean };
}

/** What the bridge functions and the interrupt handler do for the run bound to a sandbox. */
export interface Bridge<R> {
  /** The interrupt handler's poll: true stops the guest (an error it cannot catch). */
  interrupt(run: R): boolean;
  /** The guest called a client method: the pending promise's handle. */
  call(run: R, operationId: string, argsJson: string): QuickJSHandle;
  /** A console line: the bytes left in the output budget, or -1 once it is spent. */
  write(run: R, level: string, text: string): number;
  /** A client node's children, as JSON. */
  shape(run: R, rootIndex: number, pathJson: string): string;
}

/** What a finished run leaves in its sandbox: all of it is freed before the instance serves again. */
export interface Leftovers<R> {
  sandbox: Sandbox<R>;
  /** The instance's state can no longer be trusted. */
  poisoned: boolean;
  calls: Map<number, QuickJSDeferredPromise>;
  promise?: QuickJSHandle;
  helpers?: { serialize: QuickJSHandle; describe: QuickJSHandle };
}

const noop = (): void => {};

// An instance dropped in place (after MAX_RUNS_PER_INSTANCE runs, or a spare sized for another cap) keeps its
// memory until V8 collects it: its pages stay counted until then.
const collected = new FinalizationRegistry<Accounting>(({ budget, pages }) => releasePages(budget.cells, budget.cell, pages));

// quickjs-emscripten copies strings into the wasm heap with `_malloc` and does
// not check for a null result; once the cap is reached that would write at
// address 0. The guard turns a failed allocation into an exception instead.
function guardAllocator(module: QuickJSWASMModule): void {
  const emscripten = (module as unknown as { module?: { _malloc?: (size: number) => number } }).module;
  const malloc = emscripten?._malloc;
  if (!emscripten || typeof malloc !== 'function') throw new Error('unexpected quickjs-emscripten module layout');
  emscripten._malloc = (size: number) => {
    const pointer = malloc(size);
    if (pointer === 0 && size > 0) throw new WasmOutOfMemory('wasm heap exhausted');
    return pointer;
  };
}

async function createInstance(wasmModule: WasmModule, budget: WorkerBudget, maxPages: number): Promise<Instance> {
  if (!reservePages(budget.cells, budget.cell, WASM_MIN_PAGES, budget.pages)) throw new BudgetExhausted('sandbox memory budget exhausted');
  const accounting: Accounting = { budget, pages: WASM_MIN_PAGES };
  let memory: WasmMemory;
  try {
    memory = new Wasm.Memory({ initial: WASM_MIN_PAGES, maximum: maxPages });
  } catch (error) {
    releasePages(budget.cells, budget.cell, WASM_MIN_PAGES);
    throw error;
  }
  collected.register(memory, accounting);
  const instance = { memory, maxPages, accounting, runs: 0 } as Instance;
  // Every growth is reserved in the shared budget first; the engine refuses to grow past the maximum.
  // Noting which refused tells "out of memory" apart from other failures and says which limit it was.
  // (The allocator retries smaller sizes after a refusal, so a later success clears the mark.)
  const grow = memory.grow.bind(memory);
  memory.grow = (deltaPages: number) => {
    if (!reservePages(budget.cells, budget.cell, deltaPages, budget.pages)) {
      instance.refused = 'budget';
      throw new RangeError('the sandboxes together are at their memory budget');
    }
    try {
      const previous = grow(deltaPages);
      accounting.pages += deltaPages;
      instance.refused = undefined;
      return previous;
    } catch (error) {
      releasePages(budget.cells, budget.cell, deltaPages);
      instance.refused = 'cap';
      throw error;
    }
  };
  // print/printErr are emscripten's stdout/stderr: nothing of the module may reach the host's streams.
  const emscriptenModule = { print: noop, printErr: noop } as object;
  const variant = newVariant(RELEASE_SYNC, { wasmModule, wasmMemory: memory, emscriptenModule });
  instance.module = await newQuickJSWASMModuleFromVariant(variant);
  guardAllocator(instance.module);
  return instance;
}

/** The heap never hit a limit and stayed small: the instance may serve another run. */
export function memorySound(instance: Instance): boolean {
  return instance.refused === undefined && instance.memory.buffer.byteLength <= REUSE_MAX_BYTES;
}

/** A growth was refused, or the heap is within two pages of its cap. */
export function memoryAtCap(instance: Instance): boolean {
  return instance.refused !== undefined || instance.memory.buffer.byteLength + 2 * WASM_PAGE > instance.maxPages * WASM_PAGE;
}

/**
 * The heap only grows through the wrapped `memory.grow` (emscripten's resize
 * hook); should it ever grow another way, count the difference anyway, so the
 * budget never under-counts. True when it did: the instance is then retired.
 */
export function reconcile(instance: Instance): boolean {
  const { accounting } = instance;
  const actual = instance.memory.buffer.byteLength / WASM_PAGE;
  if (actual === accounting.pages) return false;
  const missing = actual - accounting.pages;
  Atomics.add(accounting.budget.cells, accounting.budget.cell, missing);
  accounting.pages = actual;
  return true;
}

/** A fresh runtime and context on the instance, with the bridge functions bound to the sandbox's run and the prelude evaluated. */
function openSandbox<R extends { finished: boolean }>(instance: Instance, bridge: Bridge<R>): Sandbox<R> {
  instance.runs++;
  const runtime = instance.module.newRuntime();
  const context = runtime.newContext();
  const binding: Sandbox<R>['binding'] = {};
  runtime.setInterruptHandler(() => {
    const run = binding.run;
    return run ? bridge.interrupt(run) : false;
  });
  const hostCall = context.newFunction('call', (operationIdHandle, argsHandle) => {
    const run = binding.run;
    if (!run || run.finished) throw new Error('The run has ended');
    return bridge.call(run, context.getString(operationIdHandle), context.getString(argsHandle));
  });
  const hostWrite = context.newFunction('write', (levelHandle, textHandle) => {
    const run = binding.run;
    if (!run) return context.newNumber(-1);
    const level = context.getString(levelHandle);
    return context.newNumber(bridge.write(run, level, context.getString(textHandle)));
  });
  const hostShape = context.newFunction('shape', (rootHandle, pathHandle) => {
    const run = binding.run;
    if (!run || run.finished) throw new Error('The run has ended');
    return context.newString(bridge.shape(run, context.getNumber(rootHandle), context.getString(pathHandle)));
  });
  const hostExtras = context.newFunction('extras', () => {
    binding.extrasCompiled = true;
    const extras = context.evalCode(PRELUDE_EXTRAS_SOURCE, PRELUDE_FILENAME, { type: 'global' });
    if (extras.error) return { error: extras.error };
    return extras.value;
  });
  const prelude = context.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME, { type: 'global' });
  if (prelude.error) {
    prelude.error.dispose();
    throw new Error('the client prelude failed to evaluate');
  }
  return { instance, runtime, context, prelude: prelude.value, hostCall, hostWrite, hostShape, hostExtras, binding };
}

/**
 * Frees everything the finished run allocated in QuickJS and returns its
 * instance if it may serve another run: the run left it sound, the heap did
 * not hit the cap or grow much, and the instance has not served many runs.
 * Any leaked handle makes QuickJS abort the disposal: the instance is then
 * dropped, and the next run gets a new one.
 */
function release<R>(run: Leftovers<R>): Instance | undefined {
  const { sandbox } = run;
  const { instance } = sandbox;
  const reusable = !run.poisoned && memorySound(instance) && instance.runs < MAX_RUNS_PER_INSTANCE;
  if (!reusable) return undefined;
  try {
    for (const deferred of run.calls.values()) deferred.dispose();
    run.calls.clear();
    for (const handle of [
      run.promise,
      run.helpers?.serialize,
      run.helpers?.describe,
      sandbox.prelude,
      sandbox.hostCall,
      sandbox.hostWrite,
      sandbox.hostShape,
      sandbox.hostExtras,
    ]) {
      if (handle?.alive) handle.dispose();
    }
    sandbox.context.dispose();
    sandbox.runtime.dispose();
    return instance;
  } catch {
    return undefined;
  }
}

/** The worker's sandboxes: the one prepared for the next run (the spare), and new ones when it does not fit. */
export class SandboxSupply<R extends { finished: boolean }> {
  readonly #wasmModule: WasmModule;
  readonly #budget: WorkerBudget;
  readonly #bridge: Bridge<R>;
  #spare: { maxPages: number; promise: Promise<Sandbox<R>> } | undefined;

  constructor(wasmModule: WasmModule, budget: WorkerBudget, bridge: Bridge<R>) {
    this.#wasmModule = wasmModule;
    this.#budget = budget;
    this.#bridge = bridge;
  }

  async #create(maxPages: number, reusable?: Instance): Promise<Sandbox<R>> {
    const instance = reusable && reusable.maxPages === maxPages ? reusable : await createInstance(this.#wasmModule, this.#budget, maxPages);
    return openSandbox(instance, this.#bridge);
  }

  /** Prepares the spare for a cap, after a finished run on its instance if it is sound; settles once it is ready or failed. */
  prepare(maxPages: number, after?: Leftovers<R>): Promise<Sandbox<R>> {
    const promise = (async () => {
      if (!after) return this.#create(maxPages);
      // Let the 'done' message go first; then free the finished run and reuse its instance if it is sound.
      await new Promise((resolve) => setImmediate(resolve));
      return this.#create(maxPages, release(after));
    })();
    promise.catch(noop);
    this.#spare = { maxPages, promise };
    return promise;
  }

  /** A sandbox for a cap: the spare if it was prepared for it (and did not fail), else a new one. */
  async take(maxPages: number): Promise<Sandbox<R>> {
    const ready = this.#spare;
    this.#spare = undefined;
    if (ready && ready.maxPages === maxPages) {
      try {
        return await ready.promise;
      } catch {
        // fall through: build one now
      }
    }
    return this.#create(maxPages);
  }

  /** A sandbox no run used (the run was cancelled before it started) becomes the spare again. */
  keep(sandbox: Sandbox<R>): void {
    this.#spare = { maxPages: sandbox.instance.maxPages, promise: Promise.resolve(sandbox) };
  }
}
