// The Activity export: the filtered view, oldest first, as JSON Lines (every
// field of every record, as the chain holds it) or CSV (one row per record,
// the columns a spreadsheet needs). Pages through the control API so memory
// and the progress shown grow with what has been read.
import type { AuditFilters, AuditRecord } from '../../../../contract/audit.ts';
import type { ControlApi } from '../../../../contract/controlApi.ts';
import { callKindOf, httpMethodOf } from '../../../../contract/calls.ts';

export type ExportFormat = 'jsonl' | 'csv';

export const CSV_COLUMNS = [
  'seq',
  'time',
  'kind',
  'client',
  'tool',
  'profile',
  'operation',
  'call',
  'method',
  'url',
  'status',
  'decision',
  'decidedBy',
  'outcome',
  'durationMs',
  'runId',
  'error',
] as const;

/** A CSV field: quoted when it holds a comma, quote or line break; a leading =, +, - or @ is neutralised so a spreadsheet never runs it. */
export function csvField(value: unknown): string {
  let text = value === undefined || value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(r: AuditRecord): string {
  const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    seq: r.seq,
    time: r.time,
    kind: r.kind,
    // An API call names its client and profile itself (older records: the session key it came from).
    client: r.kind === 'tool' ? r.clientName : r.kind === 'api' ? (r.clientName ?? r.callerKey) : undefined,
    tool: r.kind === 'tool' ? r.tool : undefined,
    profile: r.kind === 'prune' ? undefined : r.profile,
    operation: r.kind === 'api' ? r.operationId : undefined,
    call: r.kind === 'api' ? callKindOf(r) : undefined,
    method: r.kind === 'api' ? httpMethodOf(r) : undefined,
    url: r.kind === 'api' ? r.url : undefined,
    status: r.kind === 'api' ? r.status : undefined,
    decision: r.kind === 'api' ? r.decision : undefined,
    decidedBy: r.kind === 'api' ? r.approval?.by : undefined,
    outcome: r.outcome,
    durationMs: r.kind === 'prune' ? undefined : r.durationMs,
    runId: r.kind === 'prune' ? undefined : r.runId,
    error: r.kind === 'prune' ? undefined : r.error,
  };
  return CSV_COLUMNS.map((c) => csvField(row[c])).join(',');
}

/** Reads every record the filters match, oldest first, and returns the file's parts and the count; `onProgress` gets the count so far. */
export async function exportRecords(
  api: ControlApi,
  filters: AuditFilters,
  format: ExportFormat,
  onProgress: (records: number) => void,
  signal?: AbortSignal,
): Promise<{ parts: string[]; records: number }> {
  const parts: string[] = format === 'csv' ? [CSV_COLUMNS.join(',') + '\r\n'] : [];
  let after: number | undefined;
  let count = 0;
  for (;;) {
    if (signal?.aborted) throw new Error('export cancelled');
    const page = await api.call('audit.query', { ...filters, order: 'oldest', limit: 500, ...(after !== undefined ? { after } : {}) });
    const lines = page.records.map((r) => (format === 'csv' ? csvRow(r) + '\r\n' : JSON.stringify(r) + '\n'));
    parts.push(lines.join(''));
    count += page.records.length;
    onProgress(count);
    if (page.next === undefined) return { parts, records: count };
    after = page.next;
  }
}
