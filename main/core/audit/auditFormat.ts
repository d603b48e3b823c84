// Export formats for audit entries. JSONL is the faithful one: one entry per
// line, exactly the fields the chain hashed plus prevHash and hash, so an
// export can be re-verified outside Airlock (see chain.ts). CSV is for
// spreadsheets: a fixed header, RFC 4180 quoting (fields holding a comma,
// quote, CR or LF are quoted, quotes doubled, CRLF line ends), and text cells
// that a spreadsheet would run as a formula (= + - @, tab, CR first) get a
// leading apostrophe, since inputs and errors are written by a model.
import type { AuditEntry } from './types.ts';

export function jsonlLine(entry: AuditEntry): string {
  return JSON.stringify(entry) + '\n';
}

type Column = [header: string, get: (e: AuditEntry) => unknown];

const field =
  (name: string) =>
  (e: AuditEntry): unknown =>
    (e as unknown as Record<string, unknown>)[name];

const approval =
  (name: 'by' | 'at' | 'scope' | 'reason') =>
  (e: AuditEntry): unknown =>
    e.kind === 'api' ? e.approval?.[name] : undefined;

const plain = [
  'seq',
  'kind',
  'time',
  'recordedAt',
  'outcome',
  'clientName',
  'clientVersion',
  'transport',
  'sessionId',
  'profile',
  'tool',
  'engine',
  'runId',
  'durationMs',
  'input',
  'inputSha256',
  'inputBytes',
  'inputTruncated',
  'bytesOut',
  'credentialFingerprint',
  'callerKey',
  'operationId',
  'callKind',
  'server',
  'method',
  'url',
  'status',
  'bytes',
  'decision',
];

export const CSV_COLUMNS: readonly Column[] = [
  ...plain.map((name): Column => [name, field(name)]),
  ['approvalBy', approval('by')],
  ['approvalAt', approval('at')],
  ['approvalScope', approval('scope')],
  ['approvalReason', approval('reason')],
  ...['error', 'olderThanDays', 'cutoff', 'pruned', 'throughSeq', 'anchorHash', 'prevHash', 'hash'].map((name): Column => [name, field(name)]),
];

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown, formulaGuard = true): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (formulaGuard && typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return CSV_COLUMNS.map(([h]) => h).join(',') + '\r\n';
}

export function csvRow(entry: AuditEntry, formulaGuard = true): string {
  return CSV_COLUMNS.map(([, get]) => csvCell(get(entry), formulaGuard)).join(',') + '\r\n';
}
