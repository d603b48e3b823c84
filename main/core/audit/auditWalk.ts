// Walking the hash chain record by record (verify and prune): where it
// first breaks, and why.
import { chainHash } from './chain.ts';
import { INDEX_COLUMNS, type RecordRow } from './auditRows.ts';
import { indexColumns } from './auditFields.ts';

/** Tool inputs (execute code, JSON arguments) are stored up to this many UTF-8 bytes. */

export interface Walk {
  checked: number;
  nextSeq: number;
  lastHash: string;
  bad?: { seq: number; reason: string };
}

/**
 * Walks rows in seq order from an anchor: contiguous seqs, each linking to the
 * one before, each hash matching its body, each indexed column matching the
 * body (for API calls, all but the client and tool they borrow from their
 * run). `extra` adds checks; the walk stops at the first problem.
 */
export function walkChain(
  rows: Iterable<RecordRow>,
  anchorSeq: number,
  anchorHash: string,
  extra?: (row: RecordRow, body: Record<string, unknown>) => string | undefined,
): Walk {
  const walk: Walk = { checked: 0, nextSeq: anchorSeq + 1, lastHash: anchorHash };
  for (const row of rows) {
    const seq = row.seq;
    const stop = (at: number, reason: string): Walk => ({ ...walk, bad: { seq: at, reason } });
    if (seq < walk.nextSeq) return stop(seq, `record ${seq} sits before the chain's start (seq ${walk.nextSeq}): it was put back after a prune`);
    if (seq > walk.nextSeq) {
      const range = seq - 1 === walk.nextSeq ? `record ${walk.nextSeq} is` : `records ${walk.nextSeq}–${seq - 1} are`;
      return stop(walk.nextSeq, `${range} missing (deleted from the middle of the chain)`);
    }
    if (row.prev_hash !== walk.lastHash) {
      const before = seq === anchorSeq + 1 && anchorSeq > 0 ? 'the prune anchor' : `record ${seq - 1}`;
      return stop(seq, `record ${seq} does not link to ${before} (it, or what it follows, was changed, replaced or moved)`);
    }
    if (chainHash(row.prev_hash, row.body) !== row.hash) return stop(seq, `record ${seq}'s contents do not match its hash (a field was edited)`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(row.body) as Record<string, unknown>;
    } catch {
      return stop(seq, `record ${seq}'s body is not valid JSON`);
    }
    if (body.seq !== seq) return stop(seq, `record ${seq}'s body says seq ${String(body.seq)} (renumbered)`);
    // An API call's client and tool depend on another record: verify() checks them once the whole chain is sound.
    const expected = indexColumns(body, () => undefined);
    const own = body.kind === 'api' ? INDEX_COLUMNS.filter((k) => k !== 'client_name' && k !== 'tool') : INDEX_COLUMNS;
    for (const key of own) {
      if (expected[key] !== row[key]) return stop(seq, `record ${seq}'s indexed column ${key} disagrees with its hashed contents (edited outside Airlock)`);
    }
    const problem = extra?.(row, body);
    if (problem) return stop(seq, problem);
    walk.checked++;
    walk.nextSeq = seq + 1;
    walk.lastHash = row.hash;
  }
  return walk;
}
