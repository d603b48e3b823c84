// kill -9 durability of the audit store: a child writes records (API calls,
// execute and search_docs tool calls) in a tight loop and prints each one
// once it is committed; the test SIGKILLs it mid-burst, then reopens the file: every printed record is there (the one the
// child wrote), SQLite's integrity check passes and the hash chain verifies.
// Four rounds on the same file — one record at a time, then 20 runs in flight
// (group commit: records that finish together share a transaction), then
// synchronous=NORMAL (enough for a killed process) both ways — so recovery
// from a hot WAL is exercised and the chain carries on across crashes. Waits
// on output, never on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openAuditStore } from '../../main/core/audit/auditStore.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';

const WRITER = join(ROOT, 'test', 'helpers', 'auditCrashWriter.ts');
/** Records a round waits to see printed before it kills the child. */
const BEFORE_KILL = 600;
/** The child stops by itself after this many, should the kill never come. */
const MAX_RECORDS = 1_000_000;

interface Round {
  printed: Map<number, number>;
  signal: NodeJS.Signals | null;
}

function crashRound(file: string, tag: string, synchronous: 'full' | 'normal', inFlight: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, file, tag, synchronous, String(MAX_RECORDS), String(inFlight)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const printed = new Map<number, number>();
    let pending = '';
    let stderr = '';
    let killed = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const m = /^committed (\d+) (\d+)$/.exec(line);
        if (m) printed.set(Number(m[1]), Number(m[2]));
      }
      if (!killed && printed.size >= BEFORE_KILL) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    // 'close' comes after the exit and after stdout has been read to its end.
    child.on('close', (code, signal) => {
      if (!killed) return reject(new Error(`the writer exited on its own (${code ?? signal}):\n${stderr}`));
      resolve({ printed, signal });
    });
    child.on('error', reject);
  });
}

test(
  'a record whose write was committed survives kill -9, one at a time or in group commits, and the file and chain stay sound',
  { timeout: 120_000 },
  async () => {
    const { dir, cleanup } = tempDir('airlock-audit-crash-');
    const file = join(dir, 'audit.sqlite');
    try {
      let total = 0;
      for (const [tag, synchronous, inFlight] of [
        ['a', 'full', 1],
        ['b', 'full', 20],
        ['c', 'normal', 1],
        ['d', 'normal', 20],
      ] as const) {
        const round = await crashRound(file, tag, synchronous, inFlight);
        assert.equal(round.signal, 'SIGKILL');
        total += round.printed.size;

        const raw = new DatabaseSync(file);
        try {
          assert.deepEqual(
            raw
              .prepare('PRAGMA integrity_check')
              .all()
              .map((r) => ({ ...r })),
            [{ integrity_check: 'ok' }],
          );
        } finally {
          raw.close();
        }
        const store = openAuditStore({ file });
        try {
          for (const [seq, n] of round.printed) {
            const entry = store.get(seq);
            assert.ok(entry, `record ${seq} (${tag} #${n}) was printed as committed but is missing`);
            const owner = ('runId' in entry && entry.runId) || (entry.kind === 'tool' ? entry.input : '');
            assert.ok(owner?.includes(`${tag}-`), `record ${seq} belongs to round ${tag}`);
            assert.equal(entry.kind === 'tool' ? entry.bytesOut : entry.kind === 'api' ? entry.bytes : -1, n, `record ${seq} is #${n}`);
          }
          const verified = store.verify();
          assert.deepEqual(verified, { ok: true, records: store.head().records });
          assert.ok(store.head().records >= total, `${store.head().records} records on disk, ${total} printed`);
        } finally {
          store.close();
        }
      }
    } finally {
      cleanup();
    }
  },
);
