// What a record holds, worked out from what the caller gave: index columns,
// capped and redacted inputs, outcomes, and rows back to entries.
import { AirlockError } from '../util/errors.ts';
import type { ApiCallRecord } from './types.ts';
import { type AuditEntry } from './types.ts';
import { type IndexColumns, type RunToolLookup, type EntryBody } from './auditRows.ts';

/**
 * The indexed columns a record's body implies. An API call is filed under the
 * client and tool of its run (the run's first tool record, written after it),
 * so filtering by client or tool finds the API calls too, through an index.
 */
export function indexColumns(body: Record<string, unknown>, runTool: RunToolLookup): IndexColumns {
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const runId = str(body.runId);
  // An API call written before its run's tool record names its client itself, until the tool record lends the run's.
  const owner =
    body.kind === 'tool'
      ? { client_name: str(body.clientName), tool: str(body.tool) }
      : body.kind === 'api'
        ? (runTool(runId) ?? (str(body.clientName) ? { client_name: str(body.clientName), tool: null } : undefined))
        : undefined;
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

export function toEntry(row: { seq: number; body: string; prev_hash: string; hash: string }): AuditEntry {
  try {
    return { ...(JSON.parse(row.body) as EntryBody), prevHash: row.prev_hash, hash: row.hash } as AuditEntry;
  } catch {
    throw new AirlockError('internal', `audit record ${row.seq} is unreadable`, { hint: 'run the audit verification to see what happened to the file' });
  }
}

export function apiOutcome(r: ApiCallRecord): string {
  if (r.decision === 'denied' || r.decision === 'refused' || r.decision === 'pending' || r.decision === 'interrupted') return r.decision;
  if (r.status >= 400) return 'http_error';
  if (r.error || !(r.status > 0)) return 'error';
  return 'ok';
}

export function inputText(input: unknown): string {
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

export function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

export function nonEmpty(value: unknown, fallback: string): string {
  const s = optionalString(value);
  return s === undefined || s === '' ? fallback : s;
}

export function count(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

export function milliseconds(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n * 1000) / 1000 : 0;
}

export function redactStrings(value: unknown, redact: (text: string) => string, skip?: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = skip?.has(k) ? v : redactStrings(v, redact);
    return out;
  }
  return value;
}
