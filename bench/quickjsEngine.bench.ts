// node bench/quickjsEngine.bench.ts — latency of the QuickJS engine as the
// execute tool sees it: time from engine.run() to its outcome, for a trivial
// run and for a run with one API call (a fake callApi that answers at once).
// Runs are sequential and back to back, 200 of each after a warm-up; prints
// the first run (worker start-up included), p50 and p95.
import { createQuickJsEngine } from '../main/core/sandbox/quickjs/quickjsEngine.ts';
import type { ApiCallResult, RunRequest } from '../main/core/sandbox/engine.ts';

const ITERATIONS = 200;
const WARM_UP = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const request = (code: string): RunRequest => ({
  runId: 'bench',
  code,
  client: { operations: [{ operationId: 'events.list', callPath: ['events', 'list'] }], globals: ['api'] },
  limits: { timeoutMs: 5000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024 },
  callApi: async (): Promise<ApiCallResult> => ({ data: { items: [{ uid: 1, title: 'Concert' }], total: 1 }, error: null, status: 200 }),
});

const engine = createQuickJsEngine();
const cases: [string, RunRequest][] = [
  ['return 1+1', request('return 1+1')],
  ['one API call', request('const r = await api.events.list({ query: { size: 1 } }); return r.data.total;')],
];

const first = performance.now();
const cold = await engine.run(cases[0]![1]);
const coldMs = performance.now() - first;
if (!cold.ok) throw new Error(`cold run failed: ${cold.error.message}`);

console.log(`QuickJS engine, ${ITERATIONS} sequential runs each (after ${WARM_UP} warm-up runs)`);
console.log(`first run (engine just created): ${coldMs.toFixed(1)} ms`);
console.log('case              p50 ms   p95 ms');
for (const [name, req] of cases) {
  for (let i = 0; i < WARM_UP; i++) await engine.run(req);
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now();
    const outcome = await engine.run(req);
    samples.push(performance.now() - start);
    if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error.message}`);
  }
  console.log(`${name.padEnd(16)} ${percentile(samples, 50).toFixed(2).padStart(7)}  ${percentile(samples, 95).toFixed(2).padStart(7)}`);
}
await engine.close();
