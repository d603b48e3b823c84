// What the QuickJS engine does with a worker's messages about its run:
// console lines go to the run (and its listener), an API call goes to
// `callApi` (the egress gate), its clock parked while a person decides, and
// its answer back to the worker as plain JSON; 'done' settles the run and
// decides the worker's fate: back to the pool, or replaced when its state is
// unsound or its wasm memory grew. A stopping run forwards nothing.
import type { ApiCallRequest, ApiCallResult, RunControl } from '../engine.ts';
import type { Logger } from '../../log/logger.ts';
import type { HostToWorker, WorkerToHost } from './protocol.ts';
import type { Slot, WorkerPool } from './workerPool.ts';
import { clearRunTimers, pause, resume, settle, type ActiveRun } from './activeRun.ts';

/** A worker whose wasm memory grew past this is replaced after the run. */
const RECYCLE_WASM_BYTES = 32 * 1024 * 1024;

/** What the messages are handled with: the engine's log and pool, and the count `stats()` reports. */
export interface MessageContext {
  log: Logger;
  pool: WorkerPool<ActiveRun>;
  built: { clientNamespacesBuilt: number; extrasCompiled: number };
}

export function onWorkerMessage(engine: MessageContext, slot: Slot<ActiveRun>, message: WorkerToHost): void {
  const { log, pool } = engine;
  const run = slot.run;
  if (!run || message.type === 'ready' || message.seq !== run.seq) return;
  switch (message.type) {
    case 'console':
      if (run.settled) return;
      for (const entry of message.entries) {
        run.console.push(entry);
        try {
          run.request.onConsole?.(entry);
        } catch (error) {
          log.warn(`onConsole listener failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return;
    case 'call':
      // A stopping run forwards nothing: no API call may leave after the deadline or an abort.
      if (run.settled || run.stopping) return;
      void forwardCall(engine, slot, run, message.callId, message.request);
      return;
    case 'done': {
      engine.built.clientNamespacesBuilt += message.clientNamespaces;
      if (message.extrasCompiled) engine.built.extrasCompiled++;
      settle(pool, run, message.outcome, message.consoleTruncated);
      clearRunTimers(run);
      slot.run = undefined;
      slot.warm = false;
      const kind = message.outcome.ok ? undefined : message.outcome.error.kind;
      if (message.recycle || kind === 'internal') pool.recycle(slot, 'engine state unsound');
      else if (kind === 'memory' || message.wasmBytes > RECYCLE_WASM_BYTES) pool.recycle(slot, 'wasm memory grew');
      else pool.markIdle(slot);
      return;
    }
  }
}

async function forwardCall(engine: MessageContext, slot: Slot<ActiveRun>, run: ActiveRun, callId: number, request: ApiCallRequest): Promise<void> {
  const { log, pool } = engine;
  const control: RunControl = {
    whilePaused: async <T>(wait: () => Promise<T>): Promise<T> => {
      if (run.settled || slot.run !== run) return wait();
      pause(pool, run);
      try {
        return await wait();
      } finally {
        resume(pool, run);
      }
    },
  };
  let json: string;
  try {
    const result: ApiCallResult = await run.request.callApi(request, control);
    // Same shape as the subprocess engines give the guest: headers only when the gate sent some.
    json = JSON.stringify({ data: result.data ?? null, error: result.error ?? null, status: result.status, headers: result.headers });
  } catch (error) {
    log.warn(`callApi failed for ${request.operationId}: ${error instanceof Error ? error.name : 'error'}`);
    json = JSON.stringify({ data: null, error: { message: 'The API call failed inside Airlock' }, status: 0 });
  }
  if (run.settled || run.stopping || slot.run !== run || slot.state === 'dead') return;
  slot.worker.postMessage({ type: 'apiResult', seq: run.seq, callId, json } satisfies HostToWorker);
}
