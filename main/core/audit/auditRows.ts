// The rows of the audit database: the chain head, the columns derived from a
// record's body that queries filter on, and the body types the store writes.
import { type AuditEntry } from './types.ts';

export interface ChainRow {
  head_seq: number;
  head_hash: string;
  anchor_seq: number;
  anchor_hash: string;
  pruned_total: number;
}

/** The columns derived from a record's body (what queries filter on). */
export interface IndexColumns {
  kind: string;
  at_ms: number;
  run_id: string | null;
  client_name: string | null;
  tool: string | null;
  outcome: string;
  search: string;
}

export const INDEX_COLUMNS: readonly (keyof IndexColumns)[] = ['kind', 'at_ms', 'run_id', 'client_name', 'tool', 'outcome', 'search'];

export interface RunTool {
  client_name: string | null;
  tool: string | null;
}

export type RunToolLookup = (runId: string | null) => RunTool | undefined;

export interface RecordRow extends IndexColumns {
  seq: number;
  body: string;
  prev_hash: string;
  hash: string;
}

export type EntryBody = AuditEntry extends infer E ? (E extends AuditEntry ? Omit<E, 'prevHash' | 'hash'> : never) : never;

/** Fields the store itself sets; the redactor never needs to see them. */
export const STORE_FIELDS = new Set(['kind', 'seq', 'time', 'recordedAt', 'inputSha256', 'anchorHash', 'cutoff']);
