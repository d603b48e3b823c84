// Calls held for a person, in the audit from the moment they are held (issue
// 36 §14): a `pending` record when a request enters the approval queue, its
// outcome (approved, denied, timed out, withdrawn) a later record with the
// same approval id. A pending record whose companion is gone — killed, or
// crashed, before anyone answered — gets an `interrupted` record at the next
// start, so the log never shows a call as waiting forever, nor loses one.
import type { PendingApproval } from '../../../contract/approvals.ts';
import type { ApiCallEntry, ApiCallRecord } from './types.ts';

/**
 * The pending record of a call put to a person: who asked for what, held by this process. A server switch has none:
 * it is no call through the gate, and the toggle_mcp_server call that asked for it is recorded with what came of it;
 * nor has a server's question (the tool call it came with is recorded, and the log says how it was answered).
 */
export function heldRecord(held: Pick<PendingApproval, 'id' | 'request' | 'createdAt'>, pid: number = process.pid): ApiCallRecord | undefined {
  const r = held.request;
  if (r.kind === 'server-switch' || r.kind === 'server-question') return undefined;
  return {
    runId: r.runId,
    callerKey: r.caller.key,
    ...(r.caller.clientName ? { clientName: r.caller.clientName } : {}),
    profile: r.profile,
    operationId: r.operationId,
    callKind: r.kind,
    ...(r.kind === 'api-call' ? { method: r.method, url: r.url } : { server: r.server, url: r.address }),
    status: 0,
    durationMs: 0,
    bytes: 0,
    decision: 'pending',
    approval: { by: 'waiting for a person', at: held.createdAt, id: held.id },
    heldBy: pid,
    startedAt: held.createdAt,
    ...(r.kind === 'tool-call' ? { arguments: r.arguments } : {}),
  };
}

/** What settling needs of the audit: the pending records, a run's records, and writing one. */
export interface HeldAudit {
  query(q: { kind: 'api'; outcome: 'pending'; order: 'oldest'; after?: number; limit: number }): { records: unknown[]; next?: number };
  apiCallsForRun(runId: string): ApiCallEntry[];
  recordApiCall(record: ApiCallRecord): Promise<unknown>;
}

/**
 * Records `interrupted` for every pending call with no outcome whose holder is gone; returns how many. Run by a
 * companion as it starts (it holds the data dir's lock: no other companion's calls are live).
 */
export async function settleInterrupted(audit: HeldAudit, options: { alive(pid: number): boolean; now?: () => Date }): Promise<number> {
  const now = options.now ?? (() => new Date());
  let settled = 0;
  let after: number | undefined;
  do {
    // Through the indexed outcome column (a held call's outcome is `pending`): a start never reads the whole log.
    const page = audit.query({ kind: 'api', outcome: 'pending', order: 'oldest', limit: 500, ...(after !== undefined ? { after } : {}) });
    for (const record of page.records as ApiCallEntry[]) {
      const id = record.approval?.id;
      if (!id || (record.heldBy !== undefined && options.alive(record.heldBy))) continue;
      const answered = audit.apiCallsForRun(record.runId).some((r) => r.seq > record.seq && r.decision !== 'pending' && r.approval?.id === id);
      if (answered) continue;
      const {
        seq: _seq,
        time: _time,
        recordedAt: _recordedAt,
        outcome: _outcome,
        prevHash: _prev,
        hash: _hash,
        kind: _kind,
        heldBy: _heldBy,
        ...call
      } = record;
      await audit.recordApiCall({
        ...call,
        decision: 'interrupted',
        approval: {
          by: 'airlock',
          at: now().toISOString(),
          id,
          reason: `the companion holding it (pid ${record.heldBy ?? '?'}) ended before anyone answered; nothing was sent`,
        },
      });
      settled++;
    }
    after = page.next;
  } while (after !== undefined);
  return settled;
}
