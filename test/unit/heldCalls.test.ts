// Calls held for a person in the audit (issue 36 §14), at the unit level: a
// pending record left by a companion that is gone is settled as interrupted
// once, under the same approval id; one whose holder is alive, or that was
// answered, is left alone; Activity words both states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditStore } from '../../main/core/audit/auditStore.ts';
import { heldRecord, settleInterrupted } from '../../main/core/audit/heldCalls.ts';
import type { PendingApproval } from '../../contract/approvals.ts';
import type { AuditRecord } from '../../contract/audit.ts';
import { callRows, decisionText } from '../../renderer/src/features/activity/decisionText.ts';
import { withAuditStore } from '../helpers/auditStores.ts';

type ApiRecord = Extract<AuditRecord, { kind: 'api' }>;
const T0 = Date.parse('2030-06-01T12:00:00Z');

function held(id: string, runId: string): Pick<PendingApproval, 'id' | 'request' | 'createdAt'> {
  return {
    id,
    createdAt: new Date(T0).toISOString(),
    request: {
      runId,
      caller: { key: 'http:abc', clientName: 'claude-code' },
      profile: 'demo',
      operationId: 'events.delete',
      method: 'DELETE',
      url: 'https://api.test/events/1',
    } as PendingApproval['request'],
  };
}

const withStore = (run: (store: AuditStore) => Promise<void>) => withAuditStore(T0, run);

const byApproval = (store: AuditStore, id: string) =>
  (store.query({ kind: 'api', order: 'oldest', limit: 100 }).records as ApiRecord[]).filter((r) => r.approval?.id === id);

test(
  'a pending call whose companion is gone is settled as interrupted, once; one held by a live companion or already answered is left alone',
  withStore(async (store) => {
    const DEAD = 4_000_001;
    const LIVE = 4_000_002;
    await store.recordApiCall(heldRecord(held('a_dead', 'run-1'), DEAD)!);
    await store.recordApiCall(heldRecord(held('a_live', 'run-2'), LIVE)!);
    await store.recordApiCall(heldRecord(held('a_answered', 'run-3'), DEAD)!);
    const answered = heldRecord(held('a_answered', 'run-3'), DEAD)!;
    await store.recordApiCall({
      ...answered,
      heldBy: undefined,
      decision: 'denied',
      approval: { by: 'alice', at: new Date(T0).toISOString(), id: 'a_answered' },
    });

    const alive = (pid: number) => pid === LIVE;
    assert.equal(await settleInterrupted(store, { alive }), 1);
    const dead = byApproval(store, 'a_dead');
    assert.deepEqual(
      dead.map((r) => [r.decision, r.outcome]),
      [
        ['pending', 'pending'],
        ['interrupted', 'interrupted'],
      ],
    );
    assert.equal(dead[1]!.runId, 'run-1');
    assert.equal(dead[1]!.operationId, 'events.delete');
    assert.equal(dead[1]!.heldBy, undefined, 'the settled record is held by no one');
    assert.match(dead[1]!.approval!.reason!, new RegExp(`pid ${DEAD}\\) ended before anyone answered; nothing was sent`));
    assert.deepEqual(
      byApproval(store, 'a_live').map((r) => r.decision),
      ['pending'],
    );
    assert.deepEqual(
      byApproval(store, 'a_answered').map((r) => r.decision),
      ['pending', 'denied'],
    );

    // Settling again records nothing more; once the live holder is gone too, its call is settled.
    assert.equal(await settleInterrupted(store, { alive }), 0);
    assert.equal(await settleInterrupted(store, { alive: () => false }), 1);
    assert.deepEqual(
      byApproval(store, 'a_live').map((r) => r.decision),
      ['pending', 'interrupted'],
    );
    assert.equal(store.verify().ok, true);
  }),
);

test('Activity says a pending call is held for a person, and why an interrupted one was not sent', () => {
  const base = heldRecord(held('a_1', 'run-1'), 1)! as unknown as ApiRecord;
  assert.match(decisionText(base), /^held for a person's answer/);
  const reason = 'the companion holding it (pid 7) ended before anyone answered; nothing was sent';
  assert.equal(
    decisionText({ ...base, decision: 'interrupted', approval: { by: 'airlock', at: base.startedAt, id: 'a_1', reason } }),
    `interrupted: ${reason}`,
  );
  assert.equal(
    decisionText({ ...base, decision: 'approved', approval: { by: 'alice via web UI', at: base.startedAt, scope: 'once' } }),
    'approved by alice via web UI (once)',
  );
});

test("a run's calls table shows a held call once: its pending record folds into its outcome, and marks it when selected", () => {
  const at = new Date(T0).toISOString();
  const rec = (seq: number, decision: ApiRecord['decision'], id?: string) =>
    ({
      ...(heldRecord(held(id ?? 'none', 'run-1'), 1)! as unknown as ApiRecord),
      seq,
      decision,
      approval: id ? { by: 'alice', at, id } : undefined,
    }) as ApiRecord;
  const rows = callRows([rec(1, 'read'), rec(2, 'pending', 'a_1'), rec(3, 'pending', 'a_2'), rec(4, 'denied', 'a_1')]);
  assert.deepEqual(
    rows.map((r) => [r.call.seq, r.call.decision, r.seqs]),
    [
      [1, 'read', [1]],
      [3, 'pending', [3]],
      [4, 'denied', [2, 4]],
    ],
  );
});
