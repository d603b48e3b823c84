// Child process for the audit crash test: writes audit records in a tight
// loop (per run, three API calls then the tool call; every fifth tool call a
// 20 KB script, capped to 8 KiB by the store) and prints
// `committed <seq> <n>` after each write returns, until it is killed. Record n
// carries n in its bytes (API) or bytesOut (tool) field and `<tag>-…` in its
// runId, so the parent can check each printed record is the one on disk.
// Usage: node auditCrashWriter.ts <file> <tag> <full|normal> <max records>
import { openAuditStore } from '../../main/core/audit/auditStore.ts';

const [file, tag, synchronous, max] = process.argv.slice(2);
if (!file || !tag || (synchronous !== 'full' && synchronous !== 'normal') || !max) {
  process.stderr.write('usage: auditCrashWriter.ts <file> <tag> <full|normal> <max records>\n');
  process.exit(2);
}
const store = openAuditStore({ file, synchronous });
const big = `// ${'x'.repeat(20_000)}\nreturn 1;`;
process.stdout.write(`ready ${store.head().seq}\n`);
for (let n = 1; n <= Number(max); n++) {
  const run = Math.ceil(n / 4);
  const runId = `${tag}-${run}`;
  const entry =
    n % 4 === 0
      ? store.recordToolCall({
          clientName: 'crash-test',
          transport: 'stdio',
          tool: 'execute',
          outcome: 'ok',
          durationMs: 1,
          input: run % 5 === 0 ? big : `return ${n};`,
          bytesOut: n,
          runId,
        })
      : store.recordApiCall({
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
store.close();
