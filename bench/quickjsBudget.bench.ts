// node bench/quickjsBudget.bench.ts [--budget-mb N] [--memory-mb N] [--rounds N] [--workers N]
//
// Process RSS while four memory bombs are sent at once to the QuickJS engine
// (four workers by default; `airlock serve` on a 2-core machine runs two at a
// time, `--workers 2`; one warm worker): each bomb is the
// limits test's (2,000 × `new Float64Array(1e5)`, i.e. far past its own cap),
// then four runs that each take ~200 MB, under their cap. Prints, per round,
// the peak RSS sampled every 5 ms while the bombs run, the RSS once they have
// ended and the engine has settled, the most wasm memory the sandboxes held
// together (the budget's high-water mark) and how each run ended.
import { createQuickJsEngine } from '../main/core/sandbox/quickjs/quickjsEngine.ts';
import type { ApiCallResult, RunOutcome, RunRequest } from '../main/core/sandbox/engine.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const MB = 1024 * 1024;
const BUDGET_MB = option('--budget-mb', 384);
const MEMORY_MB = option('--memory-mb', 256);
const ROUNDS = option('--rounds', 3);
const WORKERS = option('--workers', 4);
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

const scenarios: [string, string][] = [
  ['bombs to the cap', 'const a = []; for (let i = 0; i < 2000; i++) a.push(new Float64Array(1e5)); return a.length;'],
  ['~200 MB each', 'const a = []; for (let i = 0; i < 25; i++) a.push(new Float64Array(1e6)); return a.length;'],
];

const request = (code: string, index: number): RunRequest => ({
  runId: `bomb-${index}`,
  code,
  client: { operations: [], globals: ['api'] },
  limits: { timeoutMs: 30_000, memoryBytes: MEMORY_MB * MB, outputBytes: MB },
  callApi: async (): Promise<ApiCallResult> => ({ data: null, error: null, status: 200 }),
});

function summary(outcomes: RunOutcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    const key = outcome.ok
      ? 'ok'
      : /budget/.test(outcome.error.message)
        ? 'memory (budget)'
        : outcome.error.kind === 'memory'
          ? 'memory (own cap)'
          : outcome.error.kind;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count} ${key}`).join(', ');
}

const engine = createQuickJsEngine({ maxWorkers: WORKERS, poolSize: 1, memoryBytes: MEMORY_MB * MB, sandboxMemoryBytes: BUDGET_MB * MB });
const warm = await engine.run(request('return 1 + 1', 0));
if (!warm.ok) throw new Error(`warm-up failed: ${warm.error.message}`);
console.log(
  `4 runs sent at once (${WORKERS} workers), ${MEMORY_MB} MB cap each, ${BUDGET_MB} MB budget; RSS before any bomb: ${mb(process.memoryUsage().rss)}`,
);
for (const [name, code] of scenarios) {
  for (let round = 1; round <= ROUNDS; round++) {
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const outcomes = await Promise.all([0, 1, 2, 3].map((index) => engine.run(request(code, index))));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    // Settled: a normal run goes through (recycled workers replaced), then RSS is read.
    const after = await engine.run(request('return 1 + 1', 9));
    const stats = engine.stats() as ReturnType<typeof engine.stats> & { sandboxMemory?: { peakBytes: number } };
    const wasmPeak = stats.sandboxMemory ? mb(stats.sandboxMemory.peakBytes) : 'n/a';
    console.log(
      `${name.padEnd(17)} round ${round}: peak RSS ${mb(peak)}, after ${mb(process.memoryUsage().rss)} (next run ${after.ok ? 'ok' : after.error.kind}), ` +
        `wasm high-water ${wasmPeak}; ${summary(outcomes)}`,
    );
  }
}
await engine.close();
