// The worker thread that runs guest code in QuickJS, one run at a time: it
// reads what the host handed it (the compiled module, the control block, its
// cell of the memory budget) and wires the host's messages to the runs
// (workerRuns.ts). Each run gets a fresh QuickJS runtime and context,
// prepared while the worker is idle so a trivial run starts at once, on a
// wasm instance that serves further runs only after a run that ended sound
// (sandboxes.ts).
//
// What the worker guarantees:
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
//   went wrong on the host side is reported without its host-side text
//   (runFailures.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { controlViews, type HostToWorker, type WorkerData, type WorkerToHost } from './protocol.ts';
import { WorkerRuns } from './workerRuns.ts';

// stdout carries the MCP protocol in stdio mode: whatever this thread writes there goes to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const port = parentPort;
if (!port) throw new Error('quickjsWorker must run in a worker thread');
const init = workerData as WorkerData;
const runs = new WorkerRuns({
  wasmModule: init.wasmModule,
  control: controlViews(init.control),
  budget: { cells: new Int32Array(init.budget.cells), cell: init.budget.cell, pages: init.budget.pages },
  post: (message: WorkerToHost) => port.postMessage(message),
});

port.on('message', (message: HostToWorker) => {
  switch (message.type) {
    case 'run':
      void runs.start(message);
      break;
    case 'apiResult':
      runs.deliver(message.seq, message.callId, message.json);
      break;
    case 'cancel':
      runs.cancel(message.seq);
      break;
  }
});

runs.announceWhenReady(init.warmPages);
