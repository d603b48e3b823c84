// npm run bench:cpu — what one `execute` costs the companion in CPU, thread by
// thread (issue 35): the built package's `serve`, one client joined over
// `stdio` calling as fast as it can, and the CPU time each of the companion's
// threads spent (Linux: /proc/<pid>/task/*/stat, 10 ms ticks, read before and
// after) divided by the calls. Per-thread CPU is what a loaded machine runs
// out of, and unlike a wall-clock figure or a profile taken under load it
// does not move with what else the machine is doing. Two scripts: `return
// 1+1` (the run's own cost) and one demo GET (a run that calls an API).
//
//   node bench/runCpu.bench.ts [--calls N] [--rounds R] [--against <other dist/cli/airlock.js>]
//
// With --against, the two builds are measured in turns, R rounds each, so
// the comparison holds on a machine whose speed drifts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { percentile, startRawClient } from './rawMcpClient.ts';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const CALLS = Number(flag('--calls')) || 1000;
const ROUNDS = Number(flag('--rounds')) || 2;
const root = resolve(import.meta.dirname, '..');
const builds: [string, string][] = [['this build', join(root, 'dist', 'cli', 'airlock.js')]];
const against = flag('--against');
if (against) builds.push(['--against', resolve(against)]);
for (const [, cli] of builds)
  if (!existsSync(cli)) {
    console.log(`${cli} is not built: run \`npm run build:cli\` first`);
    process.exit(1);
  }
if (process.platform !== 'linux') {
  console.log('bench:cpu reads /proc/<pid>/task: Linux only');
  process.exit(0);
}

const SCRIPTS = { 'return 1+1': 'return 1+1', 'one demo GET': 'const r = await demo.events.list({ query: { limit: 1 } }); return r.status;' };
/** Thread names as Node gives them: the main thread, the QuickJS worker, V8's collector and compiler threads, libuv's pool. */
const THREADS = ['MainThread', 'WorkerThread', 'V8Worker', 'libuv-worker'];

/** CPU ms each thread name has used so far (user + system), summed over the threads of that name. */
function cpuByThread(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    const key = THREADS.find((t) => name.startsWith(t)) ?? 'other';
    out.set(key, (out.get(key) ?? 0) + ms);
  }
  return out;
}

async function measure(cli: string): Promise<Record<string, { p50: number; perThread: Map<string, number> }>> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-cpu-'));
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir, '--rate-limit', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
  const deadline = Date.now() + 60_000;
  while (!/APIs loaded/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = await startRawClient({ command: process.execPath, args: [cli, 'stdio', '--data-dir', dir], timeoutMs: 60_000 });
  const out: Record<string, { p50: number; perThread: Map<string, number> }> = {};
  try {
    for (const [label, code] of Object.entries(SCRIPTS)) {
      for (let i = 0; i < 300; i++) await client.call('execute', { code });
      const before = cpuByThread(child.pid!);
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await client.call('execute', { code });
        times.push(performance.now() - t);
      }
      const after = cpuByThread(child.pid!);
      const perThread = new Map<string, number>();
      for (const [name, ms] of after) perThread.set(name, (ms - (before.get(name) ?? 0)) / CALLS);
      out[label] = { p50: percentile(times, 50), perThread };
    }
  } finally {
    await client.close();
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

console.log(`bench:cpu — Node ${process.versions.node}; ${CALLS} calls per script, ${ROUNDS} round(s)${against ? ' per build, in turns' : ''}`);
const f = (n: number) => n.toFixed(2);
for (let round = 1; round <= ROUNDS; round++)
  for (const [name, cli] of builds) {
    const result = await measure(cli);
    for (const [label, { p50, perThread }] of Object.entries(result)) {
      const total = [...perThread.values()].reduce((a, b) => a + b, 0);
      const threads = [...THREADS, 'other'].map((t) => `${t} ${f(perThread.get(t) ?? 0)}`).join(', ');
      console.log(`round ${round}, ${name}, ${label}: p50 ${f(p50)} ms; companion CPU per call ${f(total)} ms (${threads})`);
    }
  }
