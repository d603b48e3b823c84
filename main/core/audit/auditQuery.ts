// Reading the audit log: pages of records by filter and cursor, counts, one
// record by seq, a run's API calls, and an API's last call; statements are
// prepared once per SQL.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApiCallEntry, AuditEntry, AuditFilter, AuditPage, AuditQuery } from './types.ts';
import type { RecordRow } from './auditRows.ts';
import { whereClause, whereSql, pageLimit, seqNumber, usage } from './auditWhere.ts';
import { toEntry } from './auditFields.ts';

export interface AuditQueries {
  /** Newest first by default; throws a usage AirlockError for a bad filter or limit. */
  query(query?: AuditQuery): AuditPage;
  count(filter?: AuditFilter): number;
  get(seq: number): AuditEntry | undefined;
  /** The API calls a run made, oldest first. */
  apiCallsForRun(runId: string): ApiCallEntry[];
  /** When the last API call through this profile was recorded (ms since the epoch); undefined when none is kept. */
  lastApiCallMs(profile: string): number | undefined;
}

export function createAuditQueries(db: DatabaseSync): AuditQueries {
  const selectOne = db.prepare('SELECT seq, body, prev_hash, hash FROM records WHERE seq = ?');
  const selectRun = db.prepare("SELECT seq, body, prev_hash, hash FROM records WHERE kind = 'api' AND run_id = ? ORDER BY seq");
  // The records_api_profile index answers it in one lookup, whatever the log's size.
  const selectLastCall = db.prepare("SELECT MAX(at_ms) AS at_ms FROM records WHERE kind = 'api' AND json_extract(body, '$.profile') = ?");
  const statements = new Map<string, StatementSync>();
  const prepared = (sql: string): StatementSync => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };

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

  function lastApiCallMs(profile: string): number | undefined {
    return (selectLastCall.get(profile) as { at_ms: number | null } | undefined)?.at_ms ?? undefined;
  }

  return { query, count: countRecords, get, apiCallsForRun, lastApiCallMs };
}
