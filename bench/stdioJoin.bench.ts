// node bench/stdioJoin.bench.ts [--runs N]
//
// `airlock stdio` joining a running companion, as a client starts it: from
// spawn to the answer to `initialize` (target ≤ 60 ms), beside the floor
// (spawning Node itself) and `airlock stdio --in-process` (a private
// companion). The companion is `airlock serve` on the demo API.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../test/helpers/processes.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 20;
const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'main', 'cli', 'airlock.js');
const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;
const fmt = (v: number[]) => `p50 ${pct(v, 50).toFixed(0)} ms, p95 ${pct(v, 95).toFixed(0)} ms`;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

/** Spawn → the first line on stdout (the answer to initialize), in ms. */
function timeToInitialize(argv: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no answer to initialize within 30 s: ${argv.join(' ')}`));
    }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes('\n')) {
        const ms = performance.now() - started;
        clearTimeout(timer);
        child.stdin.end();
        child.kill();
        done(ms);
      }
    });
    child.stdin.write(INIT + '\n');
  });
}

const dir = mkdtempSync(join(tmpdir(), 'airlock-join-'));
const server = runCli(['serve', '--port', '0', '--data-dir', dir]);
try {
  await server.waitFor(/serving .* on http/);
  const floor: number[] = [];
  for (let i = 0; i < RUNS; i++) floor.push(await timeToInitialize(['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))']));
  const joined: number[] = [];
  for (let i = 0; i < RUNS; i++) joined.push(await timeToInitialize([cli, 'stdio', '--data-dir', dir]));
  const builtCli = join(root, 'dist', 'cli', 'airlock.js');
  const built: number[] = [];
  if (existsSync(builtCli)) for (let i = 0; i < RUNS; i++) built.push(await timeToInitialize([builtCli, 'stdio', '--data-dir', dir]));
  const inProcess: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 10); i++) inProcess.push(await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', join(dir, 'private')]));
  console.log(`spawn → answer, ${RUNS} runs each (Node ${process.versions.node})`);
  console.log(`  node itself (the floor)           ${fmt(floor)}`);
  console.log(`  airlock stdio, joining serve      ${fmt(joined)}   (target ≤ 60 ms)`);
  if (built.length) console.log(`  the built package (dist/cli)      ${fmt(built)}   (what npm and the .mcpb run)`);
  console.log(`  airlock stdio --in-process        ${fmt(inProcess)}`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
