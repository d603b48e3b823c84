// Pruning a prefix of the audit chain: check what goes before it goes (a
// damaged stretch is never laundered away), re-file the API calls whose run's
// tool record goes, delete, move the anchor, and record the prune itself.
import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../util/errors.ts';
import type { AuditEntry, PruneEntry, PruneResult } from './types.ts';
import type { ChainRow, EntryBody, RecordRow } from './auditRows.ts';
import { walkChain } from './auditWalk.ts';

/** Runs inside the caller's write transaction; `append` adds the prune record to the chain. */
export function pruneInTransaction(
  db: DatabaseSync,
  chain: ChainRow,
  when: { days: number; at: Date; cutoffMs: number },
  append: (make: (seq: number, recordedAt: string) => EntryBody) => AuditEntry,
): PruneResult {
  const { days, at, cutoffMs } = when;
  const firstKept = (db.prepare('SELECT MIN(seq) AS seq FROM records WHERE at_ms >= ?').get(cutoffMs) as { seq: number | null }).seq;
  const throughSeq = firstKept === null ? chain.head_seq : firstKept - 1;
  if (throughSeq <= chain.anchor_seq) return { pruned: 0, throughSeq: chain.anchor_seq };
  // Removing a damaged stretch would launder it: check what goes before it goes.
  const rows = db
    .prepare('SELECT seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash FROM records WHERE seq <= ? ORDER BY seq')
    .iterate(throughSeq) as Iterable<RecordRow>;
  const walk = walkChain(rows, chain.anchor_seq, chain.anchor_hash);
  if (walk.bad || walk.nextSeq !== throughSeq + 1) {
    const where = walk.bad ?? { seq: walk.nextSeq, reason: `record ${walk.nextSeq} is missing` };
    throw new AirlockError('internal', `refusing to prune: the audit chain is broken at seq ${where.seq} (${where.reason})`, {
      hint: 'run the audit verification and keep a copy of the file before pruning',
    });
  }
  // API calls kept whose run's tool record goes: they follow the run's next tool record, if any, or none.
  const kept = `(SELECT json_extract(t.body, '$.%') FROM records t WHERE t.kind = 'tool' AND t.run_id = records.run_id AND t.seq > ?1 ORDER BY t.seq LIMIT 1)`;
  db.prepare(
    `UPDATE records SET client_name = ${kept.replace('%', 'clientName')}, tool = ${kept.replace('%', 'tool')}
     WHERE kind = 'api' AND seq > ?1 AND run_id IN (SELECT run_id FROM records WHERE kind = 'tool' AND seq <= ?1 AND run_id IS NOT NULL)`,
  ).run(throughSeq);
  db.prepare('DELETE FROM records WHERE seq <= ?').run(throughSeq);
  const pruned = throughSeq - chain.anchor_seq;
  db.prepare('UPDATE chain SET anchor_seq = ?, anchor_hash = ?, pruned_total = pruned_total + ? WHERE id = 1').run(throughSeq, walk.lastHash, pruned);
  const record = append((seq, recordedAt) => ({
    kind: 'prune',
    seq,
    time: at.toISOString(),
    recordedAt,
    outcome: 'ok',
    olderThanDays: days,
    cutoff: new Date(cutoffMs).toISOString(),
    pruned,
    throughSeq,
    anchorHash: walk.lastHash,
  })) as PruneEntry;
  return { pruned, throughSeq, record };
}
