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
import { type StatementSync } from 'node:sqlite';
import { transaction } from '../util/sqlite.ts';
import { AirlockError, errorMessage } from '../errors.ts';
import type { ApiCallRecord } from '../egress/types.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { canonicalJson, chainHash, sha256Hex } from './chain.ts';
import { csvHeader, csvRow, jsonlLine } from './auditFormat.ts';
import {
  type ApiCallEntry,
  type AuditEntry,
  type AuditFilter,
  type AuditOrder,
  type AuditPage,
  type AuditQuery,
  type ChainHead,
  type ExportFormat,
  type PruneResult,
  type ToolCallEntry,
  type ToolCallInput,
  type VerifyResult,
} from './types.ts';
import { type ChainRow, type RunTool, type RunToolLookup, type RecordRow, type EntryBody, STORE_FIELDS } from './auditRows.ts';
import { openDatabase } from './auditDatabase.ts';
import { verifyChain } from './auditVerify.ts';
import { pruneInTransaction } from './auditPrune.ts';
import { whereClause, whereSql, pageLimit, seqNumber, isoTime, usage, MAX_PAGE } from './auditWhere.ts';
import { indexColumns, toEntry, apiOutcome, inputText, capUtf8, optionalString, nonEmpty, count, milliseconds, redactStrings } from './auditFields.ts';

export { MAX_PAGE, DEFAULT_PAGE } from './auditWhere.ts';
/** Tool inputs (execute code, JSON arguments) are stored up to this many UTF-8 bytes. */
export const INPUT_CAP_BYTES = 8 * 1024;
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
      return verifyChain(db, chainRow(), known, () => selectMisfiled.get() as { seq: number; column: string } | undefined);
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
        result = pruneInTransaction(db, chainRow(), { days, at, cutoffMs }, appendInTransaction);
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
