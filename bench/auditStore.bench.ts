// node bench/auditStore.bench.ts — the audit store's costs on this machine's disk
// (a temp dir under os.tmpdir(); pass a directory as the first argument to
// measure another disk):
//   1. writes: records per second and p50/p95/p99 latency of recordToolCall and
//      recordApiCall (until the record is committed), with synchronous=FULL (the
//      default) and NORMAL, 3 API calls per tool call as in a typical execute
//      run; one run at a time (each record its own commit), then 20 runs in
//      flight (records that finish together share a commit: group commit);
//   2. queries on 100k records: latency (median of repeated runs) of the
//      queries the UI and CLI make, plus verify, count, full JSONL and CSV
//      exports, and a prune of the older half.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAuditStore, type AuditStore } from '../main/core/audit/auditStore.ts';
import type { AuditQuery } from '../main/core/audit/types.ts';

const WRITE_SAMPLES = 3000;
const QUERY_RECORDS = 100_000;
const QUERY_REPEATS = 15;

const parent = process.argv[2] ?? tmpdir();
const dir = mkdtempSync(join(parent, 'airlock-audit-bench-'));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const CLIENTS = ['claude-ai', 'claude-code', 'cursor', 'vscode'];
const OPS = ['events.list', 'events.get', 'agendas.list', 'events.create', 'locations.search'];
const CODE = `const { data } = await api.events.list({ query: { size: 20, search: "jazz" } });\nreturn data.events.map((e) => ({ uid: e.uid, title: e.title?.fr }));\n`;

/** One synthetic execute run: `apiCalls` API records, then the tool record (the order the gate and the tool write them). */
async function writeRun(store: AuditStore, i: number, apiCalls: number, at: number, timings?: { tool: number[]; api: number[] }): Promise<void> {
  const runId = `run-${i}`;
  for (let k = 0; k < apiCalls; k++) {
    const op = OPS[(i + k) % OPS.length]!;
    const started = performance.now();
    await store.recordApiCall({
      runId,
      callerKey: `http:session-${i % 50}`,
      operationId: op,
      method: op.endsWith('create') ? 'POST' : 'GET',
      url: `https://api.openagenda.com/v3/${op.replace('.', '/')}?size=20&after=${i}`,
      status: i % 97 === 0 ? 404 : 200,
      durationMs: 40 + (i % 200),
      bytes: 2000 + (i % 5000),
      decision: op.endsWith('create') ? 'approved' : 'read',
      ...(op.endsWith('create') ? { approval: { by: 'desktop', at: new Date(at).toISOString(), scope: 'once' as const } } : {}),
      startedAt: new Date(at + k).toISOString(),
    });
    timings?.api.push(performance.now() - started);
  }
  const started = performance.now();
  await store.recordToolCall({
    time: new Date(at).toISOString(),
    clientName: CLIENTS[i % CLIENTS.length]!,
    clientVersion: '1.0.0',
    transport: i % 2 === 0 ? 'stdio' : 'http',
    sessionId: `session-${i % 50}`,
    tool: i % 4 === 0 ? 'search_docs' : 'execute',
    outcome: i % 31 === 0 ? 'timeout' : 'ok',
    durationMs: 120 + (i % 300),
    input: i % 4 === 0 ? { query: `events near lyon ${i}` } : `${CODE}// run ${i}\n`,
    bytesOut: 1500,
    ...(i % 31 === 0 ? { error: `the run took longer than 30 s (run ${i})` } : {}),
    credentialFingerprint: 'sha256:1a2b3c4d5e6f',
    profile: 'openagenda',
    runId,
  });
  timings?.tool.push(performance.now() - started);
}

async function writeBench(synchronous: 'full' | 'normal', inFlight: number): Promise<void> {
  const file = join(dir, `writes-${synchronous}-${inFlight}.sqlite`);
  const store = openAuditStore({ file, synchronous });
  const timings = { tool: [] as number[], api: [] as number[] };
  const start = performance.now();
  const runs = WRITE_SAMPLES / 4;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < runs; i = next++) await writeRun(store, i, 3, Date.now(), timings);
    }),
  );
  const elapsed = performance.now() - start;
  store.close();
  const all = [...timings.tool, ...timings.api];
  const row = (name: string, v: number[]) =>
    `  ${name.padEnd(6)} ${String(v.length).padStart(6)}  ${percentile(v, 50).toFixed(3).padStart(8)}  ${percentile(v, 95).toFixed(3).padStart(8)}  ${percentile(v, 99).toFixed(3).padStart(8)}`;
  console.log(
    `synchronous=${synchronous.toUpperCase()}, ${inFlight === 1 ? 'one run at a time' : `${inFlight} runs in flight`}: ${all.length} writes in ${elapsed.toFixed(0)} ms = ${Math.round((all.length / elapsed) * 1000)} writes/s`,
  );
  console.log('  kind   writes   p50 ms    p95 ms    p99 ms');
  console.log(row('tool', timings.tool));
  console.log(row('api', timings.api));
  console.log(row('all', all));
}

function time(fn: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < QUERY_REPEATS; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return percentile(samples, 50);
}

async function queryBench(): Promise<void> {
  const file = join(dir, 'query.sqlite');
  const store = openAuditStore({ file, synchronous: 'normal' });
  const runs = QUERY_RECORDS / 4;
  const first = Date.now() - 90 * 86_400_000;
  const step = (90 * 86_400_000) / runs; // 90 days of history
  const fillStart = performance.now();
  for (let i = 0; i < runs; i++) await writeRun(store, i, 3, first + i * step);
  const fillMs = performance.now() - fillStart;
  const head = store.head();
  console.log(`\n${head.records} records written in ${(fillMs / 1000).toFixed(1)} s (synchronous=NORMAL); file ${(statSync(file).size / 1e6).toFixed(1)} MB`);

  // Deep page: walk 50 pages of 100 first, then time the 51st.
  let before: number | undefined;
  for (let p = 0; p < 50; p++) before = store.query({ limit: 100, ...(before ? { before } : {}) }).next;
  const day = new Date(first + 45 * 86_400_000);
  const cases: [string, AuditQuery][] = [
    ['newest 100', {}],
    ['page 51 (before cursor)', { before: before! }],
    ['newest 500', { limit: 500 }],
    ['client = cursor (+ its API calls)', { client: 'cursor' }],
    ['tool = search_docs', { tool: 'search_docs' }],
    ['kind = api', { kind: 'api' }],
    ['outcome = timeout', { outcome: 'timeout' }],
    ['failed', { failed: true }],
    ['text "jazz" (common)', { text: 'jazz' }],
    ['text "run 12345" (rare)', { text: 'run 12345' }],
    ['text "no such thing" (none)', { text: 'no such thing' }],
    ['one day (from/to)', { from: day, to: new Date(day.getTime() + 86_400_000) }],
    ['client + failed + day', { client: 'vscode', failed: true, from: day, to: new Date(day.getTime() + 5 * 86_400_000) }],
  ];
  console.log('\nquery on 100k records                    median ms  rows');
  for (const [name, q] of cases) {
    const rows = store.query(q).records.length;
    console.log(
      `  ${name.padEnd(38)} ${time(() => store.query(q))
        .toFixed(2)
        .padStart(8)}  ${String(rows).padStart(4)}`,
    );
  }
  const others: [string, () => unknown][] = [
    ['get(seq)', () => store.get(54_321)],
    ['apiCallsForRun', () => store.apiCallsForRun('run-12345')],
    ['count() all', () => store.count()],
    ['count({ text: "jazz" })', () => store.count({ text: 'jazz' })],
  ];
  for (const [name, fn] of others) console.log(`  ${name.padEnd(38)} ${time(fn).toFixed(2).padStart(8)}`);

  let start = performance.now();
  const verified = store.verify();
  console.log(`\nverify(): ${(performance.now() - start).toFixed(0)} ms (${JSON.stringify(verified)})`);
  start = performance.now();
  let bytes = 0;
  const exported = await store.export('jsonl', {}, (chunk) => {
    bytes += chunk.length;
  });
  console.log(`export JSONL: ${exported.records} records, ${(bytes / 1e6).toFixed(1)} MB in ${(performance.now() - start).toFixed(0)} ms`);
  start = performance.now();
  const csv = await store.export('csv', {}, () => {});
  console.log(`export CSV: ${csv.records} records in ${(performance.now() - start).toFixed(0)} ms`);
  start = performance.now();
  const pruned = store.prune({ olderThanDays: 45 });
  console.log(
    `prune({ olderThanDays: 45 }): ${pruned.pruned} records in ${(performance.now() - start).toFixed(0)} ms; verify() after: ${JSON.stringify(store.verify())}`,
  );
  store.close();
}

try {
  console.log(`audit store bench in ${dir}`);
  for (const inFlight of [1, 20]) {
    await writeBench('full', inFlight);
    await writeBench('normal', inFlight);
  }
  await queryBench();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
