// node bench/subprocessEngines.bench.ts — what a run costs on the subprocess
// engines. For each configuration that can run here (node with egress none,
// deno with egress executor, and both under the srt wrapper): p50 and p95 of
// `return 1 + 1` and of one API call through the gate proxy, 50 iterations
// each, after one warm-up run. Then Deno's cold start (a bare `deno run` of a
// trivial program from stdin) with a warm private DENO_DIR and with an empty
// one every time. Usage: [iterations] (default 50).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateProxy } from '../main/core/sandbox/gateProxy.ts';
import type { RunOutcome, SandboxEngine } from '../main/core/sandbox/engine.ts';
import { createNodeEngine } from '../main/core/sandbox/node/nodeEngine.ts';
import { createDenoEngine, denoRuntimeArgs } from '../main/core/sandbox/deno/denoEngine.ts';
import { findDeno } from '../main/core/sandbox/deno/findDeno.ts';
import { findSrt } from '../main/core/sandbox/srt/srtWrapper.ts';
import { resolveSubprocessLimits } from '../main/core/sandbox/subprocess/limits.ts';

const ITERATIONS = Number(process.argv[2] ?? 50);
const LIMITS = { timeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024 };
const CLIENT = { operations: [{ operationId: 'items.list', callPath: ['items', 'list'] }], globals: ['api'] };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10);

async function time(engine: SandboxEngine, code: string): Promise<number[]> {
  const run = (): Promise<RunOutcome> =>
    engine.run({ runId: 'bench', code, client: CLIENT, limits: LIMITS, callApi: async () => ({ data: { items: [1, 2, 3] }, error: null, status: 200 }) });
  const warm = await run();
  if (!warm.ok) throw new Error(`${engine.name}: ${warm.error.kind}: ${warm.error.message}`);
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    const outcome = await run();
    samples.push(performance.now() - t0);
    if (!outcome.ok) throw new Error(`${engine.name}: ${outcome.error.message}`);
  }
  return samples;
}

const work = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
const proxy = await startGateProxy();
const deno = findDeno();
const srt = await findSrt();
const configs: { label: string; make: () => SandboxEngine }[] = [{ label: 'node, egress none', make: () => createNodeEngine({ proxy, egress: 'none' }) }];
if (deno.found)
  configs.push({
    label: 'deno, egress executor',
    make: () => createDenoEngine({ proxy, egress: 'executor', denoPath: deno.path, denoDir: join(work, 'deno-dir') }),
  });
if (srt.found) {
  configs.push({ label: 'node, egress wrapper (srt)', make: () => createNodeEngine({ proxy, egress: 'wrapper' }) });
  if (deno.found)
    configs.push({
      label: 'deno, egress wrapper (srt)',
      make: () => createDenoEngine({ proxy, egress: 'wrapper', denoPath: deno.path, denoDir: join(work, 'deno-dir') }),
    });
}

console.log(`subprocess engines, ${ITERATIONS} iterations each (wall time of engine.run, process start to outcome)`);
if (!deno.found) console.log(`  deno skipped: ${deno.reason}`);
if (!srt.found) console.log(`  srt skipped: ${srt.reason}`);
console.log(`${'configuration'.padEnd(30)} ${'return 1+1 p50'.padStart(15)} ${'p95'.padStart(10)} ${'1 API call p50'.padStart(15)} ${'p95'.padStart(10)}`);
for (const config of configs) {
  const engine = config.make();
  try {
    const plain = await time(engine, 'return 1 + 1;');
    const call = await time(engine, 'return (await api.items.list()).data;');
    console.log(
      `${config.label.padEnd(30)} ${ms(percentile(plain, 50)).padStart(15)} ${ms(percentile(plain, 95))} ${ms(percentile(call, 50)).padStart(15)} ${ms(percentile(call, 95))}`,
    );
  } finally {
    await engine.close();
  }
}

if (deno.found) {
  const runDeno = (denoDir: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const args = denoRuntimeArgs({ egress: 'executor', gatePort: proxy.port, limits: resolveSubprocessLimits(LIMITS) });
      const t0 = performance.now();
      const child = spawn(deno.path, args, {
        env: { DENO_DIR: denoDir, HOME: work, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`deno exited ${code}`))));
      child.stdin.end('console.log(1 + 1);\n');
    });
  const warmDir = join(work, 'warm-deno-dir');
  await runDeno(warmDir);
  const warm: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    warm.push(await runDeno(warmDir));
    const fresh = join(work, `fresh-${i}`);
    cold.push(await runDeno(fresh));
    rmSync(fresh, { recursive: true, force: true });
  }
  console.log(`\nDeno ${deno.version} cold start (bare deno run of a trivial stdin program, the engine's flags), ${ITERATIONS} iterations`);
  console.log(`  warm private DENO_DIR         p50 ${ms(percentile(warm, 50))}  p95 ${ms(percentile(warm, 95))}`);
  console.log(`  empty DENO_DIR every time     p50 ${ms(percentile(cold, 50))}  p95 ${ms(percentile(cold, 95))}`);
}

await proxy.close();
rmSync(work, { recursive: true, force: true });
