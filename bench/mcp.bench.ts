// npm run bench:mcp — Airlock as a model's client sees it: a real MCP client
// over stdio, per engine. Initialize time, tools/list, search_docs, execute
// `return 1+1`, execute with one API call against a local mock API, calls
// per second with 20 in flight, and the server's peak RSS.
//   node bench/mcp.bench.ts [quickjs|deno|node …] [--iterations N] [--wide]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEchoApi, writeEchoSpec } from '../test/helpers/echoApi.ts';

const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'main', 'cli', 'airlock.js');
const args = process.argv.slice(2);
const iterations = Number(args[args.indexOf('--iterations') + 1]) || 200;
const engines = args.filter((a) => ['quickjs', 'deno', 'node'].includes(a));
// Default caps let one client run 2 executes at once (4 in all); `--wide` raises both to 20.
const wide = args.includes('--wide');
const capArgs = wide ? ['--per-caller-concurrent', '20', '--max-concurrent', '20'] : [];
if (engines.length === 0) engines.push('quickjs', 'deno');

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const fmt = (v: number[]) => `p50 ${pct(v, 50).toFixed(2)} ms, p95 ${pct(v, 95).toFixed(2)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

function peakRssMb(pid: number | null | undefined): string {
  if (!pid) return 'n/a';
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
    return hwm ? `${(Number(hwm[1]) / 1024).toFixed(0)} MB` : 'n/a';
  } catch {
    return 'n/a';
  }
}

/** The floor: a minimal SDK server, tools/list and one trivial tool call, p50 over `iterations`. */
async function floor(): Promise<{ list: number[]; call: number[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(root, 'bench', 'floorServer.ts')], cwd: root, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  const list: number[] = [];
  const call: number[] = [];
  for (let i = 0; i < iterations; i++) list.push((await timed(() => client.listTools()))[0]);
  for (let i = 0; i < iterations; i++) call.push((await timed(() => client.callTool({ name: 'echo', arguments: { text: 'hi' } })))[0]);
  await client.close();
  return { list, call };
}
const floorRun = await floor();
console.log(`floor: a minimal SDK server over stdio — tools/list ${fmt(floorRun.list)}, a trivial tool call ${fmt(floorRun.call)}`);

const echo = await startEchoApi();
for (const engine of engines) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const spec = writeEchoSpec(dir, echo.url);
  const extra = engine === 'node' ? ['--egress', 'none'] : [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      cli,
      'stdio',
      '--in-process',
      '--spec',
      spec,
      '--data-dir',
      dir,
      '--engine',
      engine,
      ...extra,
      '--log-level',
      'error',
      ...capArgs,
      '--queue-size',
      '64',
      '--rate-limit',
      '0',
    ],
    cwd: root,
    stderr: 'ignore',
    ...(process.env.BENCH_NODE_OPTIONS ? { env: { ...process.env, NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } as Record<string, string> } : {}),
  });
  const client = new Client({ name: 'bench', version: '1' });
  const [initMs] = await timed(() => client.connect(transport));
  const [listMs] = await timed(() => client.listTools());
  const call = (code: string) => client.callTool({ name: 'execute', arguments: { code } });
  const check = async (code: string) => {
    const r = await call(code);
    if (r.isError) throw new Error(`${engine}: ${JSON.stringify(r.content)}`);
  };
  await check('return 1+1'); // warm
  await check('return (await api.items.list()).status');
  const lists: number[] = [];
  for (let i = 0; i < iterations; i++) lists.push((await timed(() => client.listTools()))[0]);
  const search: number[] = [];
  const trivial: number[] = [];
  const oneCall: number[] = [];
  for (let i = 0; i < iterations; i++) search.push((await timed(() => client.callTool({ name: 'search_docs', arguments: { query: 'list items' } })))[0]);
  for (let i = 0; i < iterations; i++) trivial.push((await timed(() => check('return 1+1')))[0]);
  for (let i = 0; i < iterations; i++) oneCall.push((await timed(() => check('return (await api.items.list({ query: { tag: ["a"] } })).status')))[0]);
  const total = engine === 'quickjs' ? 2000 : 400;
  let next = 0;
  const [concurrentMs] = await timed(async () => {
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < total) await check('return 1+1');
      }),
    );
  });
  const rss = peakRssMb(transport.pid);
  console.log(`\n${engine}${wide ? ' (caps raised to 20 concurrent)' : ' (default caps: 4 at once, 2 per client)'}`);
  console.log(`  initialize          ${initMs.toFixed(0)} ms (spawn + load + handshake)`);
  console.log(
    `  tools/list          first ${listMs.toFixed(1)} ms; ${fmt(lists)} (floor p50 ${pct(floorRun.list, 50).toFixed(2)} ms: +${(pct(lists, 50) - pct(floorRun.list, 50)).toFixed(2)} ms)`,
  );
  console.log(`  search_docs         ${fmt(search)}`);
  console.log(`  execute 1+1         ${fmt(trivial)}`);
  console.log(`  execute + API call  ${fmt(oneCall)}`);
  console.log(`  20 concurrent       ${((total / concurrentMs) * 1000).toFixed(0)} calls/s (${total} calls of return 1+1)`);
  console.log(`  server peak RSS     ${rss}`);
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
await echo.close();
