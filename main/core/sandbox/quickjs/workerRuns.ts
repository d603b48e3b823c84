// The runs of a QuickJS worker, one at a time, from the host's 'run' message
// to its 'done': a sandbox for the run (waiting for budget pages while the
// code has not started), the run set up on it, the code evaluated, then its
// jobs pumped as API results come back, until the promise settles, the guest
// is interrupted (the shared deadline, a cancel from the host, the output
// budget) or something fails. Once a run is done the next sandbox is
// prepared while the worker is idle, and the host is told when it is ready.
//
// This module owns the run in progress, the sandboxes (sandboxes.ts) and the
// client shapes (shapeCache.ts); the worker's port, control block and budget
// views are handed to it (quickjsWorker.ts).
import { Buffer } from 'node:buffer';
import type { QuickJSHandle } from 'quickjs-emscripten';
import type { ApiCallRequest, RunError, RunErrorKind } from '../engine.ts';
import {
  BUDGET_GENERATION,
  CANCEL_ABORTED,
  CANCEL_NONE,
  CANCEL_TIMEOUT,
  WASM_PAGE,
  type ControlViews,
  type WorkerOutcome,
  type WorkerToHost,
} from './protocol.ts';
import { limitError } from '../runBudget.ts';
import type { WasmModule } from './wasm.ts';
import { GUEST_FILENAME, WRAPPER_PREFIX, WRAPPER_SUFFIX } from './guestPrelude.ts';
import { isRecord } from '../../../../contract/values.ts';
import { BudgetExhausted, memorySound, reconcile, SandboxSupply, WasmOutOfMemory, type Sandbox, type WorkerBudget } from './sandboxes.ts';
import { ShapeCache } from './shapeCache.ts';
import { setUp, type Run, type RunMessage } from './runState.ts';
import { budgetText, failure, guestFailure, hostFailure, limitFailure, memoryFailure, scrub } from './runFailures.ts';

/** What the runs are given of their worker. */
export interface WorkerLink {
  wasmModule: WasmModule;
  control: ControlViews;
  budget: WorkerBudget;
  post(message: WorkerToHost): void;
}

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

function pagesFor(limits: RunMessage['limits']): number {
  return Math.ceil(limits.memoryBytes / WASM_PAGE);
}

export class WorkerRuns {
  readonly #control: ControlViews;
  readonly #budget: WorkerBudget;
  readonly #post: (message: WorkerToHost) => void;
  readonly #supply: SandboxSupply<Run>;
  readonly #shapes = new ShapeCache();
  #current: Run | undefined;
  /** The run whose start waits for budget pages (a cancel wakes the wait). */
  #waitingSeq: number | undefined;

  constructor(link: WorkerLink) {
    this.#control = link.control;
    this.#budget = link.budget;
    this.#post = (message) => link.post(message);
    this.#supply = new SandboxSupply<Run>(link.wasmModule, link.budget, {
      interrupt: (run) => this.#interrupt(run),
      call: (run, operationId, argsJson) => this.#startApiCall(run, operationId, argsJson),
      write: (run, level, text) => (run.finished ? -1 : run.console.write(level, text)),
      shape: (run, rootIndex, pathJson) => this.#shapes.children(run, rootIndex, pathJson),
    });
  }

  /** Prepares the next sandbox and tells the host once it is ready (the host prefers ready workers). */
  announceWhenReady(maxPages: number, after?: Run): void {
    const announce = () => this.#post({ type: 'ready' });
    this.#supply.prepare(maxPages, after).then(announce, announce);
  }

  async start(message: RunMessage): Promise<void> {
    // The shapes sent with a run are kept whatever becomes of it: the host counts them as this worker's from the
    // moment it sends them, so a run cancelled or refused before it starts must not lose them for the next one.
    this.#shapes.update(message);
    const sandbox = await this.#sandboxOrRefusal(message);
    if (!sandbox) return;
    const cancel = Atomics.load(this.#control.cancel, 0);
    if (cancel !== CANCEL_NONE) {
      const kind: RunErrorKind = cancel === CANCEL_ABORTED ? 'aborted' : 'timeout';
      const error: RunError = limitError(kind, message.limits);
      this.#notStarted(message.seq, { ok: false, error }, 0, false);
      // The sandbox it was given is the next run's: the host is told this worker is ready (its 'done' said it was not).
      this.#supply.keep(sandbox);
      this.#post({ type: 'ready' });
      return;
    }
    let run: Run;
    try {
      run = setUp(message, sandbox, this.#post);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const outcome =
        error instanceof WasmOutOfMemory
          ? memoryFailure(sandbox.instance, message.limits)
          : failure('internal', `The QuickJS engine could not start: ${scrub(text)}`);
      this.#notStarted(message.seq, outcome, sandbox.instance.memory.buffer.byteLength, true);
      return;
    }
    this.#current = run;
    this.#evaluate(run, message.code);
  }

  /** The host's answer to an API call of the run `seq`. */
  deliver(seq: number, callId: number, json: string): void {
    if (this.#current && this.#current.seq === seq) this.#deliverApiResult(this.#current, callId, json);
  }

  /** The host cancelled the run `seq` (its reason is in the control block). */
  cancel(seq: number): void {
    const current = this.#current;
    if (current && current.seq === seq) {
      const cancel = Atomics.load(this.#control.cancel, 0);
      this.#finish(current, limitFailure(current, cancel === CANCEL_ABORTED ? 'aborted' : 'timeout'));
    } else if (this.#waitingSeq === seq) {
      // The run is still waiting for budget pages: wake it (it reads the cancel flag).
      Atomics.notify(this.#budget.cells, BUDGET_GENERATION);
    }
  }

  /** A run that did not start: its 'done' (no console, no client built). */
  #notStarted(seq: number, outcome: WorkerOutcome, wasmBytes: number, recycle: boolean): void {
    this.#post({ type: 'done', seq, outcome, consoleTruncated: false, wasmBytes, recycle, clientNamespaces: 0, extrasCompiled: false });
  }

  /** The run's sandbox, or undefined once the run has been answered (cancelled or out of time while waiting, or no sandbox could be made). */
  async #sandboxOrRefusal(message: RunMessage): Promise<Sandbox<Run> | undefined> {
    try {
      const got = await this.#sandboxFor(message);
      if (got !== 'aborted' && got !== 'timeout') return got;
      const outcome =
        got === 'aborted'
          ? { ok: false as const, error: limitError('aborted', message.limits) }
          : failure(
              'timeout',
              `Execution timed out after ${message.limits.timeoutMs} ms waiting for sandbox memory: the runs in flight hold all of the ${budgetText(this.#budget.pages)}`,
            );
      this.#notStarted(message.seq, outcome, 0, false);
      // No sandbox was taken: the next one is prepared, and the host told when it is ready, as after a run.
      this.announceWhenReady(pagesFor(message.limits));
      return undefined;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.#notStarted(message.seq, failure('internal', `The QuickJS engine could not start: ${scrub(text)}`), 0, true);
      return undefined;
    }
  }

  /**
   * A sandbox for the run. When the budget has no room for a new instance's
   * initial pages, the run waits for pages to come back (a finished run's worker
   * exiting, an old instance collected) until it is cancelled or its deadline
   * passes: the code has not started, so waiting is better than failing.
   */
  async #sandboxFor(message: RunMessage): Promise<Sandbox<Run> | 'aborted' | 'timeout'> {
    const pages = pagesFor(message.limits);
    const cells = this.#budget.cells;
    for (;;) {
      const generation = Atomics.load(cells, BUDGET_GENERATION);
      try {
        return await this.#supply.take(pages);
      } catch (error) {
        if (!(error instanceof BudgetExhausted)) throw error;
      }
      const cancel = Atomics.load(this.#control.cancel, 0);
      if (cancel !== CANCEL_NONE) return cancel === CANCEL_ABORTED ? 'aborted' : 'timeout';
      const remaining = Number(Atomics.load(this.#control.deadline, 0) - BigInt(Date.now()));
      if (remaining <= 0) return 'timeout';
      this.#waitingSeq = message.seq;
      try {
        const waited = Atomics.waitAsync(cells, BUDGET_GENERATION, generation, remaining);
        if (waited.async) await waited.value;
      } finally {
        this.#waitingSeq = undefined;
      }
    }
  }

  /** Evaluates the code in its async wrapper, then pumps the jobs it started. */
  #evaluate(run: Run, code: string): void {
    try {
      const evaluated = run.context.evalCode(WRAPPER_PREFIX + code + WRAPPER_SUFFIX, GUEST_FILENAME, { type: 'global' });
      if (evaluated.error) {
        const outcome = guestFailure(run, evaluated.error, 'syntax');
        evaluated.error.dispose();
        this.#finish(run, outcome);
        return;
      }
      run.promise = evaluated.value;
    } catch (error) {
      this.#finish(run, hostFailure(run, error));
      return;
    }
    this.#pump(run);
  }

  /** The interrupt handler's poll: sends stale console lines, and stops the guest when the run must end. */
  #interrupt(run: Run): boolean {
    run.console.flushIfStale();
    const reason = this.#interruptReason(run);
    if (reason === undefined) return false;
    run.interruptedBy ??= reason;
    return true;
  }

  #interruptReason(run: Run): RunErrorKind | undefined {
    const cancel = Atomics.load(this.#control.cancel, 0);
    if (cancel === CANCEL_ABORTED) return 'aborted';
    if (cancel === CANCEL_TIMEOUT) return 'timeout';
    if (run.console.exceeded) return 'output';
    if (BigInt(Date.now()) > Atomics.load(this.#control.deadline, 0)) return 'timeout';
    return undefined;
  }

  /** The guest called a client method: validate, register the pending promise, ask the host. */
  #startApiCall(run: Run, operationId: string, argsJson: string): QuickJSHandle {
    if (!run.operationIds.has(operationId)) throw new TypeError(`Unknown operation ${JSON.stringify(operationId)}`);
    const request = toApiRequest(operationId, JSON.parse(argsJson));
    const callId = ++run.nextCallId;
    const deferred = run.context.newPromise();
    run.calls.set(callId, deferred);
    run.console.flush();
    this.#post({ type: 'call', seq: run.seq, callId, request });
    return deferred.handle;
  }

  #deliverApiResult(run: Run, callId: number, json: string): void {
    const deferred = run.calls.get(callId);
    if (!deferred) return;
    run.calls.delete(callId);
    try {
      const handle = run.context.newString(json);
      deferred.resolve(handle);
      handle.dispose();
    } catch (error) {
      this.#finish(run, hostFailure(run, error));
      return;
    }
    this.#pump(run);
  }

  /** Runs the pending jobs, then ends the run if its promise settled, or waits for an API result. */
  #pump(run: Run): void {
    if (run.finished) return;
    try {
      const jobs = run.runtime.executePendingJobs();
      if (jobs.error) {
        const outcome = guestFailure(run, jobs.error, 'runtime');
        jobs.error.dispose();
        this.#finish(run, outcome);
        return;
      }
      if (run.console.exceeded) {
        this.#finish(run, limitFailure(run, 'output'));
        return;
      }
      const state = run.context.getPromiseState(run.promise!);
      if (state.type === 'pending') {
        if (run.calls.size === 0 && !run.runtime.hasPendingJob()) {
          this.#finish(run, failure('runtime', 'The code awaits a promise that nothing can settle (the sandbox has no timers and no API call is in flight)'));
          return;
        }
        run.console.flush();
        return;
      }
      if (state.type === 'fulfilled') {
        const outcome = this.#valueOutcome(run, state.value);
        if (!state.notAPromise) state.value.dispose();
        this.#finish(run, outcome);
      } else {
        const outcome = guestFailure(run, state.error, 'runtime');
        state.error.dispose();
        this.#finish(run, outcome);
      }
    } catch (error) {
      this.#finish(run, hostFailure(run, error));
    }
  }

  /** The return value as JSON within what is left of the output budget. */
  #valueOutcome(run: Run, valueHandle: QuickJSHandle): WorkerOutcome {
    const { context, helpers } = run;
    if (run.console.exceeded) return limitFailure(run, 'output');
    const room = run.console.output.room;
    const roomHandle = context.newNumber(room);
    const result = context.callFunction(helpers!.serialize, context.undefined, valueHandle, roomHandle);
    roomHandle.dispose();
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
    if (Buffer.byteLength(serialized.json, 'utf8') > room) return limitFailure(run, 'output');
    return { ok: true, value: JSON.parse(serialized.json) };
  }

  #finish(run: Run, outcome: WorkerOutcome): void {
    if (run.finished) return;
    run.finished = true;
    // Pages the heap got some other way than the wrapped grow are counted now, and the instance retired.
    if (reconcile(run.instance)) run.poisoned = true;
    run.sandbox.binding.run = undefined;
    if (this.#current === run) this.#current = undefined;
    run.console.flush();
    const final = run.interruptedBy && outcome.ok ? limitFailure(run, run.interruptedBy) : outcome;
    this.#post({
      type: 'done',
      seq: run.seq,
      outcome: final,
      consoleTruncated: run.console.output.truncated,
      wasmBytes: run.instance.memory.buffer.byteLength,
      // A heap that hit a limit or grew is not dropped in place: the thread's exit hands its memory back at once.
      recycle: run.poisoned || !memorySound(run.instance),
      clientNamespaces: run.clientNamespaces,
      extrasCompiled: run.sandbox.binding.extrasCompiled === true,
    });
    // Prepare the next sandbox while idle (on this instance if it is sound, else on a new one).
    this.announceWhenReady(run.instance.maxPages, run);
  }
}
