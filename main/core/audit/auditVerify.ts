// Verifying the audit chain: every record's hash and link from the anchor to
// the head, the head and anchor themselves, a head witnessed earlier, and the
// indexed columns against the bodies they come from.
import type { DatabaseSync } from 'node:sqlite';
import type { VerifyResult } from './types.ts';
import type { ChainRow, RecordRow } from './auditRows.ts';
import { walkChain } from './auditWalk.ts';

/** Runs inside the caller's read transaction, so the chain row and the records are one snapshot. */
export function verifyChain(
  db: DatabaseSync,
  chain: ChainRow,
  known: { seq: number; hash: string } | undefined,
  misfiledRow: () => { seq: number; column: string } | undefined,
): VerifyResult {
  const rows = db
    .prepare('SELECT seq, kind, at_ms, run_id, client_name, tool, outcome, search, body, prev_hash, hash FROM records ORDER BY seq')
    .iterate() as Iterable<RecordRow>;
  let anchorAccounted = chain.anchor_seq === 0;
  const walk = walkChain(rows, chain.anchor_seq, chain.anchor_hash, (row, body) => {
    if (row.seq > chain.head_seq) return `record ${row.seq} is beyond the chain head (seq ${chain.head_seq}): it was added outside Airlock`;
    if (known && row.seq === known.seq && row.hash !== known.hash)
      return `record ${row.seq} is not the one witnessed earlier (hash ${known.hash.slice(0, 16)}…)`;
    if (body.kind === 'prune' && body.throughSeq === chain.anchor_seq && body.anchorHash === chain.anchor_hash) anchorAccounted = true;
    return undefined;
  });
  const bad = (seq: number, reason: string): VerifyResult => ({ ok: false, records: walk.checked, firstBad: { seq, reason } });
  if (walk.bad) return bad(walk.bad.seq, walk.bad.reason);
  if (walk.nextSeq <= chain.head_seq) {
    const range = walk.nextSeq === chain.head_seq ? `record ${walk.nextSeq} is` : `records ${walk.nextSeq}–${chain.head_seq} are`;
    return bad(walk.nextSeq, `${range} missing: the chain head says seq ${chain.head_seq} (the tail was truncated)`);
  }
  if (walk.lastHash !== chain.head_hash) return bad(chain.head_seq, `record ${chain.head_seq}'s hash differs from the chain head`);
  if (!anchorAccounted)
    return bad(chain.anchor_seq + 1, `the chain starts after seq ${chain.anchor_seq} but no prune record accounts for it (records were deleted)`);
  if (known && known.seq > chain.head_seq)
    return bad(chain.head_seq + 1, `the chain ends at seq ${chain.head_seq}, before the head witnessed earlier (seq ${known.seq})`);
  if (known && known.seq === chain.anchor_seq && known.hash !== chain.anchor_hash)
    return bad(known.seq, `the anchor is not the head witnessed earlier at seq ${known.seq}`);
  // The chain is sound, so tool rows' columns are their bodies': each API call must be filed under its run's first tool record.
  const misfiled = misfiledRow();
  if (misfiled) {
    return {
      ok: false,
      records: misfiled.seq - chain.anchor_seq - 1,
      firstBad: {
        seq: misfiled.seq,
        reason: `record ${misfiled.seq}'s indexed column ${misfiled.column} disagrees with its run's tool record (edited outside Airlock)`,
      },
    };
  }
  return { ok: true, records: walk.checked };
}
