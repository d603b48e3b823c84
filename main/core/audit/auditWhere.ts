// Audit queries as SQL: filters to WHERE clauses, paging and time bounds,
// and the usage errors a bad query gets.
import { type SQLInputValue } from 'node:sqlite';
import { AirlockError } from '../util/errors.ts';
import { CALL_KINDS, LEGACY_METHOD_KIND } from '../../../contract/calls.ts';
import { AUDIT_KINDS, type AuditFilter, type AuditKind } from './types.ts';

/** Tool inputs (execute code, JSON arguments) are stored up to this many UTF-8 bytes. */

export const MAX_PAGE = 500;

export const DEFAULT_PAGE = 100;

export function whereClause(f: AuditFilter): { clauses: string[]; params: SQLInputValue[] } {
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
      "((kind = 'tool' AND json_extract(body, '$.profile') = ?) OR (kind = 'api' AND (json_extract(body, '$.profile') = ? OR run_id IN (SELECT run_id FROM records WHERE kind = 'tool' AND json_extract(body, '$.profile') = ?))))",
    );
    params.push(String(f.profile), String(f.profile), String(f.profile));
  }
  // What was called, read off records of any age (before the kinds, a tool call's method said TOOL: contract/calls.ts).
  if (f.callKind !== undefined) {
    if (!(CALL_KINDS as readonly string[]).includes(String(f.callKind)))
      throw usage(`call kind must be one of ${CALL_KINDS.join(', ')}, not "${String(f.callKind)}"`);
    const legacy = Object.entries(LEGACY_METHOD_KIND);
    clauses.push(
      `(kind = 'api' AND coalesce(json_extract(body, '$.callKind'), CASE upper(json_extract(body, '$.method'))${legacy.map(() => ' WHEN ? THEN ?').join('')} ELSE 'api-call' END) = ?)`,
    );
    params.push(...legacy.flat(), String(f.callKind));
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

export function whereSql(clauses: string[]): string {
  return clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
}

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw usage(`limit must be a whole number from 1 to ${MAX_PAGE}`);
  return limit;
}

export function seqNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) throw usage(`${name} must be a record seq (a whole number)`);
  return value;
}

export function timeMs(value: string | Date, name: string): number {
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (!Number.isFinite(ms)) throw usage(`${name} is not a date: ${String(value)}`);
  return ms;
}

export function isoTime(value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

export function usage(message: string): AirlockError {
  return new AirlockError('usage', message);
}
