// What one run in the QuickJS worker holds, and setting it up on its sandbox:
// bound to the sandbox's bridge functions, QuickJS's memory and stack limits
// applied, and the prelude run, which installs the client globals and
// `console` and hands back the two helpers the end of the run uses
// (`serialize` and `describe`). The client shapes a run was sent with are
// kept by the worker as the message arrives (workerRuns.ts).
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import type { RunErrorKind } from '../engine.ts';
import type { HostToWorker, ResolvedLimits, WorkerToHost } from './protocol.ts';
import { ConsoleBuffer } from './consoleBuffer.ts';
import type { Instance, Sandbox } from './sandboxes.ts';

export type RunMessage = Extract<HostToWorker, { type: 'run' }>;

interface Helpers {
  serialize: QuickJSHandle;
  describe: QuickJSHandle;
}

export interface Run {
  seq: number;
  limits: ResolvedLimits;
  sandbox: Sandbox<Run>;
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
  /** The console lines, and the output budget they share with the return value. */
  console: ConsoleBuffer;
  interruptedBy?: RunErrorKind;
  /** Set when the instance's state can no longer be trusted (a trap, a host-side failure). */
  poisoned: boolean;
  finished: boolean;
}

/** The run of `message` on `sandbox`, its client ready; throws if the prelude does not run (out of memory included). */
export function setUp(message: RunMessage, sandbox: Sandbox<Run>, post: (message: WorkerToHost) => void): Run {
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
    console: new ConsoleBuffer(message.seq, message.limits.outputBytes, post),
    poisoned: false,
    finished: false,
  };
  sandbox.binding.run = run;
  runtime.setMemoryLimit(message.limits.memoryBytes);
  runtime.setMaxStackSize(message.limits.stackBytes);
  const args = [
    sandbox.hostCall,
    sandbox.hostWrite,
    sandbox.hostShape,
    sandbox.hostExtras,
    context.newNumber(message.limits.outputBytes),
    context.newString(
      JSON.stringify(message.roots.map((r) => ({ idPrefix: r.idPrefix, globals: r.globals, ...(r.unavailable ? { unavailable: r.unavailable } : {}) }))),
    ),
  ];
  const made = context.callFunction(sandbox.prelude, context.undefined, args);
  for (const handle of args.slice(4)) handle.dispose();
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
