// Exporting the audit log: the records a filter matches, streamed page by page
// as JSONL or CSV (formats in auditFormat.ts), awaiting the writer between pages.
import type { AuditEntry, AuditFilter, AuditOrder, AuditPage, AuditQuery, ExportFormat } from './types.ts';
import { csvHeader, csvRow, jsonlLine } from './auditFormat.ts';
import { MAX_PAGE, usage } from './auditWhere.ts';

/** Oldest first by default; `query` is the store's paged query. */
export async function exportRecords(
  query: (q: AuditQuery) => AuditPage,
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
