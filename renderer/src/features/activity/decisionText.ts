// The gate's decision on one API call, and who made it, in the words the
// Activity screen shows: "approved by alice via web UI (once)", "allowed by
// grant g_12 (always)", "held for a person's answer", "interrupted: …".
import type { AuditRecord } from '../../../../contract/audit.ts';

type ApiRecord = Extract<AuditRecord, { kind: 'api' }>;

export function decisionText(r: ApiRecord): string {
  const a = r.approval;
  // A held call's record is written when it is held; its outcome is a later record under the same approval id.
  if (r.decision === 'pending') return "held for a person's answer (its outcome is recorded when it comes)";
  if (r.decision === 'interrupted') return a?.reason ? `interrupted: ${a.reason}` : 'interrupted before anyone answered';
  if (!a)
    return r.decision === 'read'
      ? 'read (no approval needed)'
      : r.decision === 'evidence'
        ? 'read by Airlock for the prompt (the run never saw it)'
        : r.decision;
  if (r.decision === 'approved' || r.decision === 'allowed') {
    return `${r.decision} by ${a.by}${a.scope ? ` (${a.scope})` : ''}${a.grantId && !a.by.includes(a.grantId) ? `, grant ${a.grantId}` : ''}`;
  }
  const reason = a.reason && a.reason !== `denied by ${a.by}` ? `: ${a.reason}` : '';
  return `${r.decision} by ${a.by}${reason}`;
}

/**
 * A run's API calls as rows: a held call's pending record folds into the record of its outcome (same approval id),
 * so each call is one row; `seqs` are the records a row stands for (to mark it when either is selected).
 */
export function callRows(calls: ApiRecord[]): { call: ApiRecord; seqs: number[] }[] {
  const outcomeOf = new Map<string, ApiRecord>();
  for (const c of calls) if (c.decision !== 'pending' && c.approval?.id) outcomeOf.set(c.approval.id, c);
  const heldSeqs = new Map<number, number[]>();
  const rows: { call: ApiRecord; seqs: number[] }[] = [];
  for (const c of calls) {
    const settled = c.decision === 'pending' && c.approval?.id ? outcomeOf.get(c.approval.id) : undefined;
    if (settled) heldSeqs.set(settled.seq, [...(heldSeqs.get(settled.seq) ?? []), c.seq]);
    else rows.push({ call: c, seqs: [c.seq] });
  }
  return rows.map((r) => ({ call: r.call, seqs: [...(heldSeqs.get(r.call.seq) ?? []), ...r.seqs] }));
}
