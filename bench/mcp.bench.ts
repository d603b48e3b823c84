// npm run bench:mcp — what each MCP round trip costs on the path clients take
// (`airlock stdio` joined to a running `airlock serve`), beside `--in-process`
// and the floor, measured in one run over stdio with the same bare JSON-RPC client
// (bench/rawMcpClient.ts: the SDK's client validates answers and compiles a
// validator per tool on every tools/list, work that would be charged to the
// server). The floor is a minimal MCP SDK server with one tool.
//   node bench/mcp.bench.ts [quickjs|deno|node …] [--iterations N] [--wide] [--checkout]
// Per engine, against a local mock API, both paths call by call in turn:
// tools/list, search_docs, execute `return 1+1`, execute with one API call,
// calls per second with 20 in flight, peak RSS (the companion's and the
// shim's for the joined path); with QuickJS, the same companion over HTTP in
// each MCP revision (2025-11-25, a session; 2026-07-28, none), call by call in
// turn, and each revision's rate with 20 in flight; the same over joined
// stdio. Then search_docs end to end on the OpenAgenda and GitHub documents
// (their evaluation queries, bench/search-eval/).
// Airlock runs as users run it: the built package (dist/cli, `npm run build`
// first); `--checkout` runs the TypeScript sources instead.
// Targets (QuickJS): the joined path within 0.3 ms p50 of --in-process for
// tools/list, search_docs and execute, and ≥ 1,000 calls/s with 20 in flight;
// tools/list p50 within 0.2 ms of the floor; search_docs
// p50 ≤ 1 ms on OpenAgenda and ≤ 3 ms on GitHub; `return 1+1` p50 ≤ 2 ms;
// one API call p50 ≤ 3 ms; ≥ 1,000 calls/s with 20 in flight; peak RSS ≤ 150 MB.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEchoApi, writeEchoSpec } from '../test/helpers/echoApi.ts';
import { OPENAGENDA_HOW, OPENAGENDA_SPEC } from '../test/helpers/paths.ts';
import { runCli, type Running } from '../test/helpers/processes.ts';
import { percentile, startRawClient, timeEach, type RawMcpClient } from './rawMcpClient.ts';
import { startHttpClient } from './httpMcpClient.ts';
import { readServerInfo } from '../main/core/config/serverInfo.ts';

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

/**
 * The path every registered client takes: `airlock serve` (the companion, with the settings) and
 * `airlock stdio --data-dir D`, exactly what `airlock clients add` writes, joined to it.
 */
async function joined(dataDir: string, extra: string[]): Promise<{ client: RawMcpClient; companion: Running }> {
  const companion = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'error', '--queue-size', '64', '--rate-limit', '0', ...extra], {
    cli,
  });
  // It logs errors only (as in the other path), so readiness is its server.json naming it.
  const info = join(dataDir, 'server.json');
  for (const deadline = Date.now() + 60_000; !(existsSync(info) && readFileSync(info, 'utf8').includes(`"pid": ${companion.child.pid},`));) {
    if (Date.now() > deadline || companion.child.exitCode !== null) throw new Error(`airlock serve did not start; stderr:\n${companion.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const client = await startRawClient({ command: process.execPath, args: [cli, 'stdio', '--data-dir', dataDir], cwd: root });
  return { client, companion };
}

/**
 * Times `fn` on each client in turn, a block of 25 calls each, so both see the same machine (a drift in
 * its speed lands on both) while each keeps its caches warm within a block.
 */
async function interleaved<C>(n: number, clients: C[], fn: (c: C, i: number) => Promise<unknown>): Promise<number[][]> {
  const times = clients.map(() => [] as number[]);
  for (let i = 0; i < n; i += 25) {
    for (const [k, c] of clients.entries()) {
      for (let j = i; j < Math.min(n, i + 25); j++) {
        const t = performance.now();
        await fn(c, j);
        times[k]!.push(performance.now() - t);
      }
    }
  }
  return times;
}

async function inFlight20(client: { call(name: string, args: Record<string, unknown>): Promise<unknown> }, total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < total) await client.call('execute', { code: 'return 1+1' });
    }),
  );
  return (total / (performance.now() - started)) * 1000;
}

type Caller = { request(method: string): Promise<unknown>; call(name: string, args: Record<string, unknown>): Promise<unknown>; close(): Promise<void> };

/** What a revision's clients measured: three calls' times, then calls per second with 20 in flight (two rounds each). */
interface RevisionFigures {
  calls: [string, number[][]][];
  perSecond: number[][];
}

/**
 * tools/list, search_docs and `return 1+1` through each client, in turn; then `return 1+1` with 20 in flight through
 * each, alternating, twice; the clients closed after.
 */
async function threeCalls(clients: Caller[]): Promise<RevisionFigures> {
  try {
    for (const c of clients) await c.call('execute', { code: 'return 1+1' });
    const calls: [string, number[][]][] = [
      ['tools/list', await interleaved(iterations, clients, (c) => c.request('tools/list'))],
      ['search_docs (mock)', await interleaved(iterations, clients, (c) => c.call('search_docs', { query: 'list items' }))],
      ['execute 1+1', await interleaved(iterations, clients, (c) => c.call('execute', { code: 'return 1+1' }))],
    ];
    const perSecond = clients.map(() => [] as number[]);
    for (let round = 0; round < 2; round++) for (const [k, c] of clients.entries()) perSecond[k]!.push(await inFlight20(c, 1000));
    return { calls, perSecond };
  } finally {
    for (const c of clients) await c.close();
  }
}

/** tools/list, search_docs and `return 1+1` over HTTP to the companion serving `dataDir`, in each revision, in turn. */
async function byRevision(dataDir: string): Promise<RevisionFigures> {
  const info = readServerInfo(dataDir);
  if (!info) throw new Error(`no companion in ${dataDir}`);
  const url = info.mcpUrl;
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  // Up to 20 requests in flight each (one connection per request), so the rate with 20 in flight is the companion's.
  const clients = [await startHttpClient(url, token, '2025-11-25', 20), await startHttpClient(url, token, '2026-07-28', 20)];
  return threeCalls(clients);
}

/** The same calls over joined stdio to the companion serving `dataDir`, a client of each revision, in turn. */
async function byStdioRevision(dataDir: string): Promise<RevisionFigures> {
  const open = (revision: '2025' | '2026-07-28') =>
    startRawClient({ command: process.execPath, args: [cli, 'stdio', '--data-dir', dataDir], cwd: root, timeoutMs: 60_000, revision });
  const clients = [await open('2025'), await open('2026-07-28')];
  return threeCalls(clients);
}

// ---- the floor, and the floor behind one relay process ---------------------
const floor = await startRawClient({ command: process.execPath, args: [join(root, 'bench', 'floorServer.ts')], cwd: root });
const relayed = await startRawClient({ command: process.execPath, args: [join(root, 'bench', 'relayFloor.ts')], cwd: root });
for (const c of [floor, relayed]) await c.request('tools/list');
const [floorList, relayedList] = await interleaved(iterations, [floor, relayed], (c) => c.request('tools/list'));
const [floorCall, relayedCall] = await interleaved(iterations, [floor, relayed], (c) => c.call('echo', { text: 'hi' }));
await floor.close();
await relayed.close();
console.log(`Airlock: ${cli === built ? 'the built package (dist/cli)' : 'the checkout (TypeScript sources)'}; ${iterations} calls per figure`);
console.log(`floor, a minimal SDK server over stdio: tools/list ${fmt(floorList!)}; a trivial tool call ${fmt(floorCall!)}`);
console.log(
  `the floor behind one relay process (the joined path's shape, nothing else): tools/list ${fmt(relayedList!)}, +${(p50(relayedList!) - p50(floorList!)).toFixed(2)} ms; a trivial call +${(p50(relayedCall!) - p50(floorCall!)).toFixed(2)} ms`,
);

// ---- per engine, against a mock API: --in-process beside the joined path ---
const echo = await startEchoApi();
for (const engine of engines) {
  const dirs = [mkdtempSync(join(tmpdir(), 'airlock-bench-')), mkdtempSync(join(tmpdir(), 'airlock-bench-'))];
  const settings = (dir: string) => [
    '--spec',
    writeEchoSpec(dir, echo.url),
    '--engine',
    engine,
    ...(engine === 'node' ? ['--egress', 'none'] : []),
    ...(wide ? ['--per-caller-concurrent', '20', '--max-concurrent', '20'] : []),
  ];
  const inProcess = await airlock(dirs[0]!, settings(dirs[0]!));
  const join_ = await joined(dirs[1]!, settings(dirs[1]!));
  const paths = [inProcess, join_.client];
  for (const c of paths) {
    await c.request('tools/list');
    await c.call('execute', { code: 'return 1+1' }); // the first run starts the engine
    await c.call('execute', { code: 'return (await api.items.list()).status' });
  }
  const lists = await interleaved(iterations, paths, (c) => c.request('tools/list'));
  const searches = await interleaved(iterations, paths, (c) => c.call('search_docs', { query: 'list items' }));
  const trivial = await interleaved(iterations, paths, (c) => c.call('execute', { code: 'return 1+1' }));
  const oneCall = await interleaved(iterations, paths, (c) => c.call('execute', { code: 'return (await api.items.list({ query: { tag: ["a"] } })).status' }));
  const total = engine === 'quickjs' ? 3000 : 400;
  const perSecond = [
    await inFlight20(inProcess, total),
    await inFlight20(join_.client, total),
    await inFlight20(inProcess, total),
    await inFlight20(join_.client, total),
  ];
  // The same companion over HTTP, in each revision: the same calls, in turn; and over joined stdio.
  const revisions = engine === 'quickjs' ? await byRevision(dirs[1]!) : undefined;
  const stdioRevisions = engine === 'quickjs' ? await byStdioRevision(dirs[1]!) : undefined;
  const rss = { inProcess: peakRssMb(inProcess.pid), companion: peakRssMb(join_.companion.child.pid!), shim: peakRssMb(join_.client.pid) };
  await inProcess.close();
  await join_.client.close();
  await join_.companion.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });

  const row = (name: string, [a, b]: number[][]) => {
    const over = p50(b!) - p50(a!);
    console.log(`  ${name.padEnd(19)} in-process ${fmt(a!)} | joined ${fmt(b!)} | joined − in-process p50 ${over >= 0 ? '+' : ''}${over.toFixed(2)} ms`);
  };
  console.log(`\n${engine}${wide ? ' (caps raised to 20 concurrent)' : ' (default caps: 4 at once, 2 per client)'}`);
  console.log(
    `  initialize          in-process ${inProcess.initializeMs.toFixed(0)} ms, joined ${join_.client.initializeMs.toFixed(0)} ms (spawn to answer; bench:startup times it properly)`,
  );
  row('tools/list', lists);
  console.log(`  ${''.padEnd(19)} floor ${p50(floorList!).toFixed(2)} ms: in-process +${(p50(lists[0]!) - p50(floorList!)).toFixed(2)} ms`);
  row('search_docs (mock)', searches);
  row('execute 1+1', trivial);
  console.log(`  ${''.padEnd(19)} floor's trivial call ${p50(floorCall!).toFixed(2)} ms`);
  row('execute + API call', oneCall);
  console.log(
    `  20 in flight        in-process ${perSecond[0]!.toFixed(0)}, ${perSecond[2]!.toFixed(0)} calls/s | joined ${perSecond[1]!.toFixed(0)}, ${perSecond[3]!.toFixed(0)} calls/s (${total} × return 1+1, twice each, alternating)`,
  );
  console.log(
    `  peak RSS            in-process ${rss.inProcess.toFixed(0)} MB | joined: companion ${rss.companion.toFixed(0)} MB + shim ${rss.shim.toFixed(0)} MB`,
  );
  const byRevisionRows = (title: string, { calls, perSecond }: RevisionFigures) => {
    console.log(title);
    for (const [name, [a, b]] of calls) {
      const over = p50(b!) - p50(a!);
      console.log(`  ${name.padEnd(19)} 2025-11-25 ${fmt(a!)} | 2026-07-28 ${fmt(b!)} | 2026 − 2025 p50 ${over >= 0 ? '+' : ''}${over.toFixed(2)} ms`);
    }
    const [a, b] = perSecond.map((rounds) => rounds.map((r) => r.toFixed(0)).join(', '));
    console.log(`  ${'20 in flight'.padEnd(19)} 2025-11-25 ${a} calls/s | 2026-07-28 ${b} calls/s (1000 × return 1+1, twice each, alternating)`);
  };
  if (revisions)
    byRevisionRows(
      `  over HTTP, the joined path's companion: MCP 2025-11-25 (a session) | 2026-07-28 (no session; a caller's servers kept between its requests)`,
      revisions,
    );
  if (stdioRevisions)
    byRevisionRows(`  over joined stdio: MCP 2025-11-25 (initialize) | 2026-07-28 (server/discover; one server for the connection)`, stdioRevisions);
}
await echo.close();

// ---- search_docs on real documents ----------------------------------------
for (const [name, spec] of [
  ['openagenda', OPENAGENDA_SPEC],
  ['github', GITHUB],
] as const) {
  if (!spec) {
    console.log(`\nsearch_docs end to end, ${name}: skipped, needs the OpenAgenda v3 contract (${OPENAGENDA_HOW})`);
    continue;
  }
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
