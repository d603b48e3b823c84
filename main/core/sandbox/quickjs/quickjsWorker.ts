// The worker thread that runs guest code in QuickJS. One run at a time, each
// in a fresh QuickJS runtime and context, prepared while the worker is idle so
// a trivial run starts at once. The wasm instance under them (its bounded
// WebAssembly.Memory) serves further runs only after a run that ended sound:
// every handle freed (QuickJS aborts the disposal otherwise), heap not grown
// past a small margin, cap never hit, at most MAX_RUNS_PER_INSTANCE runs.
// Anything else and the next run gets a new instance.
//
// What this module guarantees:
// - The guest sees the standard ECMAScript built-ins, `console` and the client
//   globals, nothing else: no module loader, no timers, no host objects. API
//   calls leave as messages to the host and come back as JSON text.
// - Memory is capped by the wasm memory's maximum (the engine, not QuickJS's
//   allocator accounting, refuses to grow it) plus QuickJS's own limit, and
//   by the engine's budget shared with the other workers: an instance's
//   initial pages and every growth are reserved in this worker's budget cell
//   first (see protocol.ts `reservePages`); a refused growth is an ordinary
//   out-of-memory for the guest, reported as the shared budget being full.
//   Pages come back when an instance is garbage collected, and all of this
//   worker's pages when it exits (the host zeroes its cell). An instance that
//   grew is never dropped in place: the worker asks to be replaced, so its
//   memory returns with the thread rather than whenever a GC runs.
// - The interrupt handler stops guest code when the shared deadline passes,
//   the host cancels, or the output budget is spent; that error cannot be
//   caught by the guest.
// - Errors that reach the host carry the guest's file name only; anything that
//   went wrong on the host side is reported without its host-side text.
import { parentPort, workerData } from 'node:worker_threads';
import { Buffer } from 'node:buffer';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import type { ApiCallRequest, ConsoleEntry, ConsoleLevel, RunError, RunErrorKind } from '../engine.ts';
import {
  BUDGET_GENERATION,
  CANCEL_ABORTED,
  CANCEL_NONE,
  CANCEL_TIMEOUT,
  WASM_MIN_PAGES,
  WASM_PAGE,
  controlViews,
  releasePages,
  reservePages,
  type HostToWorker,
  type ResolvedLimits,
  type WorkerData,
  type WorkerOutcome,
  type WorkerToHost,
} from './protocol.ts';
import { formatBytes, limitError, OutputBudget } from '../runBudget.ts';
import { Wasm, type WasmMemory } from './wasm.ts';
import { GUEST_FILENAME, PRELUDE_FILENAME, PRELUDE_SOURCE, WRAPPER_PREFIX, WRAPPER_SUFFIX } from './guestPrelude.ts';
import type { ShapeNode } from '../guestClient.ts';
import { isRecord } from '../../../../contract/values.ts';

type RunMessage = Extract<HostToWorker, { type: 'run' }>;

// stdout carries the MCP protocol in stdio mode: whatever this thread writes there goes to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const port = parentPort;
if (!port) throw new Error('quickjsWorker must run in a worker thread');
const init = workerData as WorkerData;
const control = controlViews(init.control);
const budget = new Int32Array(init.budget.cells);
const budgetCell = init.budget.cell;
const budgetPages = init.budget.pages;

const CONSOLE_FLUSH_ENTRIES = 256;
const CONSOLE_FLUSH_BYTES = 64 * 1024;
/** Buffered console lines older than this are sent even while the guest keeps computing. */
const CONSOLE_FLUSH_MS = 20;
const STACK_FRAMES_KEPT = 12;
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
/** Error messages longer than this are cut: they go back to a model, not into a log. */
const MESSAGE_CHARS = 2000;
const LEVELS = new Set<ConsoleLevel>(['log', 'info', 'warn', 'error', 'debug']);

/** Thrown by the guarded allocator when the wasm heap cannot grow: the cap was hit. */
class WasmOutOfMemory extends Error {}
/** A new instance's initial pages do not fit in the budget the workers share. */
class BudgetExhausted extends Error {}

/** Pages an instance holds in this worker's budget cell; handed back once the instance is collected. */
interface Accounting {
  pages: number;
}

interface Instance {
  module: QuickJSWASMModule;
  memory: WasmMemory;
  maxPages: number;
  /** Why the heap's last growth was refused (cleared when a smaller growth succeeds): its own cap or the shared budget. */
  refused?: 'cap' | 'budget';
  accounting: Accounting;
  /** Runs this instance has served, each with its own runtime and context. */
  runs: number;
}

// An instance dropped in place (after MAX_RUNS_PER_INSTANCE runs, or a spare sized for another cap) keeps its
// memory until V8 collects it: its pages stay counted until then.
const collected = new FinalizationRegistry<Accounting>((accounting) => releasePages(budget, budgetCell, accounting.pages));

/**
 * A sandbox made ready before a run needs it: a fresh runtime and context on
 * a wasm instance, the bridge functions and the evaluated prelude. It serves
 * exactly one run; then its runtime is freed (see `release`).
 */
interface Sandbox {
  instance: Instance;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  prelude: QuickJSHandle;
  hostCall: QuickJSHandle;
  hostWrite: QuickJSHandle;
  hostShape: QuickJSHandle;
  /** The run the bridge functions and the interrupt handler serve. */
  binding: { run?: Run };
}

interface Helpers {
  serialize: QuickJSHandle;
  describe: QuickJSHandle;
}

interface Run {
  seq: number;
  limits: ResolvedLimits;
  sandbox: Sandbox;
  instance: Instance;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  roots: RunMessage['roots'];
  /** The operation ids the code was handed (a method exists only for those): any other call is refused. */
  operationIds: Set<string>;
  /** Namespaces of the client built for the code (each one node's children handed over). */
  clientNamespaces: number;
  helpers?: Helpers;
  promise?: QuickJSHandle;
  calls: Map<number, QuickJSDeferredPromise>;
  nextCallId: number;
  /** Console lines plus the return value. */
  output: OutputBudget;
  pending: ConsoleEntry[];
  pendingBytes: number;
  lastFlushAt: number;
  outputExceeded: boolean;
  interruptedBy?: RunErrorKind;
  /** Set when the instance's state can no longer be trusted (a trap, a host-side failure). */
  poisoned: boolean;
  finished: boolean;
}

const noop = (): void => {};
let spare: { maxPages: number; promise: Promise<Sandbox> } | undefined;

/** The client shapes the host sent, by key, kept for later runs (the host says which to drop); each tree parsed on first use. */
const shapes = new Map<string, { json: string; tree?: ShapeNode }>();

/** A node's children as the guest builds them: name → operation id (a method, its id prefixed and remembered) or 0 (a namespace). */
function shapeChildren(run: Run, rootIndex: number, pathJson: string): string {
  const root = run.roots[rootIndex];
  const shape = root ? shapes.get(root.key) : undefined;
  if (!root || !shape) throw new TypeError('no such client root');
  shape.tree ??= JSON.parse(shape.json) as ShapeNode;
  let node: ShapeNode | string | undefined = shape.tree;
  const path = JSON.parse(pathJson) as unknown;
  if (!Array.isArray(path)) throw new TypeError('a client path is a list of names');
  for (const name of path) {
    if (typeof node !== 'object' || typeof name !== 'string' || !Object.hasOwn(node, name)) throw new TypeError('no such client namespace');
    node = node[name];
  }
  if (typeof node !== 'object') throw new TypeError('no such client namespace');
  run.clientNamespaces++;
  const out: Record<string, string | 0> = {};
  for (const [name, child] of Object.entries(node)) {
    if (typeof child === 'string') {
      out[name] = child;
      run.operationIds.add(root.idPrefix + child);
    } else out[name] = 0;
  }
  return JSON.stringify(out);
}
let current: Run | undefined;

function post(message: WorkerToHost): void {
  port!.postMessage(message);
}

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

async function createInstance(maxPages: number): Promise<Instance> {
  if (!reservePages(budget, budgetCell, WASM_MIN_PAGES, budgetPages)) throw new BudgetExhausted('sandbox memory budget exhausted');
  const accounting: Accounting = { pages: WASM_MIN_PAGES };
  let memory: WasmMemory;
  try {
    memory = new Wasm.Memory({ initial: WASM_MIN_PAGES, maximum: maxPages });
  } catch (error) {
    releasePages(budget, budgetCell, WASM_MIN_PAGES);
    throw error;
  }
  collected.register(memory, accounting);
  const instance = { memory, maxPages, accounting, runs: 0 } as Instance;
  // Every growth is reserved in the shared budget first; the engine refuses to grow past the maximum.
  // Noting which refused tells "out of memory" apart from other failures and says which limit it was.
  // (The allocator retries smaller sizes after a refusal, so a later success clears the mark.)
  const grow = memory.grow.bind(memory);
  memory.grow = (deltaPages: number) => {
    if (!reservePages(budget, budgetCell, deltaPages, budgetPages)) {
      instance.refused = 'budget';
      throw new RangeError('the sandboxes together are at their memory budget');
    }
    try {
      const previous = grow(deltaPages);
      accounting.pages += deltaPages;
      instance.refused = undefined;
      return previous;
    } catch (error) {
      releasePages(budget, budgetCell, deltaPages);
      instance.refused = 'cap';
      throw error;
    }
  };
  // print/printErr are emscripten's stdout/stderr: nothing of the module may reach the host's streams.
  const emscriptenModule = { print: noop, printErr: noop } as object;
  const variant = newVariant(RELEASE_SYNC, { wasmModule: init.wasmModule, wasmMemory: memory, emscriptenModule });
  instance.module = await newQuickJSWASMModuleFromVariant(variant);
  guardAllocator(instance.module);
  return instance;
}

async function createSandbox(maxPages: number, reusable?: Instance): Promise<Sandbox> {
  const instance = reusable && reusable.maxPages === maxPages ? reusable : await createInstance(maxPages);
  instance.runs++;
  const runtime = instance.module.newRuntime();
  const context = runtime.newContext();
  const binding: { run?: Run } = {};
  runtime.setInterruptHandler(() => {
    const run = binding.run;
    if (!run) return false;
    flushIfStale(run);
    const reason = interruptReason(run);
    if (reason === undefined) return false;
    run.interruptedBy ??= reason;
    return true;
  });
  const hostCall = context.newFunction('call', (operationIdHandle, argsHandle) => {
    const run = binding.run;
    if (!run || run.finished) throw new Error('The run has ended');
    return startApiCall(run, context.getString(operationIdHandle), context.getString(argsHandle));
  });
  const hostWrite = context.newFunction('write', (levelHandle, textHandle) => {
    const run = binding.run;
    if (!run) return context.newNumber(-1);
    const level = context.getString(levelHandle) as ConsoleLevel;
    return context.newNumber(writeConsole(run, LEVELS.has(level) ? level : 'log', context.getString(textHandle)));
  });
  const hostShape = context.newFunction('shape', (rootHandle, pathHandle) => {
    const run = binding.run;
    if (!run || run.finished) throw new Error('The run has ended');
    return context.newString(shapeChildren(run, context.getNumber(rootHandle), context.getString(pathHandle)));
  });
  const prelude = context.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME, { type: 'global' });
  if (prelude.error) {
    prelude.error.dispose();
    throw new Error('the client prelude failed to evaluate');
  }
  return { instance, runtime, context, prelude: prelude.value, hostCall, hostWrite, hostShape, binding };
}

function prepareSpare(maxPages: number, after?: Run): void {
  const promise = (async () => {
    if (!after) return createSandbox(maxPages);
    // Let the 'done' message go first; then free the finished run and reuse its instance if it is sound.
    await new Promise((resolve) => setImmediate(resolve));
    return createSandbox(maxPages, release(after));
  })();
  promise.catch(noop);
  spare = { maxPages, promise };
}

/**
 * Frees everything the finished run allocated in QuickJS and returns its
 * instance if it may serve another run: the run left it sound, the heap did
 * not hit the cap or grow much, and the instance has not served many runs.
 * Any leaked handle makes QuickJS abort the disposal: the instance is then
 * dropped, and the next run gets a new one.
 */
function release(run: Run): Instance | undefined {
  const { instance, sandbox } = run;
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
    ]) {
      if (handle?.alive) handle.dispose();
    }
    run.context.dispose();
    run.runtime.dispose();
    return instance;
  } catch {
    return undefined;
  }
}

async function takeSandbox(maxPages: number): Promise<Sandbox> {
  const ready = spare;
  spare = undefined;
  if (ready && ready.maxPages === maxPages) {
    try {
      return await ready.promise;
    } catch {
      // fall through: build one now
    }
  }
  return createSandbox(maxPages);
}

function pagesFor(limits: ResolvedLimits): number {
  return Math.ceil(limits.memoryBytes / WASM_PAGE);
}

/** The heap never hit a limit and stayed small: the instance may serve another run. */
function memorySound(instance: Instance): boolean {
  return instance.refused === undefined && instance.memory.buffer.byteLength <= REUSE_MAX_BYTES;
}

const budgetText = () => `shared memory budget of ${formatBytes(budgetPages * WASM_PAGE)}`;

function memoryFailure(instance: Instance | undefined, limits: ResolvedLimits): WorkerOutcome {
  if (instance?.refused === 'budget') {
    const held = formatBytes(instance.memory.buffer.byteLength);
    return failure(
      'memory',
      `Memory limit exceeded: the sandboxes running at once reached their ${budgetText()} (this run held ${held}; its own cap is ${formatBytes(limits.memoryBytes)}). Retry when fewer runs are in flight, or use less memory`,
    );
  }
  return failure('memory', `Memory limit of ${formatBytes(limits.memoryBytes)} exceeded`);
}

// ---- messages of a run -------------------------------------------------------

function failure(kind: RunErrorKind, message: string, stack?: string): WorkerOutcome {
  return { ok: false, error: stack ? { kind, message, stack } : { kind, message } };
}

function limitFailure(run: Run, kind: RunErrorKind): WorkerOutcome {
  const limits = run.limits;
  switch (kind) {
    case 'timeout':
    case 'aborted':
    case 'output':
      return { ok: false, error: limitError(kind, limits) };
    case 'memory':
      return memoryFailure(run.instance, limits);
    case 'stack':
      return failure('stack', 'Maximum call stack size exceeded');
    default:
      return failure(kind, 'Execution failed');
  }
}

/** Host-side text never reaches the caller verbatim: paths and URLs are cut out. */
function scrub(text: string): string {
  return text
    .replace(/file:\/\/\S+/g, '<host>')
    .replace(/(?:[A-Za-z]:)?[\\/][^\s:'"()]*[\\/][^\s:'"()]*/g, '<host>')
    .slice(0, 500);
}

function memoryAtCap(run: Run): boolean {
  const { instance } = run;
  return instance.refused !== undefined || instance.memory.buffer.byteLength + 2 * WASM_PAGE > instance.maxPages * WASM_PAGE;
}

function hostFailure(run: Run, error: unknown): WorkerOutcome {
  run.poisoned = true;
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  if (error instanceof WasmOutOfMemory) return limitFailure(run, 'memory');
  if (error instanceof RangeError && /call stack/i.test(error.message)) return limitFailure(run, 'stack');
  if (error instanceof Wasm.RuntimeError && memoryAtCap(run)) return limitFailure(run, 'memory');
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return failure('internal', `The QuickJS engine failed: ${scrub(text)}`);
}

interface Described {
  isError: boolean;
  name?: string;
  message?: string;
  stack?: string;
  text?: string;
}

function describe(run: Run, errorHandle: QuickJSHandle): Described | undefined {
  const { context, helpers } = run;
  if (!helpers) return undefined;
  const result = context.callFunction(helpers.describe, context.undefined, errorHandle);
  if (result.error) {
    result.error.dispose();
    return undefined;
  }
  const json = result.value.consume((handle) => (context.typeof(handle) === 'string' ? context.getString(handle) : undefined));
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as Described;
  } catch {
    return undefined;
  }
}

function clip(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

function trimFrames(stack: string | undefined): string {
  if (!stack) return '';
  return stack.split('\n').slice(0, STACK_FRAMES_KEPT).join('\n');
}

/** A guest error (thrown, rejected or from evaluation) as an outcome. */
function guestFailure(run: Run, errorHandle: QuickJSHandle, fallback: 'syntax' | 'runtime'): WorkerOutcome {
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  let described: Described | undefined;
  try {
    described = describe(run, errorHandle);
  } catch (error) {
    return hostFailure(run, error);
  }
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  if (!described) return memoryAtCap(run) ? limitFailure(run, 'memory') : failure(fallback, 'The code failed with an error that cannot be described');
  // Out of memory while building the error leaves QuickJS throwing null: the heap at its cap says why.
  if (!described.isError)
    return memoryAtCap(run) ? limitFailure(run, 'memory') : failure(fallback, `Uncaught ${clip(described.text ?? 'value', MESSAGE_CHARS)}`);
  const name = clip(described.name ?? 'Error', 100);
  const message = clip(described.message ?? '', MESSAGE_CHARS);
  const frames = trimFrames(described.stack);
  if (/^out of memory$/i.test(message)) return limitFailure(run, 'memory');
  if ((name === 'InternalError' && /stack overflow/i.test(message)) || (name === 'RangeError' && /maximum call stack/i.test(message))) {
    const head = 'RangeError: Maximum call stack size exceeded';
    return failure('stack', 'Maximum call stack size exceeded', frames ? `${head}\n${frames}` : undefined);
  }
  const head = `${name}: ${message}`;
  if (fallback === 'syntax') {
    const where = /(execute\.js:\d+:\d+)/.exec(frames)?.[1];
    return failure('syntax', where ? `${head} (at ${where})` : head, frames ? `${head}\n${frames}` : undefined);
  }
  return failure('runtime', head, frames ? `${head}\n${frames}` : undefined);
}

// ---- console and output budget ------------------------------------------------

function flushConsole(run: Run): void {
  run.lastFlushAt = Date.now();
  if (run.pending.length === 0) return;
  post({ type: 'console', seq: run.seq, entries: run.pending });
  run.pending = [];
  run.pendingBytes = 0;
}

function flushIfStale(run: Run): void {
  if (run.pending.length > 0 && Date.now() - run.lastFlushAt >= CONSOLE_FLUSH_MS) flushConsole(run);
}

/** Records one console line; returns the bytes left in the output budget, or -1 once it is spent. */
function writeConsole(run: Run, level: ConsoleLevel, text: string): number {
  if (run.outputExceeded || run.finished) return -1;
  const { entry, exceeded } = run.output.write(level, text);
  if (entry) {
    run.pending.push(entry);
    run.pendingBytes += Buffer.byteLength(entry.text, 'utf8') + 1;
  }
  if (exceeded) {
    run.outputExceeded = true;
    flushConsole(run);
    return -1;
  }
  if (run.pending.length >= CONSOLE_FLUSH_ENTRIES || run.pendingBytes >= CONSOLE_FLUSH_BYTES) flushConsole(run);
  else flushIfStale(run);
  return run.output.room;
}

// ---- API calls ------------------------------------------------------------------

function toApiRequest(operationId: string, args: unknown): ApiCallRequest {
  if (!isRecord(args)) throw new TypeError('the argument must be an object { path, query, body, headers, cookies }');
  const request: ApiCallRequest = { operationId };
  for (const key of ['path', 'query', 'cookies'] as const) {
    const value = args[key];
    if (value === undefined) continue;
    if (!isRecord(value)) throw new TypeError(`${key} must be an object`);
    request[key] = value;
  }
  if (args.headers !== undefined) {
    if (!isRecord(args.headers)) throw new TypeError('headers must be an object of strings');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(args.headers)) {
      if (typeof value !== 'string') throw new TypeError(`header ${JSON.stringify(name)} must be a string`);
      headers[name] = value;
    }
    request.headers = headers;
  }
  if (args.body !== undefined) request.body = args.body;
  return request;
}

/** The guest called a client method: validate, register the pending promise, ask the host. */
function startApiCall(run: Run, operationId: string, argsJson: string): QuickJSHandle {
  if (!run.operationIds.has(operationId)) throw new TypeError(`Unknown operation ${JSON.stringify(operationId)}`);
  const request = toApiRequest(operationId, JSON.parse(argsJson));
  const callId = ++run.nextCallId;
  const deferred = run.context.newPromise();
  run.calls.set(callId, deferred);
  flushConsole(run);
  post({ type: 'call', seq: run.seq, callId, request });
  return deferred.handle;
}

function deliverApiResult(run: Run, callId: number, json: string): void {
  const deferred = run.calls.get(callId);
  if (!deferred) return;
  run.calls.delete(callId);
  try {
    const handle = run.context.newString(json);
    deferred.resolve(handle);
    handle.dispose();
  } catch (error) {
    finish(run, hostFailure(run, error));
    return;
  }
  pump(run);
}

// ---- the run ----------------------------------------------------------------------

function interruptReason(run: Run): RunErrorKind | undefined {
  const cancel = Atomics.load(control.cancel, 0);
  if (cancel === CANCEL_ABORTED) return 'aborted';
  if (cancel === CANCEL_TIMEOUT) return 'timeout';
  if (run.outputExceeded) return 'output';
  if (BigInt(Date.now()) > Atomics.load(control.deadline, 0)) return 'timeout';
  return undefined;
}

function setUp(message: RunMessage, sandbox: Sandbox): Run {
  const { runtime, context } = sandbox;
  const run: Run = {
    seq: message.seq,
    limits: message.limits,
    sandbox,
    instance: sandbox.instance,
    runtime,
    context,
    roots: message.roots,
    operationIds: new Set(),
    clientNamespaces: 0,
    calls: new Map(),
    nextCallId: 0,
    output: new OutputBudget(message.limits.outputBytes),
    pending: [],
    pendingBytes: 0,
    lastFlushAt: Date.now(),
    outputExceeded: false,
    poisoned: false,
    finished: false,
  };
  sandbox.binding.run = run;
  runtime.setMemoryLimit(message.limits.memoryBytes);
  runtime.setMaxStackSize(message.limits.stackBytes);
  for (const key of message.forget) shapes.delete(key);
  for (const shape of message.shapes) shapes.set(shape.key, { json: shape.json });
  const args = [
    sandbox.hostCall,
    sandbox.hostWrite,
    sandbox.hostShape,
    context.newNumber(message.limits.outputBytes),
    context.newString(
      JSON.stringify(message.roots.map((r) => ({ idPrefix: r.idPrefix, globals: r.globals, ...(r.unavailable ? { unavailable: r.unavailable } : {}) }))),
    ),
  ];
  const made = context.callFunction(sandbox.prelude, context.undefined, args);
  for (const handle of args.slice(3)) handle.dispose();
  if (made.error) {
    made.error.dispose();
    throw new Error('the client prelude failed to run');
  }
  run.helpers = {
    serialize: context.getProp(made.value, 'serialize'),
    describe: context.getProp(made.value, 'describe'),
  };
  made.value.dispose();
  return run;
}

function valueOutcome(run: Run, valueHandle: QuickJSHandle): WorkerOutcome {
  const { context, helpers } = run;
  if (run.outputExceeded) return limitFailure(run, 'output');
  const budget = run.output.room;
  const budgetHandle = context.newNumber(budget);
  const result = context.callFunction(helpers!.serialize, context.undefined, valueHandle, budgetHandle);
  budgetHandle.dispose();
  if (result.error) {
    const outcome = guestFailure(run, result.error, 'runtime');
    result.error.dispose();
    if (outcome.ok || outcome.error.kind !== 'runtime') return outcome;
    return failure('runtime', `The return value is not JSON-serialisable (${outcome.error.message})`);
  }
  // serialize returns undefined (no value), the JSON text, or -1 when it is over the budget.
  const serialized = result.value.consume((handle): { json?: string; over: boolean } => {
    const type = context.typeof(handle);
    return type === 'string' ? { json: context.getString(handle), over: false } : { over: type === 'number' };
  });
  if (serialized.over) return limitFailure(run, 'output');
  if (serialized.json === undefined) return { ok: true, value: undefined };
  if (Buffer.byteLength(serialized.json, 'utf8') > budget) return limitFailure(run, 'output');
  return { ok: true, value: JSON.parse(serialized.json) };
}

function pump(run: Run): void {
  if (run.finished) return;
  try {
    const jobs = run.runtime.executePendingJobs();
    if (jobs.error) {
      const outcome = guestFailure(run, jobs.error, 'runtime');
      jobs.error.dispose();
      finish(run, outcome);
      return;
    }
    if (run.outputExceeded) {
      finish(run, limitFailure(run, 'output'));
      return;
    }
    const state = run.context.getPromiseState(run.promise!);
    if (state.type === 'pending') {
      if (run.calls.size === 0 && !run.runtime.hasPendingJob()) {
        finish(run, failure('runtime', 'The code awaits a promise that nothing can settle (the sandbox has no timers and no API call is in flight)'));
        return;
      }
      flushConsole(run);
      return;
    }
    if (state.type === 'fulfilled') {
      const outcome = valueOutcome(run, state.value);
      if (!state.notAPromise) state.value.dispose();
      finish(run, outcome);
    } else {
      const outcome = guestFailure(run, state.error, 'runtime');
      state.error.dispose();
      finish(run, outcome);
    }
  } catch (error) {
    finish(run, hostFailure(run, error));
  }
}

/**
 * The heap only grows through the wrapped `memory.grow` (emscripten's resize
 * hook); should it ever grow another way, count the difference anyway and
 * retire the instance, so the budget never under-counts.
 */
function reconcile(run: Run): void {
  const { instance } = run;
  const actual = instance.memory.buffer.byteLength / WASM_PAGE;
  if (actual === instance.accounting.pages) return;
  const missing = actual - instance.accounting.pages;
  Atomics.add(budget, budgetCell, missing);
  instance.accounting.pages = actual;
  run.poisoned = true;
}

function finish(run: Run, outcome: WorkerOutcome): void {
  if (run.finished) return;
  run.finished = true;
  reconcile(run);
  run.sandbox.binding.run = undefined;
  if (current === run) current = undefined;
  flushConsole(run);
  const final = run.interruptedBy && outcome.ok ? limitFailure(run, run.interruptedBy) : outcome;
  post({
    type: 'done',
    seq: run.seq,
    outcome: final,
    consoleTruncated: run.output.truncated,
    wasmBytes: run.instance.memory.buffer.byteLength,
    // A heap that hit a limit or grew is not dropped in place: the thread's exit hands its memory back at once.
    recycle: run.poisoned || !memorySound(run.instance),
    clientNamespaces: run.clientNamespaces,
  });
  // Prepare the next sandbox while idle (on this instance if it is sound, else on a new one).
  announceWhenReady(run.instance.maxPages, run);
}

/** The run whose start waits for budget pages (a cancel wakes the wait). */
let waitingSeq: number | undefined;

/**
 * A sandbox for the run. When the budget has no room for a new instance's
 * initial pages, the run waits for pages to come back (a finished run's worker
 * exiting, an old instance collected) until it is cancelled or its deadline
 * passes: the code has not started, so waiting is better than failing.
 */
async function sandboxFor(message: RunMessage): Promise<Sandbox | 'aborted' | 'timeout'> {
  const pages = pagesFor(message.limits);
  for (;;) {
    const generation = Atomics.load(budget, BUDGET_GENERATION);
    try {
      return await takeSandbox(pages);
    } catch (error) {
      if (!(error instanceof BudgetExhausted)) throw error;
    }
    const cancel = Atomics.load(control.cancel, 0);
    if (cancel !== CANCEL_NONE) return cancel === CANCEL_ABORTED ? 'aborted' : 'timeout';
    const remaining = Number(Atomics.load(control.deadline, 0) - BigInt(Date.now()));
    if (remaining <= 0) return 'timeout';
    waitingSeq = message.seq;
    try {
      const waited = Atomics.waitAsync(budget, BUDGET_GENERATION, generation, remaining);
      if (waited.async) await waited.value;
    } finally {
      waitingSeq = undefined;
    }
  }
}

async function startRun(message: RunMessage): Promise<void> {
  let sandbox: Sandbox;
  try {
    const got = await sandboxFor(message);
    if (got === 'aborted' || got === 'timeout') {
      const outcome =
        got === 'aborted'
          ? { ok: false as const, error: limitError('aborted', message.limits) }
          : failure(
              'timeout',
              `Execution timed out after ${message.limits.timeoutMs} ms waiting for sandbox memory: the runs in flight hold all of the ${budgetText()}`,
            );
      post({ type: 'done', seq: message.seq, outcome, consoleTruncated: false, wasmBytes: 0, recycle: false, clientNamespaces: 0 });
      return;
    }
    sandbox = got;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    post({
      type: 'done',
      seq: message.seq,
      outcome: failure('internal', `The QuickJS engine could not start: ${scrub(text)}`),
      consoleTruncated: false,
      wasmBytes: 0,
      recycle: true,
      clientNamespaces: 0,
    });
    return;
  }
  const cancel = Atomics.load(control.cancel, 0);
  if (cancel !== CANCEL_NONE) {
    const kind: RunErrorKind = cancel === CANCEL_ABORTED ? 'aborted' : 'timeout';
    const error: RunError = limitError(kind, message.limits);
    post({ type: 'done', seq: message.seq, outcome: { ok: false, error }, consoleTruncated: false, wasmBytes: 0, recycle: false, clientNamespaces: 0 });
    spare = { maxPages: sandbox.instance.maxPages, promise: Promise.resolve(sandbox) };
    return;
  }
  let run: Run;
  try {
    run = setUp(message, sandbox);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const outcome =
      error instanceof WasmOutOfMemory
        ? memoryFailure(sandbox.instance, message.limits)
        : failure('internal', `The QuickJS engine could not start: ${scrub(text)}`);
    post({
      type: 'done',
      seq: message.seq,
      outcome,
      consoleTruncated: false,
      wasmBytes: sandbox.instance.memory.buffer.byteLength,
      recycle: true,
      clientNamespaces: 0,
    });
    return;
  }
  current = run;
  try {
    const evaluated = run.context.evalCode(WRAPPER_PREFIX + message.code + WRAPPER_SUFFIX, GUEST_FILENAME, { type: 'global' });
    if (evaluated.error) {
      const outcome = guestFailure(run, evaluated.error, 'syntax');
      evaluated.error.dispose();
      finish(run, outcome);
      return;
    }
    run.promise = evaluated.value;
  } catch (error) {
    finish(run, hostFailure(run, error));
    return;
  }
  pump(run);
}

port.on('message', (message: HostToWorker) => {
  switch (message.type) {
    case 'run':
      void startRun(message);
      break;
    case 'apiResult':
      if (current && current.seq === message.seq) deliverApiResult(current, message.callId, message.json);
      break;
    case 'cancel':
      if (current && current.seq === message.seq) {
        const cancel = Atomics.load(control.cancel, 0);
        finish(current, limitFailure(current, cancel === CANCEL_ABORTED ? 'aborted' : 'timeout'));
      } else if (waitingSeq === message.seq) {
        // The run is still waiting for budget pages: wake it (it reads the cancel flag).
        Atomics.notify(budget, BUDGET_GENERATION);
      }
      break;
  }
});

/** Prepares the next sandbox and tells the host once it is ready (the host prefers ready workers). */
function announceWhenReady(maxPages: number, after?: Run): void {
  prepareSpare(maxPages, after);
  const announce = () => post({ type: 'ready' });
  spare!.promise.then(announce, announce);
}

announceWhenReady(init.warmPages);
