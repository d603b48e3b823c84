// The order Activity lists records in: newest first, except that an API or
// MCP tool call sits under its run (the execute that made it), oldest call
// first, whatever their sequence numbers. A call is often recorded after
// its run's own record — a held call decided once the run had answered the
// client — and would otherwise sit above its run, inside another run's group
// (issue 39 §9). A call whose run is not among the loaded records stays
// where its number puts it. Also what a run's row says of its calls.
import type { AuditRecord } from '../../../../contract/audit.ts';

/** The records (newest first) with each call moved under its run's record. */
export function groupByRun(records: readonly AuditRecord[]): AuditRecord[] {
  const runs = new Set<string>();
  for (const r of records) if (r.kind === 'tool' && r.runId) runs.add(r.runId);
  const callsOf = new Map<string, AuditRecord[]>();
  for (const r of records) {
    if (r.kind !== 'api' || !runs.has(r.runId)) continue;
    const list = callsOf.get(r.runId) ?? [];
    list.push(r);
    callsOf.set(r.runId, list);
  }
  const out: AuditRecord[] = [];
  for (const r of records) {
    if (r.kind === 'api' && runs.has(r.runId)) continue;
    out.push(r);
    if (r.kind !== 'tool' || !r.runId) continue;
    out.push(...(callsOf.get(r.runId) ?? []).sort((a, b) => a.seq - b.seq));
    callsOf.delete(r.runId); // taken once: a second record of the same run would take none
  }
  return out;
}

/** "1 call denied", "2 calls denied, 1 refused": what the gate did not let through among a run's loaded calls ('' when it let all through). */
export function stoppedCalls(records: readonly AuditRecord[], runId: string | undefined): string {
  if (!runId) return '';
  let denied = 0;
  let refused = 0;
  for (const r of records) {
    if (r.kind !== 'api' || r.runId !== runId) continue;
    if (r.decision === 'denied') denied++;
    else if (r.decision === 'refused') refused++;
  }
  const calls = (n: number) => `${n} ${n === 1 ? 'call' : 'calls'}`;
  if (denied > 0) return `${calls(denied)} denied${refused > 0 ? `, ${refused} refused` : ''}`;
  return refused > 0 ? `${calls(refused)} refused` : '';
}
