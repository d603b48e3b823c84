// The audit store: every MCP tool call and every API call the egress gate
// makes, in one SQLite file (`audit.sqlite` in the data dir), durable before
// the call's result goes back, queryable, exportable and hash-chained.
//
// Durability. WAL journal. A record is committed before the promise
// recordToolCall / recordApiCall return settles, and records of calls that
// finish together share one commit (group commit, auditWriter.ts). A killed
// process (kill -9, crash) never loses a committed record: that needs only
// the write() into the OS. With `synchronous: 'full'` (the default), the
// record of an API call that may have changed something (not GET, HEAD,
// OPTIONS) or of an execute run settles only once the WAL is also flushed to
// disk (fdatasync, in the thread pool: walSync.ts) — a read's record is
// flushed with its run's tool record, before the client hears back — so power
// loss or an OS crash does not lose them either, as far as the disk honours its
// flushes (macOS: fsync is not F_FULLFSYNC, so a drive's volatile cache can
// still lose the last few); records of calls that reached nothing
// (search_docs, diagnostics) ride along with the next flush. `'normal'`
// flushes only at checkpoints: after power loss the commits since the last
// one may roll back (the file stays consistent and the chain still
// verifies). A commit blocks the event loop while SQLite writes it, a flush
// does not; a failed one rejects the promise, and the caller decides whether
// to fail the tool call.
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
import { transaction } from '../util/sqlite.ts';
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { ApiCallRecord } from './types.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
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
import type { ChainRow } from './auditRows.ts';
import { openDatabase } from './auditDatabase.ts';
import { createAuditWriter } from './auditWriter.ts';
import { walFile, type SyncWal } from './walSync.ts';
import { createAuditQueries } from './auditQuery.ts';
import { exportRecords } from './auditExport.ts';
import { verifyChain } from './auditVerify.ts';
import { pruneInTransaction } from './auditPrune.ts';
import { usage } from './auditWhere.ts';
import { statSync } from 'node:fs';

export { MAX_PAGE, DEFAULT_PAGE } from './auditWhere.ts';
export { INPUT_CAP_BYTES } from './auditWriter.ts';
const DAY_MS = 86_400_000;

export interface AuditStoreOptions {
  /** The SQLite file (the data dir's `audit.sqlite`); its directory is created 0700 if needed. */
  file: string;
  now?: () => Date;
  logger?: Logger;
  /** Applied to every string field before it is written. */
  redact?: (text: string) => string;
  /** `full` (default): records of what reached an API survive power loss. `normal`: records survive a killed process only. */
  synchronous?: 'full' | 'normal';
  /** Flushes the WAL to disk (tests; default: fdatasync of the -wal file in the thread pool). */
  syncWal?: SyncWal;
  /** Called after each record is committed (live views); its errors are logged, never thrown. */
  onRecord?: (entry: AuditEntry) => void;
}

export interface AuditStore {
  readonly file: string;
  /** Settles once the record is committed. */
  recordToolCall(input: ToolCallInput): Promise<ToolCallEntry>;
  /** Settles once the record is committed. */
  recordApiCall(record: ApiCallRecord): Promise<ApiCallEntry>;
  /** Newest first by default; throws a usage AirlockError for a bad filter or limit. */
  query(query?: AuditQuery): AuditPage;
  count(filter?: AuditFilter): number;
  get(seq: number): AuditEntry | undefined;
  /** The API calls a run made, oldest first. */
  apiCallsForRun(runId: string): ApiCallEntry[];
  /** When an API (by profile) was last called, as the audit log keeps it (another process's calls and a prune included). */
  lastUsed(profile: string): Date | undefined;
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
  const synchronous = options.synchronous ?? 'full';
  // NORMAL for the database itself: with `full`, durable records are flushed to disk by the writer, off the event loop.
  const db = openDatabase(file);
  const wal = walFile(file);

  const readChain = db.prepare('SELECT head_seq, head_hash, anchor_seq, anchor_hash, pruned_total FROM chain WHERE id = 1');
  const chainRow = (): ChainRow => readChain.get() as unknown as ChainRow;
  // The file as opened: a record is written only while it is still there, as itself (its data dir may be removed under us).
  const openedAs = statSync(file, { throwIfNoEntry: false });
  const gone = (): string | undefined => {
    const now = statSync(file, { throwIfNoEntry: false });
    if (!now) return 'its file no longer exists (was the data dir removed?)';
    return openedAs && (now.ino !== openedAs.ino || now.dev !== openedAs.dev) ? 'its file was replaced by another' : undefined;
  };
  const writer = createAuditWriter({ db, file, synchronous, syncWal: options.syncWal ?? wal.sync, now, log, redact, chainRow, hooks: options, gone });
  const queries = createAuditQueries(db);

  // An API call filed under its run's first tool record; one whose run has no tool record (its companion ended
  // mid-run, or it is still held) under the client its own body names (see indexColumns).
  const selectMisfiled = db.prepare(
    `WITH owner AS (SELECT run_id, client_name, tool, MIN(seq) FROM records WHERE kind = 'tool' AND run_id IS NOT NULL GROUP BY run_id)
     SELECT a.seq, CASE WHEN a.client_name IS NOT (CASE WHEN o.run_id IS NULL THEN json_extract(a.body, '$.clientName') ELSE o.client_name END) THEN 'client_name' ELSE 'tool' END AS column
     FROM records a LEFT JOIN owner o ON o.run_id = a.run_id
     WHERE a.kind = 'api' AND CASE
       WHEN o.run_id IS NULL THEN a.client_name IS NOT json_extract(a.body, '$.clientName') OR a.tool IS NOT NULL
       ELSE a.client_name IS NOT o.client_name OR a.tool IS NOT o.tool END
     ORDER BY a.seq LIMIT 1`,
  );

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
        result = pruneInTransaction(db, chainRow(), { days, at, cutoffMs }, writer.appendInTransaction);
      });
    } catch (error) {
      if (error instanceof AirlockError) throw error;
      throw new AirlockError('internal', `could not prune the audit log ${file}: ${errorMessage(error)}`, { cause: error });
    }
    if (result!.record) {
      // Move the overwritten pages into the main file and empty the WAL, so the pruned text is gone from both.
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      log.info(`pruned ${result!.pruned} audit records (through seq ${result!.throughSeq}, older than ${days} days)`);
      writer.notify(result!.record);
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
    recordToolCall: writer.recordToolCall,
    recordApiCall: writer.recordApiCall,
    query: queries.query,
    count: queries.count,
    get: queries.get,
    apiCallsForRun: queries.apiCallsForRun,
    lastUsed(profile) {
      const ms = queries.lastApiCallMs(profile);
      return ms === undefined ? undefined : new Date(ms);
    },
    export: (format, filter, write, exportOptions) => exportRecords(queries.query, format, filter, write, exportOptions),
    verify,
    prune,
    head,
    close() {
      if (!db.isOpen) return;
      try {
        writer.close(() => db.close());
      } finally {
        wal.close();
      }
    },
  };
}
