// Writing to the audit chain: a tool call or an API call becomes a redacted,
// capped record, appended with its hash, committed, then announced.
//
// Group commit. A record is queued, and every record queued before the queue
// is drained — the records of calls that finish in the same turn of the
// event loop — shares one transaction. If a batch fails, its records are
// retried one transaction each, so one bad record fails only its own call.
// Order is queue order: a run's API calls are awaited before its tool record
// is queued, so they come first in the chain.
//
// When a record's promise settles. Every commit survives a killed process
// (the WAL frames are written into the OS before COMMIT returns). With
// synchronous=FULL, the record of an API call that may have changed something
// (the gate did not classify it as a read, or its method is not GET, HEAD or
// OPTIONS) and the tool record of an execute run
// settle only once the WAL has also been flushed to disk — so the client's
// answer never comes before every record of its run is on disk, a read's
// included: by an fdatasync in the thread pool (walSync.ts), so
// the event loop goes on serving calls during the flush, and one flush covers
// every commit made before it started. A record of a call that ran no code
// and sent nothing (search_docs, the diagnostics tools) settles at its
// commit and reaches the disk with the next flush or checkpoint: a power cut
// before that can lose it, never the chain's consistency. If the WAL file
// cannot be opened for flushing, durable records fall back to commits with
// synchronous=FULL (the flush then blocks the event loop).
import { callKindOf } from '../../../contract/calls.ts';
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from '../util/sqlite.ts';
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { ApiCallRecord } from './types.ts';
import type { Logger } from '../log/logger.ts';
import { canonicalJson, chainHash, sha256Hex } from './chain.ts';
import type { ApiCallEntry, AuditEntry, ToolCallEntry, ToolCallInput } from './types.ts';
import { type ChainRow, type RunTool, type RunToolLookup, type EntryBody, STORE_FIELDS } from './auditRows.ts';
import { isoTime } from './auditWhere.ts';
import { indexColumns, apiOutcome, inputText, capUtf8, optionalString, nonEmpty, count, milliseconds, redactStrings } from './auditFields.ts';
import { GroupSync, type SyncWal } from './walSync.ts';

/** Tool inputs (execute code, JSON arguments) are stored up to this many UTF-8 bytes. */
export const INPUT_CAP_BYTES = 8 * 1024;
const FINGERPRINT = /^sha256:[0-9a-f]{6,64}$/i;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type MakeBody = (seq: number, recordedAt: string) => EntryBody;

export interface AuditWriterContext {
  db: DatabaseSync;
  /** `full`: durable records settle once on disk; `normal`: at their commit. The database itself runs with NORMAL. */
  synchronous: 'full' | 'normal';
  /** Flushes the WAL to disk (with `full`). */
  syncWal: SyncWal;
  file: string;
  now: () => Date;
  log: Logger;
  redact: (text: string) => string;
  chainRow: () => ChainRow;
  /** Read on every record, so a listener set after opening is called too. */
  hooks: { onRecord?: (entry: AuditEntry) => void };
  /** Why the database file is no longer the one open (its data dir removed, the file replaced), else undefined. */
  gone?(): string | undefined;
}

export interface AuditWriter {
  /** Appends one record; the caller holds the write transaction. */
  appendInTransaction(make: MakeBody): AuditEntry;
  /** Hands a committed record to the listener; its errors are logged, never thrown. */
  notify(entry: AuditEntry): void;
  /** Settles once the record is committed. */
  recordToolCall(input: ToolCallInput): Promise<ToolCallEntry>;
  /** Settles once the record is committed. */
  recordApiCall(record: ApiCallRecord): Promise<ApiCallEntry>;
  /**
   * Commits what is queued, then closes the database with `closeDatabase`
   * (whose checkpoint syncs every commit) and settles the records still
   * waiting for a flush: written, or failed if the close failed.
   */
  close(closeDatabase: () => void): void;
}

interface Queued {
  make: MakeBody;
  /** Fsynced before the caller hears back (under synchronous=FULL). */
  durable: boolean;
  resolve(entry: AuditEntry): void;
  reject(error: Error): void;
}

export function createAuditWriter(ctx: AuditWriterContext): AuditWriter {
  const { db, file, now, log, redact, chainRow, hooks } = ctx;
  let syncMode: 'FULL' | 'NORMAL' = 'NORMAL';
  const setSync = (mode: 'FULL' | 'NORMAL') => {
    if (mode === syncMode) return;
    db.exec(`PRAGMA synchronous = ${mode}`);
    syncMode = mode;
  };
  const groupSync = new GroupSync(ctx.syncWal);
  /** Set when the WAL could not be flushed from the thread pool: durable records then commit with synchronous=FULL. */
  let flushInCommit = false;
  const durably = (entry: AuditEntry): Promise<AuditEntry> =>
    groupSync.afterCommit().then(
      () => entry,
      (error: unknown) => {
        if (db.isOpen && ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EACCES')) {
          // The WAL file cannot be opened (an unusual file system): flush inside the commit from now on.
          if (!flushInCommit) log.warn(`audit: cannot flush ${file}-wal from the thread pool (${errorMessage(error)}); commits wait for the disk`);
          flushInCommit = true;
          setSync('FULL');
          db.exec('PRAGMA wal_checkpoint(FULL)');
          setSync('NORMAL');
          return entry;
        }
        throw new AirlockError('internal', `could not flush the audit log ${file} to disk: ${errorMessage(error)}`, { cause: error });
      },
    );
  const insertRecord = db.prepare(
    `INSERT INTO records (seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateHead = db.prepare('UPDATE chain SET head_seq = ?, head_hash = ? WHERE id = 1');
  // The client and tool of a run come from its first tool record's hashed body, never from another row's columns.
  const selectRunTool = db.prepare(
    "SELECT json_extract(body, '$.clientName') AS client_name, json_extract(body, '$.tool') AS tool FROM records WHERE kind = 'tool' AND run_id = ? ORDER BY seq LIMIT 1",
  );
  const linkRun = db.prepare("UPDATE records SET client_name = ?, tool = ? WHERE kind = 'api' AND run_id = ?");
  const runTool: RunToolLookup = (runId) => (runId === null ? undefined : (selectRunTool.get(runId) as RunTool | undefined));

  function appendInTransaction(make: MakeBody): AuditEntry {
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

  let queue: Queued[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  function append<T extends AuditEntry>(make: MakeBody, durable: boolean): Promise<T> {
    return new Promise<AuditEntry>((resolve, reject) => {
      queue.push({ make, durable, resolve, reject });
      scheduled ??= setImmediate(flush);
    }) as Promise<T>;
  }

  function commit(batch: Queued[]): AuditEntry[] {
    if (flushInCommit) setSync(batch.some((q) => q.durable) ? 'FULL' : 'NORMAL');
    const entries: AuditEntry[] = [];
    transaction(db, () => {
      for (const queued of batch) entries.push(appendInTransaction(queued.make));
    });
    return entries;
  }

  function flush(): void {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const batch = queue;
    queue = [];
    if (batch.length > 0) settle(batch);
  }

  /** Commits a batch and settles its records; a failed batch is retried one record at a time, unless the database itself is busy. */
  function settle(batch: Queued[]): void {
    let entries: AuditEntry[];
    // A file no longer there keeps nothing: no record is taken for written, and the call it is for is not answered.
    const gone = ctx.gone?.();
    if (gone !== undefined) {
      for (const queued of batch) queued.reject(new AirlockError('unavailable', `the audit log ${file} cannot keep this record: ${gone}`));
      return;
    }
    try {
      entries = commit(batch);
    } catch (error) {
      const failure = () => new AirlockError('internal', `could not write to the audit log ${file}: ${errorMessage(error)}`, { cause: error });
      // Another process holds the write lock past busy_timeout: retrying each record would only wait that long again, per record.
      if (batch.length === 1 || /database is locked|SQLITE_BUSY/i.test(errorMessage(error))) {
        for (const queued of batch) queued.reject(failure());
        return;
      }
      // Find the record at fault: each on its own, so the others still commit.
      for (const queued of batch) settle([queued]);
      return;
    }
    batch.forEach((queued, i) => {
      const entry = entries[i]!;
      notify(entry);
      if (queued.durable && ctx.synchronous === 'full' && !flushInCommit) durably(entry).then(queued.resolve, queued.reject);
      else queued.resolve(entry);
    });
  }

  function close(closeDatabase: () => void): void {
    flush();
    try {
      closeDatabase();
    } catch (error) {
      groupSync.end(new AirlockError('internal', `could not close the audit log ${file}: ${errorMessage(error)}`, { cause: error }));
      throw error;
    }
    groupSync.end();
  }

  function notify(entry: AuditEntry): void {
    if (!hooks.onRecord) return;
    try {
      hooks.onRecord(entry);
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

  function recordToolCall(input: ToolCallInput): Promise<ToolCallEntry> {
    // A tool call that ran code (an execute, with or without a run id — it may have failed before reporting one) may have
    // reached an API: its answer waits for the disk, and carries the run's earlier records with it. One that ran none does not.
    const durable = input.tool === 'execute' || optionalString(input.runId) !== undefined;
    return append<ToolCallEntry>((seq, recordedAt) => {
      const raw = inputText(input.input);
      const redacted = capUtf8(redact(raw), INPUT_CAP_BYTES);
      const credentialFingerprint = fingerprint(optionalString(input.credentialFingerprint));
      return {
        kind: 'tool',
        seq,
        time: isoTime(input.time) ?? recordedAt,
        recordedAt,
        // The run's own outcome, as its log line says: a call the gate did not let through carries its own (issue 39 §9).
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
        engine: optionalString(input.engine),
        runId: optionalString(input.runId),
      };
    }, durable);
  }

  function recordApiCall(record: ApiCallRecord): Promise<ApiCallEntry> {
    // A call that may have changed something waits for the disk; a read's record rides on the run's own tool record,
    // whose flush comes before the client hears back.
    // So does a tool call of another MCP server recorded as a read (its tool says it only reads, and ran unasked), and
    // a client's direct call of one: its run is that one call, whose tool record always waits for the disk.
    // Read as any record is (a caller that still says TOOL in the method hands in a tool call).
    const toolCall = callKindOf(record) === 'tool-call';
    const method = toolCall ? undefined : String(record.method ?? '');
    // A direct call's record is flushed by its tool record's flush, which comes before the client hears back.
    const durable = !record.flushedWithRun && (record.decision !== 'read' || !(toolCall || READS.has(String(method).toUpperCase())));
    return append<ApiCallEntry>(
      (seq, recordedAt) => ({
        kind: 'api',
        seq,
        time: isoTime(record.startedAt) ?? recordedAt,
        recordedAt,
        outcome: apiOutcome(record),
        runId: String(record.runId ?? ''),
        callerKey: String(record.callerKey ?? ''),
        clientName: optionalString(record.clientName),
        profile: optionalString(record.profile),
        operationId: String(record.operationId ?? ''),
        callKind: toolCall ? 'tool-call' : 'api-call',
        method,
        server: toolCall ? optionalString(record.server) : undefined,
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
              id: optionalString(record.approval.id),
            }
          : undefined,
        heldBy: typeof record.heldBy === 'number' && Number.isInteger(record.heldBy) ? record.heldBy : undefined,
        error: optionalString(record.error),
        startedAt: String(record.startedAt ?? ''),
        arguments: optionalString(record.arguments),
      }),
      durable,
    );
  }

  return { appendInTransaction, notify, recordToolCall, recordApiCall, close };
}
