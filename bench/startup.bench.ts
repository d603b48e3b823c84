// npm run bench:startup — from spawning the companion to its answer to
// `initialize`, and its memory once idle.
//   node bench/startup.bench.ts [--runs N]
// - the floor: Node itself answering a line, and a minimal MCP SDK server;
// - `airlock stdio --in-process` (a private companion: the whole core) on the
//   demo API, from the built package (dist/cli, what npm and the .mcpb run)
//   and from the checkout (TypeScript sources), caches warm (the per-user
//   compile cache, the API cache in the data dir); the very first start of a
//   fresh data dir on its own line;
// - `airlock serve` on the demo API: spawn → listening → an HTTP initialize
//   answered;
// - GitHub's 1,223 operations: the first start of a data dir (the document
//   parsed, resolved and indexed) and later ones (restored from the API cache);
// - idle RSS of the demo companion one second after it answered.
// Target: ≤ 150 ms to initialize on the demo API; ≤ 100 ms for GitHub's
// catalogue and index to load on a later start (the `restored … in N ms` line
// the companion logs); idle RSS ≤ 100 MB.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { percentile } from './rawMcpClient.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 15;
const root = resolve(import.meta.dirname, '..');
const checkoutCli = join(root, 'main', 'cli', 'airlock.js');
const builtCli = join(root, 'dist', 'cli', 'airlock.js');
const github = join(root, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});
const fmt = (v: number[]) =>
  `p50 ${percentile(v, 50).toFixed(0).padStart(4)} ms, p95 ${percentile(v, 95).toFixed(0).padStart(4)} ms, min ${Math.min(...v).toFixed(0)} ms`;

interface Start {
  ms: number;
  stderr: string;
  rssMb?: number;
}

/** Spawn → the first line on stdout (the answer to initialize). */
function timeToInitialize(argv: string[], options: { idleRss?: boolean } = {}): Promise<Start> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no answer to initialize within 60 s: ${argv.join(' ')}\n${stderr}`));
    }, 60_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!out.includes('\n') || timer.hasRef() === false) return;
      const ms = performance.now() - started;
      clearTimeout(timer);
      timer.unref();
      const finish = (rssMb?: number) => {
        child.once('exit', () => done({ ms, stderr, ...(rssMb !== undefined ? { rssMb } : {}) }));
        child.stdin.end();
        child.kill();
      };
      if (!options.idleRss) return finish();
      setTimeout(() => finish(rssOf(child.pid!)), 1000);
    });
    child.stdin.write(INIT + '\n');
  });
}

function rssOf(pid: number): number | undefined {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : undefined;
}

/** Spawn `serve` → its "serving" line → an HTTP initialize answered. */
async function serveToInitialize(cli: string, dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((done, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`serve did not start within 60 s:\n${stderr}`)), 60_000);
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /serving .* on (http:\/\/[^\s]+)\/mcp/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          done(`${m[1]}/mcp`);
        }
      });
    });
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INIT,
    });
    await response.text();
    if (!response.ok) throw new Error(`initialize over HTTP: ${response.status}`);
    return performance.now() - started;
  } finally {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill();
    await gone;
  }
}

async function runs(n: number, fn: () => Promise<Start>): Promise<Start[]> {
  const all: Start[] = [];
  for (let i = 0; i < n; i++) all.push(await fn());
  return all;
}

const dir = mkdtempSync(join(tmpdir(), 'airlock-startup-'));
try {
  console.log(`spawn → answer to initialize, ${RUNS} runs each (Node ${process.versions.node})`);
  const floor = await runs(RUNS, () => timeToInitialize(['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))']));
  console.log(`  node itself (the floor)                        ${fmt(floor.map((s) => s.ms))}`);
  const sdk = await runs(RUNS, () => timeToInitialize([join(root, 'bench', 'floorServer.ts')]));
  console.log(`  a minimal MCP SDK server (TypeScript)          ${fmt(sdk.map((s) => s.ms))}`);

  for (const [label, cli] of [
    ['built package (dist/cli)', builtCli],
    ['checkout (TypeScript)   ', checkoutCli],
  ] as const) {
    if (!existsSync(cli)) {
      console.log(`  ${label}: not built (npm run build)`);
      continue;
    }
    const data = mkdtempSync(join(dir, 'demo-'));
    const first = await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info']);
    const later = await runs(RUNS, () => timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info'], { idleRss: false }));
    const idle = await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info'], { idleRss: true });
    console.log(`\n  ${label}, demo API, stdio --in-process:`);
    console.log(`    first start of a data dir                    ${first.ms.toFixed(0).padStart(4)} ms`);
    console.log(`    later starts                                 ${fmt(later.map((s) => s.ms))}   (target ≤ 150 ms)`);
    console.log(`    idle RSS, 1 s after answering                ${idle.rssMb?.toFixed(0)} MB   (target ≤ 100 MB)`);
    const serveData = mkdtempSync(join(dir, 'serve-'));
    const serveFirst = await serveToInitialize(cli, serveData);
    const serve = [];
    for (let i = 0; i < Math.min(RUNS, 8); i++) serve.push(await serveToInitialize(cli, serveData));
    console.log(`    serve: spawn → HTTP initialize answered      ${fmt(serve)}   (first start of its data dir ${serveFirst.toFixed(0)} ms)`);
  }

  if (existsSync(github)) {
    const cli = existsSync(builtCli) ? builtCli : checkoutCli;
    const data = mkdtempSync(join(dir, 'github-'));
    const argv = [cli, 'stdio', '--in-process', '--data-dir', data, '--spec', github, '--auth', 'none', '--log-level', 'info'];
    const loadMs = (s: Start) => Number(/operations, .*\((?:loaded|restored from the cache) in (\d+) ms\)/.exec(s.stderr)?.[1] ?? NaN);
    const first = await timeToInitialize(argv);
    // The first start writes the cache just after answering: wait for it before the next start.
    const later = await runs(Math.min(RUNS, 8), () => timeToInitialize(argv));
    const hits = later.filter((s) => /restored from the cache/.test(s.stderr));
    console.log(`\n  GitHub (1,223 operations, 13 MB), ${cli === builtCli ? 'built package' : 'checkout'}:`);
    console.log(`    first start: catalogue + index built in ${loadMs(first)} ms; spawn → initialize ${first.ms.toFixed(0)} ms`);
    console.log(
      `    later starts (${hits.length}/${later.length} from the cache): catalogue + index ${fmt(later.map(loadMs))}   (target ≤ 100 ms); spawn → initialize ${fmt(later.map((s) => s.ms))}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
