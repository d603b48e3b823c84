// The Rules view's methods, built from api, audit, broker, gate and sessions
// only (the real audit store on a temp file, the real broker and grant store,
// the real session registry): what the next call of each operation meets,
// grants included, with hit counts from the audit; and the Answered list —
// held calls a person (or the timeout) answered — read back from the audit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openAuditStore } from '../../../main/core/audit/auditStore.ts';
import type { ApiCallRecord } from '../../../main/core/audit/types.ts';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { GrantStore, type NewGrant } from '../../../main/core/approvals/grantStore.ts';
import { SessionRegistry } from '../../../main/core/mcp/sessionRegistry.ts';
import { RUN_GRANT_BY } from '../../../contract/approvals.ts';
import type { Profile } from '../../../main/core/profiles/profile.ts';
import { createRuleHandlers, type RuleHandlerServices } from '../../../main/core/runtime/ruleHandlers.ts';
import { tempDir } from '../../helpers/paths.ts';
import { invoke, servedApisOf, shopApi, shopProfile } from '../../helpers/handlerServices.ts';

const T = { timeout: 20_000 };
const T0 = Date.parse('2030-06-01T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

async function setup(t: { after(fn: () => void): void }, profile: Profile = shopProfile()) {
  const { dir, cleanup } = tempDir('airlock-rule-handlers-');
  const audit = openAuditStore({ file: join(dir, 'audit.sqlite'), synchronous: 'normal', now: () => new Date(T0) });
  t.after(() => {
    audit.close();
    cleanup();
  });
  const api = shopApi(profile);
  const broker = new ApprovalBroker({ timeoutMs: 600_000, approversAvailable: () => true, noApproverMessage: 'no one to ask', grants: new GrantStore() });
  const sessions = new SessionRegistry(() => new Date(T0));
  const services: RuleHandlerServices = { apis: await servedApisOf(api), audit, broker, sessions };
  const grant = (g: Partial<NewGrant> & Pick<NewGrant, 'scope' | 'operationId'>) =>
    broker.grants.add({ profile: 'shop', method: 'POST', pathTemplate: '/orders', grantedBy: 'alice via desktop', ...g });
  return { api, audit, broker, sessions, grant, handlers: createRuleHandlers(services) };
}

function apiCall(runId: string, minutes: number, overrides: Partial<ApiCallRecord> = {}): ApiCallRecord {
  return {
    runId,
    callerKey: 'http:s1',
    profile: 'shop',
    operationId: 'orders.create',
    method: 'POST',
    url: 'https://shop.example.test/v1/orders',
    status: 201,
    durationMs: 30,
    bytes: 120,
    decision: 'allowed',
    startedAt: at(minutes),
    ...overrides,
  };
}

/** A record as older versions wrote it, without the profile. */
function noProfile(record: ApiCallRecord): ApiCallRecord {
  const { profile: _profile, ...rest } = record;
  return rest;
}

test('rules.list says what the next call of each operation meets, grants of this profile included', T, async (t) => {
  const s = await setup(t, shopProfile({ operationPolicies: { 'products.list': 'deny' } }));
  const always = s.grant({ scope: 'always', operationId: 'orders.create' });
  const session = s.grant({
    scope: 'session',
    operationId: 'orders.delete',
    method: 'DELETE',
    pathTemplate: '/orders/{id}',
    callerKey: 'http:s1',
    clientName: 'claude-code',
  });
  // Another profile's grant for an operation of the same name covers nothing here.
  const elsewhere = s.grant({ scope: 'always', operationId: 'reports.refresh', profile: 'github' });

  const view = await invoke(s.handlers, 'rules.list', {});
  assert.deepEqual(view.profile, { name: 'shop', policy: 'ask', readOnly: false });
  const rule = Object.fromEntries(view.operations.map((o) => [o.operationId, o]));
  assert.deepEqual(rule['orders.list']!.effective, { kind: 'allow', text: 'Allowed: a read' });
  assert.deepEqual([rule['orders.list']!.policy, rule['orders.list']!.policySource], ['allow', 'read']);
  assert.deepEqual(rule['orders.create']!.effective, { kind: 'allow', text: 'Allowed: grant for every client, until revoked' });
  assert.deepEqual(rule['orders.create']!.grantIds, [always.id]);
  assert.deepEqual(rule['orders.delete']!.effective, { kind: 'some', text: 'Allowed for claude-code (grant); other clients are asked' });
  assert.deepEqual(rule['orders.delete']!.grantIds, [session.id]);
  assert.equal(rule['orders.delete']!.destructive, true);
  assert.equal(rule['orders.create']!.destructive, false);
  assert.deepEqual(rule['products.list']!.effective, { kind: 'deny', text: 'Refused by the policy' });
  assert.deepEqual([rule['products.list']!.policy, rule['products.list']!.policySource], ['deny', 'operation']);
  assert.deepEqual(rule['reports.refresh']!.effective, { kind: 'ask', text: 'Asks a person' });
  assert.deepEqual(rule['reports.refresh']!.grantIds, []);
  assert.equal(rule['reports.refresh']!.mutation, true);
  assert.deepEqual(
    view.grants.map((g) => g.id),
    [always.id, session.id, elsewhere.id],
    'every grant is listed, also those of other profiles',
  );

  // A revoked grant is gone from the next view.
  s.broker.grants.revoke(always.id, 'test');
  const after = await invoke(s.handlers, 'rules.list', {});
  assert.deepEqual(after.operations.find((o) => o.operationId === 'orders.create')!.effective, { kind: 'ask', text: 'Asks a person' });
});

test('a read-only profile refuses every mutation, whatever its grants', T, async (t) => {
  const s = await setup(t, shopProfile({ readOnly: true }));
  s.grant({ scope: 'always', operationId: 'orders.create' });
  const view = await invoke(s.handlers, 'rules.list', {});
  for (const id of ['orders.create', 'orders.delete', 'reports.refresh']) {
    assert.deepEqual(view.operations.find((o) => o.operationId === id)!.effective, { kind: 'deny', text: 'Refused: the profile is read-only' }, id);
  }
  assert.equal(view.operations.find((o) => o.operationId === 'orders.list')!.effective.kind, 'allow');
});

test("hit counts come from the audit: this profile's calls only, by what happened, with the latest and the oldest counted", T, async (t) => {
  const s = await setup(t);
  await s.audit.recordApiCall(apiCall('run-1', 1));
  await s.audit.recordApiCall(apiCall('run-2', 2, { decision: 'approved', approval: { by: 'alice', at: at(2), scope: 'once' } }));
  await s.audit.recordApiCall(apiCall('run-3', 3, { decision: 'approved', approval: { by: 'grant grt_1 (every client)', at: at(3), grantId: 'grt_1' } }));
  await s.audit.recordApiCall(apiCall('run-4', 4, { decision: 'denied', status: 0 }));
  await s.audit.recordApiCall(apiCall('run-5', 5, { profile: 'github', url: 'https://api.github.test/orders' }));
  // An older record that names no profile counts when its URL is the active API's.
  await s.audit.recordApiCall(noProfile(apiCall('run-6', 4, { operationId: 'orders.list', method: 'GET', decision: 'read' })));
  await s.audit.recordApiCall(
    noProfile(apiCall('run-7', 6, { operationId: 'orders.list', method: 'GET', decision: 'read', url: 'https://elsewhere.test/orders' })),
  );

  const view = await invoke(s.handlers, 'rules.list', {});
  const hits = Object.fromEntries(view.operations.map((o) => [o.operationId, o.hits]));
  assert.deepEqual(hits['orders.create'], { allowed: 2, asked: 1, saidNo: 0, refused: 1, lastAt: at(4) });
  assert.deepEqual(hits['orders.list'], { allowed: 1, asked: 0, saidNo: 0, refused: 0, lastAt: at(4) });
  assert.deepEqual(hits['orders.delete'], { allowed: 0, asked: 0, saidNo: 0, refused: 0 });
  assert.equal(view.countedSince, at(1), 'the oldest call counted');

  // Later records are added to the counts at the next call.
  await s.audit.recordApiCall(apiCall('run-8', 9));
  const again = await invoke(s.handlers, 'rules.list', {});
  assert.deepEqual(again.operations.find((o) => o.operationId === 'orders.create')!.hits, { allowed: 3, asked: 1, saidNo: 0, refused: 1, lastAt: at(9) });
});

test('approvals.answered lists the held calls that were answered, newest first, with who answered and the client', T, async (t) => {
  const s = await setup(t);
  // run-1: answered by a person; its client is named by the run's tool record.
  await s.audit.recordToolCall({
    time: at(0),
    clientName: 'claude-code',
    transport: 'http',
    tool: 'execute',
    outcome: 'ok',
    durationMs: 5,
    input: 'x',
    bytesOut: 1,
    runId: 'run-1',
  });
  await s.audit.recordApiCall(apiCall('run-1', 1, { decision: 'approved', approval: { by: 'alice via desktop', at: at(1), scope: 'session' } }));
  // run-2: denied by a person, the client named on the record.
  await s.audit.recordApiCall(
    apiCall('run-2', 2, {
      clientName: 'cursor',
      decision: 'denied',
      status: 0,
      approval: { by: 'bob via web UI', at: at(2), reason: 'not today', code: 'denied' },
    }),
  );
  // Not answers: a grant let it through, an earlier yes in the run, nobody could be asked, no approval at all.
  await s.audit.recordApiCall(apiCall('run-3', 3, { decision: 'approved', approval: { by: 'grant grt_1 (every client)', at: at(3), grantId: 'grt_1' } }));
  await s.audit.recordApiCall(apiCall('run-4', 4, { decision: 'approved', approval: { by: RUN_GRANT_BY, at: at(4), scope: 'run' } }));
  await s.audit.recordApiCall(
    apiCall('run-5', 5, { decision: 'denied', status: 0, approval: { by: 'airlock', at: at(5), reason: 'no one', code: 'no_approver' } }),
  );
  await s.audit.recordApiCall(apiCall('run-6', 6, { decision: 'allowed' }));
  // run-7: timed out; the client is known from its session only.
  s.sessions.open({ key: 'http:s7', transport: 'http', sessionId: 's7', clientName: 'zed' });
  await s.audit.recordApiCall(
    apiCall('run-7', 7, { callerKey: 'http:s7', decision: 'denied', status: 0, approval: { by: 'timeout', at: at(8), reason: 'timed out', code: 'timeout' } }),
  );
  // run-8: approved, then refused because the request changed; no name anywhere: its caller key.
  await s.audit.recordApiCall(
    apiCall('run-8', 9, { callerKey: 'stdio:42', decision: 'refused', status: 0, approval: { by: 'alice via desktop', at: at(9), scope: 'once' } }),
  );

  const answered = await invoke(s.handlers, 'approvals.answered', {});
  assert.deepEqual(
    answered.map((a) => [a.runId, a.client, a.approved, a.by, a.scope ?? a.code]),
    [
      ['run-8', 'stdio:42', false, 'alice via desktop', 'once'],
      ['run-7', 'zed', false, 'timeout', 'timeout'],
      ['run-2', 'cursor', false, 'bob via web UI', 'denied'],
      ['run-1', 'claude-code', true, 'alice via desktop', 'session'],
    ],
  );
  const denied = answered.find((a) => a.runId === 'run-2')!;
  assert.equal(denied.reason, 'not today');
  assert.equal(denied.at, at(2));
  assert.equal(denied.operationId, 'orders.create');
  assert.deepEqual(
    (await invoke(s.handlers, 'approvals.answered', { limit: 2 })).map((a) => a.runId),
    ['run-8', 'run-7'],
  );
});
