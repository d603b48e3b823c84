// Child process for the audit crash test: writes audit records in a tight
// loop (per run, three API calls then the tool call; every fifth tool call a
// 20 KB script, capped to 8 KiB by the store) and prints
// `committed <seq> <n>` once each write has committed, until it is killed;
// with several runs in flight, records that finish together share a commit.
// Record n carries n in its bytes (API) or bytesOut (tool) field and
// `<tag>-…` in its runId (a search_docs record, every third run's last, in
// its query), so the parent can check each printed record is the one on disk.
// Usage: node auditCrashWriter.ts <file> <tag> <full|normal> <max records> [runs in flight]
import { openAuditStore } from '../../main/core/audit/auditStore.ts';

const [file, tag, synchronous, max, inFlightArg] = process.argv.slice(2);
if (!file || !tag || (synchronous !== 'full' && synchronous !== 'normal') || !max) {
  process.stderr.write('usage: auditCrashWriter.ts <file> <tag> <full|normal> <max records> [runs in flight]\n');
  process.exit(2);
}
const inFlight = Number(inFlightArg ?? 1);
const store = openAuditStore({ file, synchronous });
const big = `// ${'x'.repeat(20_000)}\nreturn 1;`;
process.stdout.write(`ready ${store.head().seq}\n`);

/** Record n of run ⌈n/4⌉: three API calls, then the tool call. */
async function write(n: number): Promise<void> {
  const run = Math.ceil(n / 4);
  const runId = `${tag}-${run}`;
  const entry =
    n % 4 === 0 && run % 3 === 0
      ? // A search_docs call: no run, committed without an fsync of its own.
        await store.recordToolCall({
          clientName: 'crash-test',
          transport: 'stdio',
          tool: 'search_docs',
          outcome: 'ok',
          durationMs: 1,
          input: { query: `${tag}-${n}` },
          bytesOut: n,
        })
      : n % 4 === 0
        ? await store.recordToolCall({
            clientName: 'crash-test',
            transport: 'stdio',
            tool: 'execute',
            outcome: 'ok',
            durationMs: 1,
            input: run % 5 === 0 ? big : `return ${n};`,
            bytesOut: n,
            runId,
          })
        : await store.recordApiCall({
            runId,
            callerKey: 'stdio:crash-test',
            operationId: 'events.list',
            method: 'GET',
            url: `https://api.test/events?n=${n}`,
            status: 200,
            durationMs: 1,
            bytes: n,
            decision: 'read',
            startedAt: new Date().toISOString(),
          });
  // A pipe write is synchronous on POSIX: the line is out before the next record starts.
  process.stdout.write(`committed ${entry.seq} ${n}\n`);
}

// Runs in flight at once (each its records in order), so with more than one, records that finish together share a commit.
const runs = Math.ceil(Number(max) / 4);
let nextRun = 1;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    for (let run = nextRun++; run <= runs; run = nextRun++) for (let n = 4 * run - 3; n <= 4 * run; n++) await write(n);
  }),
);
store.close();
