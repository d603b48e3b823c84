// npm run bench:mcp — what each MCP round trip costs, Airlock beside the
// floor, measured in one run over stdio with the same bare JSON-RPC client
// (bench/rawMcpClient.ts: the SDK's client validates answers and compiles a
// validator per tool on every tools/list, work that would be charged to the
// server). The floor is a minimal MCP SDK server with one tool.
//   node bench/mcp.bench.ts [quickjs|deno|node …] [--iterations N] [--wide] [--checkout]
// Per engine, against a local mock API: tools/list, search_docs, execute
// `return 1+1`, execute with one API call, calls per second with 20 in flight,
// the server's peak RSS. Then search_docs end to end on the OpenAgenda and
// GitHub documents (their evaluation queries, bench/search-eval/).
// Airlock runs as users run it: the built package (dist/cli, `npm run build`
// first); `--checkout` runs the TypeScript sources instead.
// Targets (QuickJS): tools/list p50 within 0.2 ms of the floor; search_docs
// p50 ≤ 1 ms on OpenAgenda and ≤ 3 ms on GitHub; `return 1+1` p50 ≤ 2 ms;
// one API call p50 ≤ 3 ms; ≥ 1,000 calls/s with 20 in flight; peak RSS ≤ 150 MB.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEchoApi, writeEchoSpec } from '../test/helpers/echoApi.ts';
import { percentile, startRawClient, timeEach, type RawMcpClient } from './rawMcpClient.ts';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const iterations = Number(args[args.indexOf('--iterations') + 1]) || 300;
const engines = args.filter((a) => ['quickjs', 'deno', 'node'].includes(a));
if (engines.length === 0) engines.push('quickjs');
// Default caps let one client run 2 executes at once (4 in all); `--wide` raises both to 20.
const wide = args.includes('--wide');
const built = join(root, 'dist', 'cli', 'airlock.js');
const cli = args.includes('--checkout') ? join(root, 'main', 'cli', 'airlock.js') : built;
if (!existsSync(cli)) {
  console.error(`${cli} is missing: run npm run build first (or pass --checkout)`);
  process.exit(2);
}
const OPENAGENDA = resolve(root, '..', 'shared', 'fixtures', 'openagenda-v3', 'openapi.yaml');
const GITHUB = join(root, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');

const p50 = (v: number[]) => percentile(v, 50);
const fmt = (v: number[]) => `p50 ${p50(v).toFixed(2)} ms, p95 ${percentile(v, 95).toFixed(2)} ms`;

function peakRssMb(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return hwm ? Number(hwm[1]) / 1024 : NaN;
}

function airlock(dataDir: string, extra: string[]): Promise<RawMcpClient> {
  return startRawClient({
    command: process.execPath,
    args: [cli, 'stdio', '--in-process', '--data-dir', dataDir, '--log-level', 'error', '--queue-size', '64', '--rate-limit', '0', ...extra],
    cwd: root,
  });
}

// ---- the floor -----------------------------------------------------------
const floor = await startRawClient({ command: process.execPath, args: [join(root, 'bench', 'floorServer.ts')], cwd: root });
await floor.request('tools/list');
const floorList = await timeEach(iterations, () => floor.request('tools/list'));
const floorCall = await timeEach(iterations, () => floor.call('echo', { text: 'hi' }));
await floor.close();
console.log(`Airlock: ${cli === built ? 'the built package (dist/cli)' : 'the checkout (TypeScript sources)'}; ${iterations} calls per figure`);
console.log(`floor, a minimal SDK server over stdio: tools/list ${fmt(floorList)}; a trivial tool call ${fmt(floorCall)}`);

// ---- per engine, against a mock API ---------------------------------------
const echo = await startEchoApi();
for (const engine of engines) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const spec = writeEchoSpec(dir, echo.url);
  const client = await airlock(dir, [
    '--spec',
    spec,
    '--engine',
    engine,
    ...(engine === 'node' ? ['--egress', 'none'] : []),
    ...(wide ? ['--per-caller-concurrent', '20', '--max-concurrent', '20'] : []),
  ]);
  const execute = (code: string) => client.call('execute', { code });
  await client.request('tools/list');
  await execute('return 1+1'); // the first run starts the engine
  await execute('return (await api.items.list()).status');
  const lists = await timeEach(iterations, () => client.request('tools/list'));
  const searches = await timeEach(iterations, () => client.call('search_docs', { query: 'list items' }));
  const trivial = await timeEach(iterations, () => execute('return 1+1'));
  const oneCall = await timeEach(iterations, () => execute('return (await api.items.list({ query: { tag: ["a"] } })).status'));
  const total = engine === 'quickjs' ? 3000 : 400;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < total) await execute('return 1+1');
    }),
  );
  const perSecond = (total / (performance.now() - started)) * 1000;
  const rss = peakRssMb(client.pid);
  await client.close();
  rmSync(dir, { recursive: true, force: true });
  const over = p50(lists) - p50(floorList);
  console.log(`\n${engine}${wide ? ' (caps raised to 20 concurrent)' : ' (default caps: 4 at once, 2 per client)'}`);
  console.log(`  initialize          ${client.initializeMs.toFixed(0)} ms (spawn to answer; bench:startup times it properly)`);
  console.log(
    `  tools/list          ${fmt(lists)}; floor ${p50(floorList).toFixed(2)} ms: ${over >= 0 ? '+' : ''}${over.toFixed(2)} ms, ×${(p50(lists) / p50(floorList)).toFixed(2)}`,
  );
  console.log(`  search_docs (mock)  ${fmt(searches)}`);
  console.log(`  execute 1+1         ${fmt(trivial)}; floor's trivial call ${p50(floorCall).toFixed(2)} ms, ×${(p50(trivial) / p50(floorCall)).toFixed(1)}`);
  console.log(`  execute + API call  ${fmt(oneCall)}`);
  console.log(`  20 in flight        ${perSecond.toFixed(0)} calls/s (${total} × return 1+1)`);
  console.log(`  server peak RSS     ${rss.toFixed(0)} MB`);
}
await echo.close();

// ---- search_docs on real documents ----------------------------------------
for (const [name, spec] of [
  ['openagenda', OPENAGENDA],
  ['github', GITHUB],
] as const) {
  if (!existsSync(spec)) continue;
  const queries = (JSON.parse(readFileSync(join(root, 'bench', 'search-eval', `${name}.json`), 'utf8')) as { queries: { q: string }[] }).queries.map(
    (q) => q.q,
  );
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const client = await airlock(dir, ['--spec', spec, '--auth', 'none', '--base-url', 'https://api.example.test']);
  for (const q of queries) await client.call('search_docs', { query: q }); // warm
  const times = await timeEach(Math.max(iterations, queries.length), (i) => client.call('search_docs', { query: queries[i % queries.length]! }));
  await client.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nsearch_docs end to end, ${name} (${queries.length} evaluation queries in turn): ${fmt(times)}`);
}
