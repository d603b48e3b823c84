// node bench/soak.bench.ts [--runs N] [--every N] [--case trivial|call|both] [--concurrency N]
//
// Memory soak of the QuickJS engine alone: N back-to-back runs of a trivial
// script (`return 1+1`) and of a script with one API call (a fake callApi
// that answers at once), with the engine configured as `airlock serve`
// configures it (one warm worker, workers bounded by the cores). Every
// `--every` runs it prints the process RSS and its break-down
// (process.memoryUsage(): V8 heap used/total, external, array buffers) plus
// the engine's own counters, so a climb can be told apart from V8's heap
// settling. Run it with `--expose-gc` to also print the RSS after a full GC
// at each sample (the unforced figure is the one the target is about).
//
// Pass/fail: the RSS at the end must be within 10 % of the RSS after the
// first 500 runs; the script exits 1 otherwise.
import { availableParallelism } from 'node:os';
import { createQuickJsEngine } from '../main/core/sandbox/quickjs/quickjsEngine.ts';
import type { ApiCallResult, RunRequest } from '../main/core/sandbox/engine.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const index = args.indexOf(name);
  return index >= 0 && args[index + 1] ? args[index + 1]! : fallback;
};
const RUNS = Number(option('--runs', '10000'));
const EVERY = Number(option('--every', '500'));
const CONCURRENCY = Math.max(1, Number(option('--concurrency', '1')));
const which = option('--case', 'both');
const gc = (globalThis as { gc?: () => void }).gc;
const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1).padStart(6);

const client = { operations: [{ operationId: 'events.list', callPath: ['events', 'list'] }], globals: ['api'] };
const limits = { timeoutMs: 5000, memoryBytes: 256 * MB, outputBytes: 1024 * 1024 };
const callApi = async (): Promise<ApiCallResult> => ({
  data: { items: [{ uid: 1, title: 'Concert' }], total: 1 },
  error: null,
  status: 200,
  headers: { 'content-type': 'application/json' },
});

const cases: Record<string, string> = {
  trivial: 'return 1+1',
  call: 'const r = await api.events.list({ query: { size: 1 } }); return r.data.total;',
};

async function soak(name: string, code: string): Promise<boolean> {
  // Settings as `airlock serve` uses by default: 4 concurrent runs, one warm worker.
  const engine = createQuickJsEngine({ maxWorkers: Math.min(4, Math.max(2, availableParallelism())), poolSize: 1 });
  const request = (i: number): RunRequest => ({ runId: `soak-${i}`, code, client, limits, callApi, signal: new AbortController().signal });
  console.log(`\n${name}: ${RUNS} runs of ${JSON.stringify(code)} (${CONCURRENCY} at a time)${gc ? ', GC forced before the "after gc" column' : ''}`);
  console.log(`  runs    rss MB  heapUsed  heapTotal  external  arrayBufs${gc ? '  rss after gc' : ''}  workers started/recycled/live  sandbox wasm MB`);
  const samples: number[] = [];
  const started = performance.now();
  let next = 0;
  let done = 0;
  const sample = () => {
    const m = process.memoryUsage();
    samples.push(m.rss);
    let afterGc = '';
    if (gc) {
      gc();
      afterGc = `  ${mb(process.memoryUsage().rss)}      `;
    }
    const s = engine.stats();
    console.log(
      `  ${String(done).padStart(5)}  ${mb(m.rss)}  ${mb(m.heapUsed)}    ${mb(m.heapTotal)}    ${mb(m.external)}   ${mb(m.arrayBuffers)}${afterGc}  ` +
        `${String(s.workersStarted).padStart(4)}/${String(s.workersRecycled).padStart(4)}/${s.liveWorkers}` +
        `                  ${mb(s.sandboxMemory.usedBytes)}`,
    );
  };
  const worker = async () => {
    while (next < RUNS) {
      const i = next++;
      const outcome = await engine.run(request(i));
      if (!outcome.ok) throw new Error(`run ${i} failed: ${outcome.error.kind}: ${outcome.error.message}`);
      done++;
      if (done % EVERY === 0) sample();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await engine.close();
  const reference = samples[0]!;
  const last = samples.at(-1)!;
  const growth = (last - reference) / reference;
  const ok = growth <= 0.1;
  console.log(
    `  ${(RUNS / seconds).toFixed(0)} runs/s; RSS after ${EVERY} runs ${mb(reference).trim()} MB, at the end ${mb(last).trim()} MB ` +
      `(${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %, max ${mb(Math.max(...samples)).trim()} MB): ${ok ? 'within' : 'OVER'} 10 %`,
  );
  return ok;
}

let allOk = true;
for (const name of which === 'both' ? Object.keys(cases) : [which]) allOk = (await soak(name, cases[name]!)) && allOk;
process.exitCode = allOk ? 0 : 1;
