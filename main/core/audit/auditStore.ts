// The audit store: every MCP tool call and every API call the egress gate
// makes, in one SQLite file (`audit.sqlite` in the data dir), durable before
// the call's result goes back, queryable, exportable and hash-chained.
//
// Durability. WAL journal, synchronous=FULL by default: a write commits (the
// WAL is fsynced) before recordToolCall / recordApiCall return. A killed
// process (kill -9, crash) never loses a record whose write returned (that
// needs only the write() into the OS, which NORMAL would give too); with FULL,
// power loss or an OS crash does not either, as far as the disk honours its
// flushes (macOS: fsync is not F_FULLFSYNC, so a drive's volatile cache can
// still lose the last few commits). `synchronous: 'normal'` trades that for
// speed: after power loss the commits since the last WAL checkpoint may roll
// back (the file stays consistent and the chain still verifies). Writes are
// synchronous and block the event loop for one commit; an error is thrown
// to the caller, which decides whether to fail the tool call.
//
// The file is created 0600 (SQLite gives -wal and -shm the same mode) in a
// 0700 directory. A `redact` function runs over every string of a record
// before it is written (the gate already scrubs; this is the second layer);
// inputs are redacted before they are capped, so a cap cannot cut a secret
// into a prefix the redactor no longer recognises. secure_delete is on, so
// pruned records are overwritten, not left in free pages.
//
// The chain (rules in chain.ts). Every record stores its predecessor's hash
// and its own; tool, API and prune records form one chain in insertion order,
// and seq numbers are contiguous. A one-row `chain` table holds the head (last
// seq and hash) and the anchor (last pruned seq and its hash), updated in the
// same transaction as each insert. verify() walks from the anchor to the head
// and also checks that the indexed columns match the hashed body (queries
// filter on them; an API call is filed under the client and tool of its run's
// first tool record, checked once the chain itself is sound) and that a
// prune record accounts for the anchor. It names the first bad seq for: an
// edited field (body or indexed column), a record deleted in the middle,
// records reordered, renumbered or inserted, rows appended without the head,
// and a truncated tail. Prune removes a prefix only, after checking it, so a
// damaged stretch cannot be pruned away.
//
// What it cannot do: the chain has no secret. Someone who can write the file
// can rewrite every hash from the point they change up to the head, or drop
// the tail and move the head back, or delete the file, and verify() will pass.
// It catches corruption, partial or careless edits and bugs, and it proves
// history only up to a head that was witnessed outside the file: head() is
// logged when the store opens, and verify({ knownHead }) checks the chain
// still contains a head seen earlier. Forgery-resistance against the local
// user would need a key the attacker lacks (an HMAC keyed from the OS keychain,
// or heads published elsewhere).
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { transaction } from '../util/sqlite.ts';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { AirlockError, errorMessage } from '../errors.ts';
import type { ApiCallRecord } from '../egress/types.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { canonicalJson, chainHash, GENESIS_HASH, sha256Hex } from './chain.ts';
import { csvHeader, csvRow, jsonlLine } from './auditFormat.ts';
import {
  AUDIT_KINDS,
  type ApiCallEntry,
  type AuditEntry,
  type AuditFilter,
  type AuditKind,
  type AuditOrder,
  type AuditPage,
  type AuditQuery,
  type ChainHead,
  type ExportFormat,
  type PruneEntry,
  type PruneResult,
  type ToolCallEntry,
  type ToolCallInput,
  type VerifyResult,
} from './types.ts';

/** Tool inputs (execute code, JSON arguments) are stored up to this many UTF-8 bytes. */
export const INPUT_CAP_BYTES = 8 * 1024;
export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 100;
const SCHEMA_VERSION = 1;
const DAY_MS = 86_400_000;
const FINGERPRINT = /^sha256:[0-9a-f]{6,64}$/i;

export interface AuditStoreOptions {
  /** The SQLite file (the data dir's `audit.sqlite`); its directory is created 0700 if needed. */
  file: string;
  now?: () => Date;
  logger?: Logger;
  /** Applied to every string field before it is written. */
  redact?: (text: string) => string;
  /** `full` (default): commits survive power loss. `normal`: they survive a killed process only. */
  synchronous?: 'full' | 'normal';
  /** Called after each record is committed (live views); its errors are logged, never thrown. */
  onRecord?: (entry: AuditEntry) => void;
}

export interface AuditStore {
  readonly file: string;
  /** Committed when it returns. */
  recordToolCall(input: ToolCallInput): ToolCallEntry;
  /** Committed when it returns. */
  recordApiCall(record: ApiCallRecord): ApiCallEntry;
  /** Newest first by default; throws a usage AirlockError for a bad filter or limit. */
  query(query?: AuditQuery): AuditPage;
  count(filter?: AuditFilter): number;
  get(seq: number): AuditEntry | undefined;
  /** The API calls a run made, oldest first. */
  apiCallsForRun(runId: string): ApiCallEntry[];
  /** Streams matching records (oldest first by default) to `write`, awaiting it between batches. */
  export(
    format: ExportFormat,
    filter: AuditFilter & { order?: AuditOrder },
    write: (chunk: string) => void | Promise<void>,
    options?: { formulaGuard?: boolean },
  ): Promise<{ records: number }>;
  verify(options?: { knownHead?: { seq: number; hash: string } }): VerifyResult;
  /** Removes the oldest records whose time is more than `olderThanDays` ago (a prefix of the chain) and records that it did. */
  prune(options: { olderThanDays: number }): PruneResult;
  head(): ChainHead;
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS chain (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  head_seq INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  anchor_seq INTEGER NOT NULL,
  anchor_hash TEXT NOT NULL,
  pruned_total INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  run_id TEXT,
  client_name TEXT,
  tool TEXT,
  outcome TEXT NOT NULL,
  search TEXT NOT NULL,
  body TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS records_kind ON records (kind, seq);
CREATE INDEX IF NOT EXISTS records_at ON records (at_ms);
CREATE INDEX IF NOT EXISTS records_run ON records (run_id);
CREATE INDEX IF NOT EXISTS records_client ON records (client_name, seq);
CREATE INDEX IF NOT EXISTS records_tool ON records (tool, seq);
CREATE INDEX IF NOT EXISTS records_outcome ON records (outcome, seq);
`;

interface ChainRow {
  head_seq: number;
  head_hash: string;
  anchor_seq: number;
  anchor_hash: string;
  pruned_total: number;
}

/** The columns derived from a record's body (what queries filter on). */
interface IndexColumns {
  kind: string;
  at_ms: number;
  run_id: string | null;
  client_name: string | null;
  tool: string | null;
  outcome: string;
  search: string;
}

const INDEX_COLUMNS: readonly (keyof IndexColumns)[] = ['kind', 'at_ms', 'run_id', 'client_name', 'tool', 'outcome', 'search'];

interface RunTool {
  client_name: string | null;
  tool: string | null;
}
type RunToolLookup = (runId: string | null) => RunTool | undefined;

interface RecordRow extends IndexColumns {
  seq: number;
  body: string;
  prev_hash: string;
  hash: string;
}

type EntryBody = AuditEntry extends infer E ? (E extends AuditEntry ? Omit<E, 'prevHash' | 'hash'> : never) : never;

/** Fields the store itself sets; the redactor never needs to see them. */
const STORE_FIELDS = new Set(['kind', 'seq', 'time', 'recordedAt', 'inputSha256', 'anchorHash', 'cutoff']);

export function openAuditStore(options: AuditStoreOptions): AuditStore {
  const file = options.file;
  const now = options.now ?? (() => new Date());
  const log = (options.logger ?? silentLogger).child('audit');
  const redact = options.redact ?? ((s: string) => s);
  const db = openDatabase(file, options.synchronous ?? 'full');

  const readChain = db.prepare('SELECT head_seq, head_hash, anchor_seq, anchor_hash, pruned_total FROM chain WHERE id = 1');
  const insertRecord = db.prepare(
    `INSERT INTO records (seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateHead = db.prepare('UPDATE chain SET head_seq = ?, head_hash = ? WHERE id = 1');
  const selectOne = db.prepare('SELECT seq, body, prev_hash, hash FROM records WHERE seq = ?');
  const selectRun = db.prepare("SELECT seq, body, prev_hash, hash FROM records WHERE kind = 'api' AND run_id = ? ORDER BY seq");
  // The client and tool of a run come from its first tool record's hashed body, never from another row's columns.
  const selectRunTool = db.prepare(
    "SELECT json_extract(body, '$.clientName') AS client_name, json_extract(body, '$.tool') AS tool FROM records WHERE kind = 'tool' AND run_id = ? ORDER BY seq LIMIT 1",
  );
  const linkRun = db.prepare("UPDATE records SET client_name = ?, tool = ? WHERE kind = 'api' AND run_id = ?");
  const runTool: RunToolLookup = (runId) => (runId === null ? undefined : (selectRunTool.get(runId) as RunTool | undefined));
  const selectMisfiled = db.prepare(
    `WITH owner AS (SELECT run_id, client_name, tool, MIN(seq) FROM records WHERE kind = 'tool' AND run_id IS NOT NULL GROUP BY run_id)
     SELECT a.seq, CASE WHEN a.client_name IS NOT o.client_name THEN 'client_name' ELSE 'tool' END AS column
     FROM records a LEFT JOIN owner o ON o.run_id = a.run_id
     WHERE a.kind = 'api' AND (a.client_name IS NOT o.client_name OR a.tool IS NOT o.tool)
     ORDER BY a.seq LIMIT 1`,
  );
  const statements = new Map<string, StatementSync>();
  const prepared = (sql: string): StatementSync => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };

  const chainRow = (): ChainRow => readChain.get() as unknown as ChainRow;

  /** Appends one record; the caller holds the write transaction. */
  function appendInTransaction(make: (seq: number, recordedAt: string) => EntryBody): AuditEntry {
    const chain = chainRow();
    const seq = chain.head_seq + 1;
    const body = redactStrings(make(seq, now().toISOString()), redact, STORE_FIELDS) as EntryBody;
    const text = canonicalJson(body);
    const hash = chainHash(chain.head_hash, text);
    const fields = body as unknown as Record<string, unknown>;
    // A tool record that opens a run lends its client and tool to the run's API calls already written.
    const opensRun = body.kind === 'tool' && body.runId !== undefined && runTool(body.runId) === undefined;
    const c = indexColumns(fields, runTool);
    insertRecord.run(seq, c.kind, c.at_ms, c.run_id, c.client_name, c.tool, c.outcome, c.search, text, chain.head_hash, hash);
    if (opensRun) linkRun.run(c.client_name, c.tool, c.run_id);
    updateHead.run(seq, hash);
    // Hand back what a query would: the canonical fields (absent ones left out), then the chain fields.
    return { ...(JSON.parse(text) as EntryBody), prevHash: chain.head_hash, hash } as AuditEntry;
  }

  function append<T extends AuditEntry>(make: (seq: number, recordedAt: string) => EntryBody): T {
    let entry: AuditEntry | undefined;
    try {
      transaction(db, () => {
        entry = appendInTransaction(make);
      });
    } catch (error) {
      throw new AirlockError('internal', `could not write to the audit log ${file}: ${errorMessage(error)}`, { cause: error });
    }
    notify(entry!);
    return entry as T;
  }

  function notify(entry: AuditEntry): void {
    if (!options.onRecord) return;
    try {
      options.onRecord(entry);
    } catch (error) {
      log.error(`an audit listener failed: ${errorMessage(error)}`);
    }
  }

  function fingerprint(value: string | undefined): string | undefined {
    if (value === undefined || value === '') return undefined;
    if (FINGERPRINT.test(value)) return value;
    log.warn('a tool call came with a credential fingerprint that is not sha256:<hex>; it was not stored');
    return 'invalid';
  }

  function recordToolCall(input: ToolCallInput): ToolCallEntry {
    const raw = inputText(input.input);
    const redacted = capUtf8(redact(raw), INPUT_CAP_BYTES);
    const credentialFingerprint = fingerprint(optionalString(input.credentialFingerprint));
    return append<ToolCallEntry>((seq, recordedAt) => ({
      kind: 'tool',
      seq,
      time: isoTime(input.time) ?? recordedAt,
      recordedAt,
      outcome: nonEmpty(input.outcome, 'unknown'),
      clientName: optionalString(input.clientName),
      clientVersion: optionalString(input.clientVersion),
      transport: input.transport,
      sessionId: optionalString(input.sessionId),
      tool: nonEmpty(input.tool, 'unknown'),
      durationMs: milliseconds(input.durationMs),
      input: redacted.text,
      inputSha256: sha256Hex(raw),
      inputBytes: Buffer.byteLength(raw),
      inputTruncated: redacted.truncated,
      bytesOut: count(input.bytesOut),
      error: optionalString(input.error),
      credentialFingerprint,
      profile: optionalString(input.profile),
      runId: optionalString(input.runId),
    }));
  }

  function recordApiCall(record: ApiCallRecord): ApiCallEntry {
    return append<ApiCallEntry>((seq, recordedAt) => ({
      kind: 'api',
      seq,
      time: isoTime(record.startedAt) ?? recordedAt,
      recordedAt,
      outcome: apiOutcome(record),
      runId: String(record.runId ?? ''),
      callerKey: String(record.callerKey ?? ''),
      operationId: String(record.operationId ?? ''),
      method: String(record.method ?? ''),
      url: String(record.url ?? ''),
      status: count(record.status),
      durationMs: milliseconds(record.durationMs),
      bytes: count(record.bytes),
      decision: record.decision,
      approval: record.approval
        ? {
            by: String(record.approval.by ?? ''),
            at: String(record.approval.at ?? ''),
            scope: record.approval.scope,
            reason: optionalString(record.approval.reason),
            code: optionalString(record.approval.code),
            grantId: optionalString(record.approval.grantId),
          }
        : undefined,
      error: optionalString(record.error),
      startedAt: String(record.startedAt ?? ''),
    }));
  }

  function query(q: AuditQuery = {}): AuditPage {
    const limit = pageLimit(q.limit);
    const order = q.order ?? 'newest';
    if (order !== 'newest' && order !== 'oldest') throw usage(`order must be "newest" or "oldest", not "${String(order)}"`);
    const where = whereClause(q);
    if (q.before !== undefined) {
      where.clauses.push('seq < ?');
      where.params.push(seqNumber(q.before, 'before'));
    }
    if (q.after !== undefined) {
      where.clauses.push('seq > ?');
      where.params.push(seqNumber(q.after, 'after'));
    }
    const sql = `SELECT seq, body, prev_hash, hash FROM records${whereSql(where.clauses)} ORDER BY seq ${order === 'newest' ? 'DESC' : 'ASC'} LIMIT ?`;
    const rows = prepared(sql).all(...where.params, limit + 1) as unknown as RecordRow[];
    const records = rows.slice(0, limit).map(toEntry);
    const page: AuditPage = { records };
    if (rows.length > limit) page.next = records[records.length - 1]!.seq;
    return page;
  }

  function countRecords(filter: AuditFilter = {}): number {
    const where = whereClause(filter);
    const row = prepared(`SELECT COUNT(*) AS n FROM records${whereSql(where.clauses)}`).get(...where.params) as { n: number };
    return row.n;
  }

  function get(seq: number): AuditEntry | undefined {
    if (!Number.isSafeInteger(seq)) return undefined;
    const row = selectOne.get(seq) as RecordRow | undefined;
    return row ? toEntry(row) : undefined;
  }

  function apiCallsForRun(runId: string): ApiCallEntry[] {
    return (selectRun.all(runId) as unknown as RecordRow[]).map(toEntry) as ApiCallEntry[];
  }

  async function exportRecords(
    format: ExportFormat,
    filter: AuditFilter & { order?: AuditOrder },
    write: (chunk: string) => void | Promise<void>,
    exportOptions: { formulaGuard?: boolean } = {},
  ): Promise<{ records: number }> {
    if (format !== 'jsonl' && format !== 'csv') throw usage(`export format must be "jsonl" or "csv", not "${String(format)}"`);
    const order = filter.order ?? 'oldest';
    const guard = exportOptions.formulaGuard ?? true;
    const line = format === 'csv' ? (e: AuditEntry) => csvRow(e, guard) : jsonlLine;
    if (format === 'csv') await write(csvHeader());
    let cursor: number | undefined;
    let total = 0;
    for (;;) {
      const page = query({
        ...filter,
        order,
        limit: MAX_PAGE,
        before: order === 'newest' ? cursor : undefined,
        after: order === 'oldest' ? cursor : undefined,
      });
      if (page.records.length > 0) await write(page.records.map(line).join(''));
      total += page.records.length;
      if (page.next === undefined) return { records: total };
      cursor = page.next;
    }
  }

  function verify(verifyOptions: { knownHead?: { seq: number; hash: string } } = {}): VerifyResult {
    const known = verifyOptions.knownHead;
    db.exec('BEGIN');
    try {
      const chain = chainRow();
      const rows = db
        .prepare('SELECT seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash FROM records ORDER BY seq')
        .iterate() as Iterable<RecordRow>;
      let anchorAccounted = chain.anchor_seq === 0;
      const walk = walkChain(rows, chain.anchor_seq, chain.anchor_hash, (row, body) => {
        if (row.seq > chain.head_seq) return `record ${row.seq} is beyond the chain head (seq ${chain.head_seq}): it was added outside Airlock`;
        if (known && row.seq === known.seq && row.hash !== known.hash)
          return `record ${row.seq} is not the one witnessed earlier (hash ${known.hash.slice(0, 16)}…)`;
        if (body.kind === 'prune' && body.throughSeq === chain.anchor_seq && body.anchorHash === chain.anchor_hash) anchorAccounted = true;
        return undefined;
      });
      const bad = (seq: number, reason: string): VerifyResult => ({ ok: false, records: walk.checked, firstBad: { seq, reason } });
      if (walk.bad) return bad(walk.bad.seq, walk.bad.reason);
      if (walk.nextSeq <= chain.head_seq) {
        const range = walk.nextSeq === chain.head_seq ? `record ${walk.nextSeq} is` : `records ${walk.nextSeq}–${chain.head_seq} are`;
        return bad(walk.nextSeq, `${range} missing: the chain head says seq ${chain.head_seq} (the tail was truncated)`);
      }
      if (walk.lastHash !== chain.head_hash) return bad(chain.head_seq, `record ${chain.head_seq}'s hash differs from the chain head`);
      if (!anchorAccounted)
        return bad(chain.anchor_seq + 1, `the chain starts after seq ${chain.anchor_seq} but no prune record accounts for it (records were deleted)`);
      if (known && known.seq > chain.head_seq)
        return bad(chain.head_seq + 1, `the chain ends at seq ${chain.head_seq}, before the head witnessed earlier (seq ${known.seq})`);
      if (known && known.seq === chain.anchor_seq && known.hash !== chain.anchor_hash)
        return bad(known.seq, `the anchor is not the head witnessed earlier at seq ${known.seq}`);
      // The chain is sound, so tool rows' columns are their bodies': each API call must be filed under its run's first tool record.
      const misfiled = selectMisfiled.get() as { seq: number; column: string } | undefined;
      if (misfiled) {
        return {
          ok: false,
          records: misfiled.seq - chain.anchor_seq - 1,
          firstBad: {
            seq: misfiled.seq,
            reason: `record ${misfiled.seq}'s indexed column ${misfiled.column} disagrees with its run's tool record (edited outside Airlock)`,
          },
        };
      }
      return { ok: true, records: walk.checked };
    } finally {
      if (db.isTransaction) db.exec('COMMIT');
    }
  }

  function prune(pruneOptions: { olderThanDays: number }): PruneResult {
    const days = pruneOptions?.olderThanDays;
    if (typeof days !== 'number' || !Number.isFinite(days) || days < 0) throw usage('olderThanDays must be a number of days, 0 or more');
    const at = now();
    const cutoffMs = at.getTime() - days * DAY_MS;
    let result: PruneResult | undefined;
    try {
      transaction(db, () => {
        const chain = chainRow();
        const firstKept = (db.prepare('SELECT MIN(seq) AS seq FROM records WHERE at_ms >= ?').get(cutoffMs) as { seq: number | null }).seq;
        const throughSeq = firstKept === null ? chain.head_seq : firstKept - 1;
        if (throughSeq <= chain.anchor_seq) {
          result = { pruned: 0, throughSeq: chain.anchor_seq };
          return;
        }
        // Removing a damaged stretch would launder it: check what goes before it goes.
        const rows = db
          .prepare('SELECT seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash FROM records WHERE seq <= ? ORDER BY seq')
          .iterate(throughSeq) as Iterable<RecordRow>;
        const walk = walkChain(rows, chain.anchor_seq, chain.anchor_hash);
        if (walk.bad || walk.nextSeq !== throughSeq + 1) {
          const where = walk.bad ?? { seq: walk.nextSeq, reason: `record ${walk.nextSeq} is missing` };
          throw new AirlockError('internal', `refusing to prune: the audit chain is broken at seq ${where.seq} (${where.reason})`, {
            hint: 'run the audit verification and keep a copy of the file before pruning',
          });
        }
        // API calls kept whose run's tool record goes: they follow the run's next tool record, if any, or none.
        const kept = `(SELECT json_extract(t.body, '$.%') FROM records t WHERE t.kind = 'tool' AND t.run_id = records.run_id AND t.seq > ?1 ORDER BY t.seq LIMIT 1)`;
        db.prepare(
          `UPDATE records SET client_name = ${kept.replace('%', 'clientName')}, tool = ${kept.replace('%', 'tool')}
           WHERE kind = 'api' AND seq > ?1 AND run_id IN (SELECT run_id FROM records WHERE kind = 'tool' AND seq <= ?1 AND run_id IS NOT NULL)`,
        ).run(throughSeq);
        db.prepare('DELETE FROM records WHERE seq <= ?').run(throughSeq);
        const pruned = throughSeq - chain.anchor_seq;
        db.prepare('UPDATE chain SET anchor_seq = ?, anchor_hash = ?, pruned_total = pruned_total + ? WHERE id = 1').run(throughSeq, walk.lastHash, pruned);
        const record = appendInTransaction((seq, recordedAt) => ({
          kind: 'prune',
          seq,
          time: at.toISOString(),
          recordedAt,
          outcome: 'ok',
          olderThanDays: days,
          cutoff: new Date(cutoffMs).toISOString(),
          pruned,
          throughSeq,
          anchorHash: walk.lastHash,
        })) as PruneEntry;
        result = { pruned, throughSeq, record };
      });
    } catch (error) {
      if (error instanceof AirlockError) throw error;
      throw new AirlockError('internal', `could not prune the audit log ${file}: ${errorMessage(error)}`, { cause: error });
    }
    if (result!.record) {
      // Move the overwritten pages into the main file and empty the WAL, so the pruned text is gone from both.
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      log.info(`pruned ${result!.pruned} audit records (through seq ${result!.throughSeq}, older than ${days} days)`);
      notify(result!.record);
    }
    return result!;
  }

  function head(): ChainHead {
    const c = chainRow();
    return {
      seq: c.head_seq,
      hash: c.head_hash,
      records: c.head_seq - c.anchor_seq,
      anchorSeq: c.anchor_seq,
      anchorHash: c.anchor_hash,
      pruned: c.pruned_total,
    };
  }

  const opened = head();
  log.info(`audit log ${file}: ${opened.records} records, chain head seq ${opened.seq} hash ${opened.hash}`);

  return {
    file,
    recordToolCall,
    recordApiCall,
    query,
    count: countRecords,
    get,
    apiCallsForRun,
    export: exportRecords,
    verify,
    prune,
    head,
    close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Opens (creating when new) the audit database, or throws an AirlockError that says what to do. */
function openDatabase(file: string, synchronous: 'full' | 'normal'): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Create the file ourselves so it is never world-readable, even for a moment; SQLite copies its mode to -wal and -shm.
    closeSync(openSync(file, 'a', 0o600));
    if (process.platform !== 'win32') chmodSync(file, 0o600);
    const opened = new DatabaseSync(file);
    db = opened;
    opened.exec(`PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'};`);
    const mode = (opened.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }).journal_mode;
    if (mode !== 'wal') throw new Error(`the file system refused WAL mode (journal_mode is ${mode})`);
    transaction(opened, () => {
      opened.exec(SCHEMA);
      const version = opened.prepare("SELECT value FROM meta WHERE key = 'schemaVersion'").get() as { value: string } | undefined;
      if (version && Number(version.value) > SCHEMA_VERSION) throw new Error(`it was written by a newer Airlock (schema ${version.value})`);
      if (!version) opened.prepare("INSERT INTO meta (key, value) VALUES ('schemaVersion', ?)").run(String(SCHEMA_VERSION));
      opened
        .prepare('INSERT OR IGNORE INTO chain (id, head_seq, head_hash, anchor_seq, anchor_hash, pruned_total) VALUES (1, 0, ?, 0, ?, 0)')
        .run(GENESIS_HASH, GENESIS_HASH);
    });
    return opened;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw new AirlockError('config', `cannot open the audit log ${file}: ${errorMessage(error)}`, {
      hint: 'move that file aside to start a new audit log (the old one stays readable with sqlite3)',
      cause: error,
    });
  }
}

interface Walk {
  checked: number;
  nextSeq: number;
  lastHash: string;
  bad?: { seq: number; reason: string };
}

/**
 * Walks rows in seq order from an anchor: contiguous seqs, each linking to the
 * one before, each hash matching its body, each indexed column matching the
 * body (for API calls, all but the client and tool they borrow from their
 * run). `extra` adds checks; the walk stops at the first problem.
 */
function walkChain(
  rows: Iterable<RecordRow>,
  anchorSeq: number,
  anchorHash: string,
  extra?: (row: RecordRow, body: Record<string, unknown>) => string | undefined,
): Walk {
  const walk: Walk = { checked: 0, nextSeq: anchorSeq + 1, lastHash: anchorHash };
  for (const row of rows) {
    const seq = row.seq;
    const stop = (at: number, reason: string): Walk => ({ ...walk, bad: { seq: at, reason } });
    if (seq < walk.nextSeq) return stop(seq, `record ${seq} sits before the chain's start (seq ${walk.nextSeq}): it was put back after a prune`);
    if (seq > walk.nextSeq) {
      const range = seq - 1 === walk.nextSeq ? `record ${walk.nextSeq} is` : `records ${walk.nextSeq}–${seq - 1} are`;
      return stop(walk.nextSeq, `${range} missing (deleted from the middle of the chain)`);
    }
    if (row.prev_hash !== walk.lastHash) {
      const before = seq === anchorSeq + 1 && anchorSeq > 0 ? 'the prune anchor' : `record ${seq - 1}`;
      return stop(seq, `record ${seq} does not link to ${before} (it, or what it follows, was changed, replaced or moved)`);
    }
    if (chainHash(row.prev_hash, row.body) !== row.hash) return stop(seq, `record ${seq}'s contents do not match its hash (a field was edited)`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(row.body) as Record<string, unknown>;
    } catch {
      return stop(seq, `record ${seq}'s body is not valid JSON`);
    }
    if (body.seq !== seq) return stop(seq, `record ${seq}'s body says seq ${String(body.seq)} (renumbered)`);
    // An API call's client and tool depend on another record: verify() checks them once the whole chain is sound.
    const expected = indexColumns(body, () => undefined);
    const own = body.kind === 'api' ? INDEX_COLUMNS.filter((k) => k !== 'client_name' && k !== 'tool') : INDEX_COLUMNS;
    for (const key of own) {
      if (expected[key] !== row[key]) return stop(seq, `record ${seq}'s indexed column ${key} disagrees with its hashed contents (edited outside Airlock)`);
    }
    const problem = extra?.(row, body);
    if (problem) return stop(seq, problem);
    walk.checked++;
    walk.nextSeq = seq + 1;
    walk.lastHash = row.hash;
  }
  return walk;
}

/**
 * The indexed columns a record's body implies. An API call is filed under the
 * client and tool of its run (the run's first tool record, written after it),
 * so filtering by client or tool finds the API calls too, through an index.
 */
function indexColumns(body: Record<string, unknown>, runTool: RunToolLookup): IndexColumns {
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const runId = str(body.runId);
  const owner = body.kind === 'tool' ? { client_name: str(body.clientName), tool: str(body.tool) } : body.kind === 'api' ? runTool(runId) : undefined;
  return {
    kind: String(body.kind),
    at_ms: Date.parse(String(body.time)),
    run_id: runId,
    client_name: owner?.client_name ?? null,
    tool: owner?.tool ?? null,
    outcome: String(body.outcome),
    search: [body.input, body.error, body.url, body.operationId]
      .filter((v): v is string => typeof v === 'string' && v !== '')
      .join('\n')
      .toLowerCase(),
  };
}

function whereClause(f: AuditFilter): { clauses: string[]; params: SQLInputValue[] } {
  const clauses: string[] = [];
  const params: SQLInputValue[] = [];
  if (f.from !== undefined) {
    clauses.push('at_ms >= ?');
    params.push(timeMs(f.from, 'from'));
  }
  if (f.to !== undefined) {
    clauses.push('at_ms <= ?');
    params.push(timeMs(f.to, 'to'));
  }
  if (f.kind !== undefined) {
    const kinds: readonly AuditKind[] = typeof f.kind === 'string' ? [f.kind] : f.kind;
    for (const k of kinds) if (!AUDIT_KINDS.includes(k)) throw usage(`kind must be one of ${AUDIT_KINDS.join(', ')}, not "${String(k)}"`);
    clauses.push(kinds.length === 0 ? '0' : `kind IN (${kinds.map(() => '?').join(', ')})`);
    params.push(...kinds);
  }
  // API calls carry their run's client and tool in these columns (see indexColumns).
  if (f.client !== undefined) {
    clauses.push('client_name = ?');
    params.push(String(f.client));
  }
  if (f.tool !== undefined) {
    clauses.push('tool = ?');
    params.push(String(f.tool));
  }
  if (f.outcome !== undefined) {
    clauses.push('outcome = ?');
    params.push(String(f.outcome));
  }
  if (f.failed) clauses.push("outcome <> 'ok'");
  if (f.text !== undefined && f.text !== '') {
    clauses.push('instr(search, ?) > 0');
    params.push(String(f.text).toLowerCase());
  }
  if (f.runId !== undefined) {
    clauses.push('run_id = ?');
    params.push(String(f.runId));
  }
  if (f.profile !== undefined) {
    clauses.push(
      "((kind = 'tool' AND json_extract(body, '$.profile') = ?) OR (kind = 'api' AND run_id IN (SELECT run_id FROM records WHERE kind = 'tool' AND json_extract(body, '$.profile') = ?)))",
    );
    params.push(String(f.profile), String(f.profile));
  }
  // Fields only API calls have: a filter on one of them selects API calls.
  const apiFields: [keyof AuditFilter, string, (v: string) => string][] = [
    ['operation', '$.operationId', (v) => v],
    ['method', '$.method', (v) => v.toUpperCase()],
    ['decision', '$.decision', (v) => v],
  ];
  for (const [key, path, normalise] of apiFields) {
    if (f[key] === undefined) continue;
    clauses.push(`(kind = 'api' AND json_extract(body, '${path}') = ?)`);
    params.push(normalise(String(f[key])));
  }
  return { clauses, params };
}

function whereSql(clauses: string[]): string {
  return clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
}

function toEntry(row: { seq: number; body: string; prev_hash: string; hash: string }): AuditEntry {
  try {
    return { ...(JSON.parse(row.body) as EntryBody), prevHash: row.prev_hash, hash: row.hash } as AuditEntry;
  } catch {
    throw new AirlockError('internal', `audit record ${row.seq} is unreadable`, { hint: 'run the audit verification to see what happened to the file' });
  }
}

function usage(message: string): AirlockError {
  return new AirlockError('usage', message);
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw usage(`limit must be a whole number from 1 to ${MAX_PAGE}`);
  return limit;
}

function seqNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) throw usage(`${name} must be a record seq (a whole number)`);
  return value;
}

function timeMs(value: string | Date, name: string): number {
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (!Number.isFinite(ms)) throw usage(`${name} is not a date: ${String(value)}`);
  return ms;
}

function isoTime(value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

function apiOutcome(r: ApiCallRecord): string {
  if (r.decision === 'denied' || r.decision === 'refused') return r.decision;
  if (r.status >= 400) return 'http_error';
  if (r.error || !(r.status > 0)) return 'error';
  return 'ok';
}

function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === undefined) return '';
  try {
    return JSON.stringify(input) ?? String(input);
  } catch {
    return String(input);
  }
}

/** The longest prefix of `text` that fits in `cap` UTF-8 bytes without splitting a character. */
export function capUtf8(text: string, cap: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= cap) return { text, truncated: false };
  let end = cap;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

function nonEmpty(value: unknown, fallback: string): string {
  const s = optionalString(value);
  return s === undefined || s === '' ? fallback : s;
}

function count(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

function milliseconds(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n * 1000) / 1000 : 0;
}

function redactStrings(value: unknown, redact: (text: string) => string, skip?: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = skip?.has(k) ? v : redactStrings(v, redact);
    return out;
  }
  return value;
}
