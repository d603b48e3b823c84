// The audit hash chain: verify() passes on an untouched store and names the
// first bad seq when the file is edited behind the store's back (through a
// separate SQLite connection, as someone with the file would): an edited
// field, an edited indexed column, a record deleted in the middle, records
// swapped or inserted, rows appended past the head, a truncated tail. Prune
// keeps verification meaningful: it starts from the anchor, catches later
// edits, and refuses to launder a damaged stretch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openAuditStore, type AuditStore } from '../../main/core/audit/auditStore.ts';
import { canonicalJson, chainHash, GENESIS_HASH } from '../../main/core/audit/chain.ts';
import type { VerifyResult } from '../../main/core/audit/types.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2030-06-30T00:00:00Z');

interface Fixture {
  store: AuditStore;
  /** The store's clock (ms); starts at NOW. */
  clock: { now: number };
  /** A second connection to the same file: the "attacker". */
  raw: DatabaseSync;
}

function withChain(run: (f: Fixture) => void | Promise<void>, records = 12): () => Promise<void> {
  return async () => {
    const { dir, cleanup } = tempDir('airlock-audit-chain-');
    const file = join(dir, 'audit.sqlite');
    const clock = { now: NOW };
    const store = openAuditStore({ file, now: () => new Date(clock.now) });
    const raw = new DatabaseSync(file);
    try {
      await write(store, records, NOW - 40 * DAY);
      await run({ store, raw, clock });
    } finally {
      raw.close();
      store.close();
      cleanup();
    }
  };
}

/** n records one day apart from `start`: per run, two API calls then the tool call. */
async function write(store: AuditStore, n: number, start: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const at = new Date(start + i * DAY).toISOString();
    const runId = `run-${Math.floor(i / 3)}-${start}`;
    if (i % 3 === 2) {
      await store.recordToolCall({
        time: at,
        clientName: 'cursor',
        transport: 'http',
        tool: 'execute',
        outcome: 'ok',
        durationMs: 5,
        input: `return ${i}`,
        bytesOut: 1,
        runId,
      });
    } else {
      await store.recordApiCall({
        runId,
        callerKey: 'http:s',
        operationId: 'events.list',
        method: 'GET',
        url: `https://api.test/events?i=${i}`,
        status: 200,
        durationMs: 3,
        bytes: 10,
        decision: 'read',
        startedAt: at,
      });
    }
  }
}

/** The canonical body of a tool record a forger would write by hand. */
function forgedToolBody(seq: number, input: string): string {
  const time = new Date(NOW).toISOString();
  return canonicalJson({
    kind: 'tool',
    seq,
    time,
    recordedAt: time,
    outcome: 'ok',
    tool: 'execute',
    transport: 'stdio',
    durationMs: 1,
    input,
    inputSha256: 'x',
    inputBytes: input.length,
    inputTruncated: false,
    bytesOut: 0,
  });
}

function bad(result: VerifyResult): { seq: number; reason: string } {
  assert.equal(result.ok, false, 'verify should fail');
  return (result as Extract<VerifyResult, { ok: false }>).firstBad;
}

test(
  'an untouched chain verifies; hashes follow the documented rule',
  withChain(async ({ store, raw }) => {
    assert.deepEqual(store.verify(), { ok: true, records: 12 });
    const rows = raw.prepare('SELECT seq, body, prev_hash, hash FROM records ORDER BY seq').all() as {
      seq: number;
      body: string;
      prev_hash: string;
      hash: string;
    }[];
    let prev = GENESIS_HASH;
    for (const row of rows) {
      assert.equal(row.prev_hash, prev);
      assert.equal(row.body, canonicalJson(JSON.parse(row.body)));
      assert.equal(row.hash, chainHash(prev, row.body));
      prev = row.hash;
    }
    assert.equal(store.head().hash, prev);
  }),
);

test(
  'an empty store verifies',
  withChain(async ({ store }) => {
    assert.deepEqual(store.verify(), { ok: true, records: 0 });
    assert.equal(store.head().hash, GENESIS_HASH);
  }, 0),
);

/** Tampering done with SQL behind the store's back, and where verify must say the chain breaks. */
const TAMPERINGS: { what: string; sql: string; seq: number; reason?: RegExp; verifiedBefore?: number }[] = [
  {
    what: 'an edited field is caught at its seq',
    sql: "UPDATE records SET body = json_set(body, '$.status', 204) WHERE seq = 5",
    seq: 5,
    reason: /contents do not match its hash/,
    verifiedBefore: 4,
  },
  {
    what: "an edited tool record is caught at its own seq, not at its run's API calls before it",
    sql: "UPDATE records SET body = json_set(body, '$.clientName', 'someone-else'), client_name = 'someone-else' WHERE seq = 6",
    seq: 6,
  },
  {
    what: 'an API call moved to another client in the index is caught at its seq',
    sql: "UPDATE records SET client_name = 'zed' WHERE seq = 4",
    seq: 4,
    reason: /client_name disagrees with its run's tool record/,
    verifiedBefore: 3,
  },
  {
    what: 'deleting the last records is caught against the chain head',
    sql: 'DELETE FROM records WHERE seq >= 11',
    seq: 11,
    reason: /records 11–12 are missing.*truncated/,
    verifiedBefore: 10,
  },
];

for (const t of TAMPERINGS) {
  test(
    t.what,
    withChain(async ({ store, raw }) => {
      raw.prepare(t.sql).run();
      const first = bad(store.verify());
      assert.equal(first.seq, t.seq);
      if (t.reason) assert.match(first.reason, t.reason);
      if (t.verifiedBefore !== undefined) assert.equal(store.verify().records, t.verifiedBefore);
    }),
  );
}

test(
  'an edited field whose hash was recomputed is caught at the next record',
  withChain(async ({ store, raw }) => {
    const row = raw.prepare('SELECT body, prev_hash FROM records WHERE seq = 4').get() as { body: string; prev_hash: string };
    const body = row.body.replace('"status":200', '"status":500');
    raw.prepare('UPDATE records SET body = ?, hash = ? WHERE seq = 4').run(body, chainHash(row.prev_hash, body));
    const first = bad(store.verify());
    assert.equal(first.seq, 5);
    assert.match(first.reason, /does not link to record 4/);
  }),
);

test(
  'an indexed column edited to hide a record from filtered views is caught',
  withChain(async ({ store, raw }) => {
    assert.equal(store.query({ client: 'cursor' }).records.length, 12);
    raw.prepare("UPDATE records SET client_name = 'nobody' WHERE seq = 7").run();
    const first = bad(store.verify());
    assert.equal(first.seq, 7);
    assert.match(first.reason, /client_name/);
    raw.prepare("UPDATE records SET client_name = 'cursor', outcome = 'denied' WHERE seq = 7").run();
    assert.equal(bad(store.verify()).seq, 7);
  }),
);

test(
  'an API call whose run never got its tool record (the companion ended mid-run, or it is still held) verifies, filed under its own client; that column edited is caught',
  withChain(async ({ store, raw }) => {
    const held = await store.recordApiCall({
      runId: 'run-cut-short',
      callerKey: 'http:s',
      clientName: 'claude-code',
      operationId: 'events.create',
      method: 'POST',
      url: 'https://api.test/events',
      status: 0,
      durationMs: 0,
      bytes: 0,
      decision: 'pending',
      startedAt: new Date(NOW).toISOString(),
    });
    assert.deepEqual(store.verify(), { ok: true, records: 13 });
    assert.equal(store.query({ client: 'claude-code' }).records.length, 1, 'found under the client it names');
    raw.prepare("UPDATE records SET client_name = 'cursor' WHERE seq = ?").run(held.seq);
    const first = bad(store.verify());
    assert.equal(first.seq, held.seq);
    assert.match(first.reason, /client_name/);
    raw.prepare("UPDATE records SET client_name = 'claude-code', tool = 'execute' WHERE seq = ?").run(held.seq);
    assert.match(bad(store.verify()).reason, /column tool/);
  }),
);

test(
  'a record deleted from the middle is caught at the missing seq',
  withChain(async ({ store, raw }) => {
    raw.prepare('DELETE FROM records WHERE seq = 6').run();
    const first = bad(store.verify());
    assert.equal(first.seq, 6);
    assert.match(first.reason, /record 6 is missing/);
    raw.prepare('DELETE FROM records WHERE seq IN (7, 8)').run();
    assert.match(bad(store.verify()).reason, /records 6–8 are missing/);
  }),
);

test(
  'swapped records are caught where the order breaks',
  withChain(async ({ store, raw }) => {
    const a = raw.prepare('SELECT body, prev_hash, hash FROM records WHERE seq = 3').get() as Record<string, string>;
    const b = raw.prepare('SELECT body, prev_hash, hash FROM records WHERE seq = 4').get() as Record<string, string>;
    const put = raw.prepare('UPDATE records SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?');
    put.run(b.body!, b.prev_hash!, b.hash!, 3);
    put.run(a.body!, a.prev_hash!, a.hash!, 4);
    const first = bad(store.verify());
    assert.equal(first.seq, 3);
    assert.match(first.reason, /does not link/);
  }),
);

test(
  'a record inserted in the middle is caught: naively at its seq, carefully at the record it displaced',
  withChain(async ({ store, raw }) => {
    // Make room at seq 5: renumber 5… up by one (two steps, so the primary key never collides).
    raw.exec('UPDATE records SET seq = -seq - 1 WHERE seq >= 5; UPDATE records SET seq = -seq WHERE seq < 0;');
    const prev = raw.prepare('SELECT hash FROM records WHERE seq = 4').get() as { hash: string };
    const body = forgedToolBody(5, 'forged');
    const insert = raw.prepare(
      "INSERT INTO records (seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash) VALUES (5, 'tool', ?, NULL, NULL, 'execute', 'ok', 'forged', ?, ?, ?)",
    );
    insert.run(NOW, body, prev.hash, 'f'.repeat(64));
    assert.equal(bad(store.verify()).seq, 5);
    raw.prepare('UPDATE records SET hash = ? WHERE seq = 5').run(chainHash(prev.hash, body));
    const first = bad(store.verify());
    assert.equal(first.seq, 6);
    assert.match(first.reason, /does not link to record 5/);
  }),
);

test(
  "a row appended behind the store's back is caught as beyond the head",
  withChain(async ({ store, raw }) => {
    const head = store.head();
    const body = forgedToolBody(head.seq + 1, 'late');
    raw
      .prepare(
        "INSERT INTO records (seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash) VALUES (?, 'tool', ?, NULL, NULL, 'execute', 'ok', 'late', ?, ?, ?)",
      )
      .run(head.seq + 1, NOW, body, head.hash, chainHash(head.hash, body));
    const first = bad(store.verify());
    assert.equal(first.seq, head.seq + 1);
    assert.match(first.reason, /beyond the chain head/);
  }),
);

test(
  'a head witnessed earlier exposes a history rewritten consistently from the start',
  withChain(async ({ store, raw }) => {
    const witnessed = store.head();
    assert.deepEqual(store.verify({ knownHead: witnessed }), { ok: true, records: 12 });
    // Rewrite record 1 and every hash after it, and the head: the chain alone cannot tell.
    const rows = raw.prepare('SELECT seq, body FROM records ORDER BY seq').all() as { seq: number; body: string }[];
    let prev = GENESIS_HASH;
    for (const row of rows) {
      const body = row.seq === 1 ? row.body.replace('"status":200', '"status":418') : row.body;
      const hash = chainHash(prev, body);
      raw.prepare('UPDATE records SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(body, prev, hash, row.seq);
      prev = hash;
    }
    raw.prepare('UPDATE chain SET head_hash = ? WHERE id = 1').run(prev);
    assert.equal(store.verify().ok, true);
    assert.equal(bad(store.verify({ knownHead: witnessed })).seq, witnessed.seq);
  }),
);

test(
  'prune removes the oldest records, records itself, and verify still passes and still catches edits',
  withChain(async ({ store, raw }) => {
    // Records 1…12 are 40…29 days old; 30 days prunes 1…10.
    const result = store.prune({ olderThanDays: 30 });
    assert.equal(result.pruned, 10);
    assert.equal(result.throughSeq, 10);
    assert.equal(result.record?.kind, 'prune');
    assert.equal(result.record?.seq, 13);
    assert.equal(store.get(10), undefined);
    assert.deepEqual(
      store.query({ order: 'oldest' }).records.map((r) => r.seq),
      [11, 12, 13],
    );
    const head = store.head();
    assert.deepEqual({ anchorSeq: head.anchorSeq, records: head.records }, { anchorSeq: 10, records: 3 });
    assert.equal(store.get(11)!.prevHash, head.anchorHash);
    assert.equal(result.record!.anchorHash, head.anchorHash);
    assert.deepEqual(store.verify(), { ok: true, records: 3 });
    assert.deepEqual(
      store.query({ kind: 'prune' }).records.map((r) => r.seq),
      [13],
    );

    // Nothing older left: a second prune is a no-op and writes nothing.
    assert.deepEqual(store.prune({ olderThanDays: 30 }), { pruned: 0, throughSeq: 10 });
    assert.equal(store.head().seq, 13);

    await write(store, 3, NOW - DAY);
    assert.deepEqual(store.verify(), { ok: true, records: 6 });
    raw.prepare("UPDATE records SET body = json_set(body, '$.url', 'https://elsewhere.test/') WHERE seq = 12").run();
    assert.equal(bad(store.verify()).seq, 12);
  }),
);

test(
  'after a prune, deleting the first remaining record or faking a prune is caught',
  withChain(async ({ store, raw }) => {
    store.prune({ olderThanDays: 35 }); // seq 6 is exactly 35 days old: kept
    const { anchorSeq } = store.head();
    assert.equal(anchorSeq, 5);
    raw.prepare('DELETE FROM records WHERE seq = 6').run();
    const first = bad(store.verify());
    assert.equal(first.seq, 6);
    assert.match(first.reason, /missing/);
  }),
);

test(
  'records deleted from the start with the anchor moved by hand are caught: no prune record accounts for them',
  withChain(async ({ store, raw }) => {
    const h3 = (raw.prepare('SELECT hash FROM records WHERE seq = 3').get() as { hash: string }).hash;
    raw.prepare('DELETE FROM records WHERE seq <= 3').run();
    raw.prepare('UPDATE chain SET anchor_seq = 3, anchor_hash = ? WHERE id = 1').run(h3);
    const first = bad(store.verify());
    assert.equal(first.seq, 4);
    assert.match(first.reason, /no prune record accounts for it/);
  }),
);

test(
  'prune refuses to remove a damaged stretch, so pruning cannot launder an edit',
  withChain(async ({ store, raw }) => {
    raw.prepare("UPDATE records SET body = json_set(body, '$.status', 999) WHERE seq = 2").run();
    assert.throws(
      () => store.prune({ olderThanDays: 30 }),
      (e: unknown) => e instanceof AirlockError && /broken at seq 2/.test(e.message),
    );
    assert.equal(store.head().records, 12, 'nothing was removed');
    assert.equal(bad(store.verify()).seq, 2);
  }),
);

test(
  'a second prune can remove the first prune record; a run split by the cut stays consistent',
  withChain(async ({ store, clock }) => {
    store.prune({ olderThanDays: 38 }); // removes 1…2 (an unfinished run: its tool call, seq 3, stays)
    assert.equal(store.head().anchorSeq, 2);
    // Ten days on, a straggler API call of the run whose tool call is seq 12; then prune through that tool call.
    clock.now = NOW + 10 * DAY;
    const runId = (store.get(12) as { runId: string }).runId;
    await store.recordApiCall({
      runId,
      callerKey: 'http:s',
      operationId: 'events.get',
      method: 'GET',
      url: 'https://api.test/late',
      status: 200,
      durationMs: 1,
      bytes: 1,
      decision: 'read',
      startedAt: new Date(clock.now).toISOString(),
    });
    assert.deepEqual(
      store.query({ client: 'cursor', kind: 'api', limit: 1 }).records.map((r) => r.seq),
      [14],
    );
    const second = store.prune({ olderThanDays: 1 });
    assert.equal(second.throughSeq, 13, 'everything before the straggler, the first prune record included');
    assert.deepEqual(store.verify(), { ok: true, records: 2 });
    // Its run's tool call is gone, so it is no longer filed under that client.
    assert.deepEqual(store.query({ client: 'cursor' }).records, []);
    assert.throws(
      () => store.prune({ olderThanDays: -1 }),
      (e: unknown) => e instanceof AirlockError && e.kind === 'usage',
    );
  }, 12),
);

test(
  'two stores on one file (a companion and a fallback core) interleave into one sound chain',
  withChain(async ({ store }) => {
    const other = openAuditStore({ file: store.file, now: () => new Date(NOW) });
    try {
      for (let i = 0; i < 10; i++) await write(i % 2 === 0 ? store : other, 3, NOW - 5 * DAY);
      assert.equal(other.head().seq, store.head().seq);
      assert.deepEqual(store.verify(), { ok: true, records: 42 });
      assert.deepEqual(other.verify(), { ok: true, records: 42 });
    } finally {
      other.close();
    }
  }),
);
