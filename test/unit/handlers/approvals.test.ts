// The approval queue's methods, built from the broker only (the real
// ApprovalBroker with an in-memory GrantStore): decide answers the waiting
// call with the scope or reason given and names who decided; deny all answers
// every waiting call; grants are listed and revoked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { GrantStore } from '../../../main/core/approvals/grantStore.ts';
import type { ApiCallApprovalRequest } from '../../../main/core/approvals/types.ts';
import type { ApprovalDecision } from '../../../contract/approvals.ts';
import { createApprovalHandlers, type ApprovalHandlerServices } from '../../../main/core/runtime/approvalHandlers.ts';
import { airlockError, CALLER, invoke, mutationRequest as request } from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };

function setup() {
  const broker = new ApprovalBroker({ timeoutMs: 600_000, approversAvailable: () => true, noApproverMessage: 'no one to ask', grants: new GrantStore() });
  const services: ApprovalHandlerServices = { broker };
  return { broker, handlers: createApprovalHandlers(services) };
}

/** A call that waits for a person: its answer, and the id the queue shows for it. */
function hold(broker: ApprovalBroker, overrides: Partial<ApiCallApprovalRequest> = {}): { answer: Promise<ApprovalDecision>; id: string } {
  const answer = broker.request(request(overrides));
  const pending = broker
    .list()
    .find((p) => p.request.runId === (overrides.runId ?? 'run-1') && p.request.operationId === (overrides.operationId ?? 'orders.create'));
  assert.ok(pending, 'the call waits in the queue');
  return { answer, id: pending.id };
}

test('approvals.list shows each waiting call with what a person needs to decide', T, async () => {
  const s = setup();
  const held = hold(s.broker);
  const list = await invoke(s.handlers, 'approvals.list', {});
  assert.equal(list.length, 1);
  assert.equal(list[0]!.id, held.id);
  assert.equal(list[0]!.request.operationId, 'orders.create');
  assert.equal(list[0]!.request.caller.clientName, 'claude-code');
  assert.ok(list[0]!.secondsLeft > 0);
  s.broker.denyAll(undefined, 'test');
});

test('approving with a scope lets the call through and leaves a grant that names who gave it', T, async () => {
  const s = setup();
  const held = hold(s.broker);
  const decision = await invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'approve', scope: 'always' });
  assert.equal(decision.approved, true);
  assert.equal(decision.approved && decision.scope, 'always');
  assert.equal(decision.by, CALLER.by);
  const answer = await held.answer;
  assert.equal(answer.approved && answer.scope, 'always');
  const grants = await invoke(s.handlers, 'grants.list', {});
  assert.equal(grants.length, 1);
  assert.equal(decision.approved && decision.grantId, grants[0]!.id);
  assert.equal(grants[0]!.grantedBy, CALLER.by);
  assert.equal(grants[0]!.operationId, 'orders.create');
  assert.deepEqual(await invoke(s.handlers, 'approvals.list', {}), []);
});

test('approving without a scope approves this call once, and leaves no grant', T, async () => {
  const s = setup();
  const held = hold(s.broker);
  const decision = await invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'approve' });
  assert.equal(decision.approved && decision.scope, 'once');
  assert.equal((await held.answer).approved, true);
  assert.deepEqual(await invoke(s.handlers, 'grants.list', {}), []);
  // The next call of the same operation waits again.
  const again = hold(s.broker, { runId: 'run-2' });
  assert.equal((await invoke(s.handlers, 'approvals.list', {})).length, 1);
  s.broker.decide(again.id, { approve: false }, 'test');
});

test('denying passes the reason to the waiting call; without one, the denial names who denied', T, async () => {
  const s = setup();
  const first = hold(s.broker);
  const decision = await invoke(
    s.handlers,
    'approvals.decide',
    { id: first.id, decision: 'deny', reason: 'wrong SKU' },
    { by: 'dave via CLI', channel: 'http' },
  );
  assert.deepEqual({ ...decision, at: undefined }, { approved: false, by: 'dave via CLI', reason: 'wrong SKU', code: 'denied', at: undefined });
  const answer = await first.answer;
  assert.equal(!answer.approved && answer.reason, 'wrong SKU');

  const second = hold(s.broker, { runId: 'run-2' });
  const plain = await invoke(s.handlers, 'approvals.decide', { id: second.id, decision: 'deny' });
  assert.equal(!plain.approved && plain.reason, `denied by ${CALLER.by}`);
  assert.deepEqual(await invoke(s.handlers, 'grants.list', {}), [], 'a denial leaves no grant');
});

test('a second answer is a conflict saying what happened; an unknown id is not found', T, async () => {
  const s = setup();
  const held = hold(s.broker);
  await invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'approve' });
  await assert.rejects(
    invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'deny' }),
    airlockError('conflict', /already approved by alice via test/),
  );
  await assert.rejects(invoke(s.handlers, 'approvals.decide', { id: 'apr_000000000000', decision: 'approve' }), airlockError('not_found'));
});

test('a scope the prompt does not offer is refused and the call keeps waiting', T, async () => {
  const s = setup();
  const held = hold(s.broker, { reason: 'destructive', operationId: 'orders.delete', method: 'DELETE', pathTemplate: '/orders/{id}' });
  await assert.rejects(invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'approve', scope: 'always' }), airlockError('usage', /not offered/));
  assert.equal((await invoke(s.handlers, 'approvals.list', {})).length, 1);
  assert.deepEqual(await invoke(s.handlers, 'grants.list', {}), []);
  s.broker.denyAll(undefined, 'test');
});

test('approvals.denyAll answers every waiting call with the reason and counts them', T, async () => {
  const s = setup();
  const calls = [hold(s.broker), hold(s.broker, { runId: 'run-2' }), hold(s.broker, { runId: 'run-3', operationId: 'orders.update' })];
  assert.deepEqual(await invoke(s.handlers, 'approvals.denyAll', { reason: 'closing for the night' }), { denied: 3 });
  for (const c of calls) {
    const answer = await c.answer;
    assert.equal(answer.approved, false);
    assert.equal(!answer.approved && answer.reason, 'closing for the night');
    assert.equal(answer.by, CALLER.by);
  }
  assert.deepEqual(await invoke(s.handlers, 'approvals.list', {}), []);
  assert.deepEqual(await invoke(s.handlers, 'approvals.denyAll', {}), { denied: 0 });
});

test('grants.revoke removes one grant (then finds nothing); grants.revokeAll removes the rest and counts them', T, async () => {
  const s = setup();
  for (const [runId, operationId] of [
    ['run-1', 'orders.create'],
    ['run-2', 'orders.update'],
    ['run-3', 'orders.archive'],
  ] as const) {
    const held = hold(s.broker, { runId, operationId });
    await invoke(s.handlers, 'approvals.decide', { id: held.id, decision: 'approve', scope: 'everyone-session' });
  }
  const grants = await invoke(s.handlers, 'grants.list', {});
  assert.equal(grants.length, 3);
  assert.deepEqual(await invoke(s.handlers, 'grants.revoke', { id: grants[0]!.id }), { revoked: true });
  assert.deepEqual(await invoke(s.handlers, 'grants.revoke', { id: grants[0]!.id }), { revoked: false });
  assert.deepEqual(
    (await invoke(s.handlers, 'grants.list', {})).map((g) => g.id),
    grants.slice(1).map((g) => g.id),
  );
  // A revoked grant no longer lets the call through: it waits for a person again.
  const again = hold(s.broker, { runId: 'run-9', operationId: grants[0]!.operationId });
  s.broker.decide(again.id, { approve: false }, 'test');
  assert.deepEqual(await invoke(s.handlers, 'grants.revokeAll', {}), { revoked: 2 });
  assert.deepEqual(await invoke(s.handlers, 'grants.list', {}), []);
  assert.deepEqual(await invoke(s.handlers, 'grants.revokeAll', {}), { revoked: 0 });
});
