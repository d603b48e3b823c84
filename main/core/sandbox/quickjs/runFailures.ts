// How a run in the QuickJS worker fails, in the words the caller reads: a
// limit (time, memory — its own cap or the shared budget —, output, stack),
// a guest error (thrown, rejected or from evaluation) described by the
// prelude's `describe` with frames in the caller's code only, or a failure
// on the host side, reported without its host-side text (paths and URLs are
// cut out). Messages are clipped: they go back to a model, not into a log.
import type { QuickJSHandle } from 'quickjs-emscripten';
import type { RunErrorKind } from '../engine.ts';
import { WASM_PAGE, type ResolvedLimits, type WorkerOutcome } from './protocol.ts';
import { formatBytes, limitError } from '../runBudget.ts';
import { Wasm } from './wasm.ts';
import { memoryAtCap, WasmOutOfMemory, type Instance } from './sandboxes.ts';
import type { Run } from './runState.ts';

const STACK_FRAMES_KEPT = 12;
/** Error messages longer than this are cut: they go back to a model, not into a log. */
const MESSAGE_CHARS = 2000;

export const budgetText = (budgetPages: number) => `shared memory budget of ${formatBytes(budgetPages * WASM_PAGE)}`;

export function failure(kind: RunErrorKind, message: string, stack?: string): WorkerOutcome {
  return { ok: false, error: stack ? { kind, message, stack } : { kind, message } };
}

export function memoryFailure(instance: Instance | undefined, limits: ResolvedLimits): WorkerOutcome {
  if (instance?.refused === 'budget') {
    const held = formatBytes(instance.memory.buffer.byteLength);
    return failure(
      'memory',
      `Memory limit exceeded: the sandboxes running at once reached their ${budgetText(instance.accounting.budget.pages)} (this run held ${held}; its own cap is ${formatBytes(limits.memoryBytes)}). Retry when fewer runs are in flight, or use less memory`,
    );
  }
  return failure('memory', `Memory limit of ${formatBytes(limits.memoryBytes)} exceeded`);
}

export function limitFailure(run: Run, kind: RunErrorKind): WorkerOutcome {
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
export function scrub(text: string): string {
  return text
    .replace(/file:\/\/\S+/g, '<host>')
    .replace(/(?:[A-Za-z]:)?[\\/][^\s:'"()]*[\\/][^\s:'"()]*/g, '<host>')
    .slice(0, 500);
}

/** Something failed on the host side of the run: the instance is not trusted again. */
export function hostFailure(run: Run, error: unknown): WorkerOutcome {
  run.poisoned = true;
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  if (error instanceof WasmOutOfMemory) return limitFailure(run, 'memory');
  if (error instanceof RangeError && /call stack/i.test(error.message)) return limitFailure(run, 'stack');
  if (error instanceof Wasm.RuntimeError && memoryAtCap(run.instance)) return limitFailure(run, 'memory');
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
export function guestFailure(run: Run, errorHandle: QuickJSHandle, fallback: 'syntax' | 'runtime'): WorkerOutcome {
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  let described: Described | undefined;
  try {
    described = describe(run, errorHandle);
  } catch (error) {
    return hostFailure(run, error);
  }
  if (run.interruptedBy) return limitFailure(run, run.interruptedBy);
  if (!described) return memoryAtCap(run.instance) ? limitFailure(run, 'memory') : failure(fallback, 'The code failed with an error that cannot be described');
  // Out of memory while building the error leaves QuickJS throwing null: the heap at its cap says why.
  if (!described.isError)
    return memoryAtCap(run.instance) ? limitFailure(run, 'memory') : failure(fallback, `Uncaught ${clip(described.text ?? 'value', MESSAGE_CHARS)}`);
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
