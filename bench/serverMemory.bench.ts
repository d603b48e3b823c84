// node bench/serverMemory.bench.ts [--runs N] [--every N] [--bombs N]
//
// The companion's memory as a client sees it: `airlock stdio` (QuickJS, the
// default caps) driven by a real MCP client.
//  1. Soak: N trivial executes (`return 1+1`, default 10,000), the server's
//     RSS (/proc/<pid>/status VmRSS) printed every `--every` runs. Pass: the
//     RSS at the end is at most 10 % above the first reading at or after run
//     500 (a fall is memory handed back, not a leak).
//  2. Bombs: four memory bombs sent at once (each allocates far past its
//     256 MB cap), caps raised so all four run together. Prints the server's
//     peak RSS (VmHWM) and how each ended, then checks the server still answers.
//     `--bombs 0` leaves them out.
// Exits 1 when the soak target is missed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEchoApi, writeEchoSpec } from '../test/helpers/echoApi.ts';

const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'main', 'cli', 'airlock.js');
const args = process.argv.slice(2);
const option = (name: string, fallback: number, min = 1): number => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isInteger(value) || value < min) {
    console.error(`${name} takes a whole number of at least ${min} (got ${args[i + 1] ?? 'nothing'})`);
    process.exit(2);
  }
  return value;
};
const RUNS = option('--runs', 10_000);
const EVERY = option('--every', 500);
const BOMBS = option('--bombs', 4, 0);

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startServer(dir: string, spec: string, extra: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'stdio', '--in-process', '--spec', spec, '--data-dir', dir, '--engine', 'quickjs', '--log-level', 'error', '--rate-limit', '0', ...extra],
    cwd: root,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'memory-bench', version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid!, close: () => client.close() };
}

const echo = await startEchoApi();
const dir = mkdtempSync(join(tmpdir(), 'airlock-mem-'));
const spec = writeEchoSpec(dir, echo.url);
let failed = false;
try {
  // 1. Soak
  {
    const server = await startServer(join(dir, 'soak'), spec, []);
    console.log(`soak: ${RUNS} executes of "return 1+1" over MCP stdio, QuickJS, default caps`);
    console.log('   runs   RSS MB');
    let at500 = 0;
    let started = performance.now();
    let last = 0;
    for (let i = 1; i <= RUNS; i++) {
      const r = await server.client.callTool({ name: 'execute', arguments: { code: 'return 1+1' } });
      if (r.isError) throw new Error(`run ${i}: ${JSON.stringify(r.content)}`);
      if (i === 1) started = performance.now();
      if (i % EVERY === 0 || i === RUNS) {
        last = procStatus(server.pid, 'VmRSS');
        // The reference: the first reading at or after run 500.
        if (i >= 500 && !at500) at500 = last;
        console.log(`${String(i).padStart(7)}  ${last.toFixed(1).padStart(7)}`);
      }
    }
    console.log(`${((RUNS - 1) / ((performance.now() - started) / 1000)).toFixed(0)} executes/s one at a time`);
    const growth = at500 ? ((last - at500) / at500) * 100 : NaN;
    const ok = growth <= 10;
    failed ||= !ok;
    console.log(
      `soak: ${at500.toFixed(1)} MB after 500 runs → ${last.toFixed(1)} MB after ${RUNS} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %) ${ok ? 'ok (≤ +10 %)' : 'FAIL (> +10 %)'}`,
    );
    await server.close();
  }
  // 2. Concurrent bombs (--bombs 0: none)
  if (BOMBS > 0) {
    const server = await startServer(join(dir, 'bombs'), spec, ['--max-concurrent', String(BOMBS), '--per-caller-concurrent', String(BOMBS)]);
    await server.client.callTool({ name: 'execute', arguments: { code: 'return 1' } });
    const before = procStatus(server.pid, 'VmRSS');
    const bomb = 'const a = []; for (let i = 0; i < 4000; i++) a.push(new Float64Array(1e5)); return a.length;';
    const results = await Promise.all(
      Array.from({ length: BOMBS }, () => server.client.callTool({ name: 'execute', arguments: { code: bomb } }, undefined, { timeout: 120_000 })),
    );
    const peak = procStatus(server.pid, 'VmHWM');
    // Workers that hit the cap are terminated; give the threads up to 5 s to go.
    let after = procStatus(server.pid, 'VmRSS');
    for (let waited = 0; waited < 5000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      const now = procStatus(server.pid, 'VmRSS');
      if (now >= after - 1) break;
      after = now;
    }
    const alive = await server.client.callTool({ name: 'execute', arguments: { code: 'return 6*7' } });
    console.log(`\nbombs: ${BOMBS} at once, each allocating 3.2 GB against a 256 MB per-run cap (global sandbox budget: the default --sandbox-memory-mb)`);
    console.log(`  server RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB`);
    for (const [i, r] of results.entries()) {
      const text = JSON.stringify(r.content).slice(0, 140);
      console.log(`  bomb ${i + 1}: ${r.isError ? 'refused/stopped' : 'completed'} — ${text}`);
    }
    console.log(`  afterwards: ${alive.isError ? 'ERROR' : 'server still answers'} (${JSON.stringify(alive.content).slice(0, 60)})`);
    await server.close();
  }
} finally {
  await echo.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
