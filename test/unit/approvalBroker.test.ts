import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalBroker, type BrokerEvent } from '../../main/core/approvals/approvalBroker.ts';
import type { ApiCallApprovalRequest, ToolCallApprovalRequest } from '../../main/core/approvals/types.ts';
import { GrantStore } from '../../main/core/approvals/grantStore.ts';
import { tempDir } from '../helpers/paths.ts';
import { classifyRequest } from '../../main/core/egress/classify.ts';
import { offeredScopes } from '../../contract/approvals.ts';

function req(overrides: Partial<ApiCallApprovalRequest> = {}): ApiCallApprovalRequest {
  return {
    kind: 'api-call',
    runId: 'run-1',
    caller: { key: 'http:s1', transport: 'http', clientName: 'claude-code', clientVersion: '2.0' },
    profile: 'demo',
    reason: 'destructive',
    rule: 'profile demo policy "ask": DELETE changes data',
    operationId: 'events.delete',
    call: 'api.events.delete',
    method: 'DELETE',
    pathTemplate: '/events/{eventId}',
    url: 'http://127.0.0.1:1/events/evt_1',
    query: {},
    headers: [],
    bodyPreview: '',
    requestHash: 'h'.repeat(64),
    callIndex: 1,
    earlierCalls: [],
    scriptSha256: 'f'.repeat(64),
    script: 'await api.events.delete(...)',
    ...overrides,
  };
}

const broker = (opts: Partial<ConstructorParameters<typeof ApprovalBroker>[0]> = {}) =>
  new ApprovalBroker({ timeoutMs: 60_000, approversAvailable: () => true, noApproverMessage: 'needs a person: use `airlock approvals approve <id>`', ...opts });

/** Resolves with the next pending approval. */
function nextRequested(b: ApprovalBroker): Promise<string> {
  return new Promise((resolve) => {
    const off = b.subscribe((e: BrokerEvent) => {
      if (e.type === 'approval-requested') {
        off();
        resolve(e.approval.id);
      }
    });
  });
}

/** A held call of another MCP server's tool (fs/write_file), with the shared fields of `req()`. */
function toolReq(overrides: Partial<ToolCallApprovalRequest> = {}): ToolCallApprovalRequest {
  const { method: _method, pathTemplate: _path, url: _url, query: _query, headers: _headers, bodyPreview: _body, kind: _kind, ...shared } = req();
  return {
    ...shared,
    kind: 'tool-call',
    profile: 'mcp:fs',
    operationId: 'write_file',
    call: 'mcp.fs.write_file',
    server: 'fs',
    tool: 'write_file',
    address: 'mcp://fs/write_file',
    arguments: '{}',
    ...overrides,
  };
}

test('a request waits in the queue with what a person needs to decide, until approved once', async () => {
  const b = broker();
  const id = nextRequested(b);
  const decision = b.request(req());
  const pending = b.list();
  assert.equal(pending.length, 1);
  assert.equal(pending[0]!.request.operationId, 'events.delete');
  assert.equal(pending[0]!.request.caller.clientName, 'claude-code');
  assert.ok(Date.parse(pending[0]!.expiresAt) > Date.parse(pending[0]!.createdAt));
  b.decide(await id, { approve: true, scope: 'once' }, 'cli');
  const d = await decision;
  assert.equal(d.approved, true);
  assert.equal(b.list().length, 0);
  // "once" grants nothing further: the next request waits again.
  const again = nextRequested(b);
  const second = b.request(req());
  b.decide(await again, { approve: false, reason: 'not this one' }, 'cli');
  assert.deepEqual(await second.then((x) => (x.approved ? 'yes' : x.reason)), 'not this one');
});

test('"rest of this run" approves the run\'s later mutations, and ends with the run', async () => {
  const b = broker();
  const id = nextRequested(b);
  const first = b.request(req());
  b.decide(await id, { approve: true, scope: 'run' }, 'ui');
  await first;
  const later = await b.request(req({ operationId: 'events.create', method: 'POST' }));
  assert.equal(later.approved && later.scope, 'run');
  // The grant is for this run's calls to this API: the same run's call to another API still asks.
  const otherApi = nextRequested(b);
  const p0 = b.request(req({ profile: 'github', operationId: 'repos.delete' }));
  assert.equal(b.list().length, 1, 'a call to another API in the same run asks');
  b.decide(await otherApi, { approve: false }, 'ui');
  assert.equal((await p0).approved, false);
  const otherRun = nextRequested(b);
  const p = b.request(req({ runId: 'run-2' }));
  assert.equal(b.list().length, 1); // another run still asks
  b.decide(await otherRun, { approve: false }, 'ui');
  await p;
  b.endRun('run-1');
  const after = nextRequested(b);
  const p2 = b.request(req());
  b.decide(await after, { approve: false }, 'ui');
  assert.equal((await p2).approved, false);
});

test('"this operation for this client until restart" covers that client and operation only', async () => {
  const b = broker();
  const id = nextRequested(b);
  const p = b.request(req());
  b.decide(await id, { approve: true, scope: 'session' }, 'ui');
  await p;
  assert.equal((await b.request(req({ runId: 'run-9' }))).approved, true);
  const other = nextRequested(b);
  const p2 = b.request(req({ caller: { key: 'http:s2', transport: 'http', clientName: 'cursor' } }));
  b.decide(await other, { approve: false }, 'ui');
  assert.equal((await p2).approved, false);
});

test('no decision before the timeout is a denial that says how to answer', async () => {
  const b = broker({ timeoutMs: 20 });
  const d = await b.request(req());
  assert.equal(d.approved, false);
  if (!d.approved) {
    assert.equal(d.by, 'timeout');
    assert.equal(d.code, 'timeout');
    assert.match(d.reason, /^timed out: no one answered within .*airlock approvals list/);
  }
  assert.throws(() => b.decide('apr_00000000', { approve: true, scope: 'once' }, 'x'), /no pending approval/);
});

test('a timeout changed while the companion runs applies to the next request; one already waiting keeps its own', async () => {
  let timeoutMs = 60_000;
  const b = broker({ timeoutMs: () => timeoutMs });
  const first = nextRequested(b);
  const waiting = b.request(req({ runId: 'before' }));
  const firstId = await first;
  timeoutMs = 20;
  const d = await b.request(req({ runId: 'after' }));
  assert.equal(d.approved, false);
  if (!d.approved) assert.equal(d.code, 'timeout');
  const stillWaiting = b.list().find((p) => p.id === firstId);
  assert.ok(stillWaiting, 'the earlier request still waits');
  assert.ok(Date.parse(stillWaiting.expiresAt) - Date.parse(stillWaiting.createdAt) === 60_000);
  b.decide(firstId, { approve: true, scope: 'once' }, 'ui');
  assert.equal((await waiting).approved, true);
});

test('two concurrent approvals are not mixed up', async () => {
  const b = broker();
  const ids: string[] = [];
  b.subscribe((e) => e.type === 'approval-requested' && ids.push(e.approval.id));
  const a = b.request(req({ runId: 'A', operationId: 'events.delete' }));
  const c = b.request(req({ runId: 'C', operationId: 'events.create', method: 'POST' }));
  const byOp = new Map(b.list().map((p) => [p.request.operationId, p.id]));
  b.decide(byOp.get('events.create')!, { approve: true, scope: 'once' }, 'ui');
  b.decide(byOp.get('events.delete')!, { approve: false, reason: 'keep it' }, 'ui');
  const [da, dc] = await Promise.all([a, c]);
  assert.equal(da.approved, false);
  assert.equal(dc.approved, true);
  assert.equal(ids.length, 2);
});

test('without an approver: elicitation when the client supports it, else a denial with instructions', async () => {
  const none = broker({ approversAvailable: () => false });
  const denied = await none.request(req());
  assert.ok(!denied.approved && /airlock approvals approve <id>/.test(denied.reason));
  const asked: string[] = [];
  const yes = await none.request(req(), { elicit: async (m) => (asked.push(m), { approved: true }) });
  assert.equal(yes.approved, true);
  assert.match(asked[0]!, /allow DELETE http:\/\/127\.0\.0\.1:1\/events\/evt_1 \(events\.delete\)/);
  const no = await none.request(req(), { elicit: async () => ({ approved: false, reason: 'nope' }) });
  assert.ok(!no.approved && no.reason === 'nope');
  const dismissed = await none.request(req(), { elicit: async () => undefined });
  assert.ok(!dismissed.approved && /dismissed/.test(dismissed.reason));
});

test('a run that ends while waiting withdraws its request', async () => {
  const b = broker();
  const ac = new AbortController();
  const p = b.request(req(), { signal: ac.signal });
  assert.equal(b.list().length, 1);
  ac.abort();
  const d = await p;
  assert.ok(!d.approved && d.code === 'withdrawn' && /withdrawn/.test(d.reason));
  assert.equal(b.list().length, 0);
});

test('attack: a yes that arrives after the client withdrew the request changes nothing and says why', { timeout: 5000 }, async () => {
  const b = broker();
  const ac = new AbortController();
  const decided: string[] = [];
  b.subscribe((e) => e.type === 'approval-decided' && decided.push(e.decision.approved ? 'approved' : e.decision.code));
  const id = nextRequested(b);
  const p = b.request(req(), { signal: ac.signal });
  const pending = await id;
  ac.abort();
  const d = await p;
  assert.equal(d.approved, false);
  assert.throws(() => b.decide(pending, { approve: true, scope: 'once' }, 'late person'), /already withdrawn by its client; nothing was changed/);
  assert.deepEqual(decided, ['withdrawn']);
});

test('the first answer wins: a second answer from another channel is a conflict naming the first', { timeout: 5000 }, async () => {
  const b = broker();
  const id = nextRequested(b);
  const p = b.request(req({ reason: 'mutation', method: 'POST', operationId: 'events.create' }));
  const pending = await id;
  b.decide(pending, { approve: false, reason: 'no' }, 'alice via desktop');
  assert.throws(() => b.decide(pending, { approve: true, scope: 'once' }, 'alice via CLI'), /already denied by alice via desktop/);
  assert.equal((await p).approved, false);
});

test('attack: a session grant is bound to the session, not to the client name another client can claim', { timeout: 5000 }, async () => {
  const b = broker();
  const id = nextRequested(b);
  const p = b.request(req());
  b.decide(await id, { approve: true, scope: 'session' }, 'ui');
  await p;
  // Same session: through without asking, naming the grant.
  const same = await b.request(req({ runId: 'run-2' }));
  assert.ok(same.approved && same.scope === 'session' && same.grantId);
  // Another session that declares the same client name asks again.
  const asked = nextRequested(b);
  const impostor = b.request(req({ runId: 'run-3', caller: { key: 'http:s2', transport: 'http', clientName: 'claude-code', clientVersion: '2.0' } }));
  b.decide(await asked, { approve: false }, 'ui');
  assert.equal((await impostor).approved, false);
  // The grant is listed with who gave it, and ends with the session.
  const [grant] = b.grants.list();
  assert.equal(grant!.scope, 'session');
  assert.equal(grant!.callerKey, 'http:s1');
  assert.equal(grant!.grantedBy, 'ui');
  assert.equal(grant!.uses, 1);
  b.grants.endSession('http:s1');
  assert.equal(b.grants.list().length, 0);
});

test('"always" grants persist per operation, are listed and revocable, and are refused for destructive calls', { timeout: 5000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = `${dir}/grants.json`;
    const b = broker({ grants: new GrantStore({ file }) });
    const create = req({ reason: 'mutation', method: 'POST', operationId: 'events.create', pathTemplate: '/events' });
    const id = nextRequested(b);
    const p = b.request(create);
    const pending = await id;
    b.decide(pending, { approve: true, scope: 'always' }, 'alice via desktop');
    await p;
    await b.grants.flush();
    // A restart (a new store on the same file) keeps it, for any client.
    const again = broker({ grants: new GrantStore({ file }) });
    const other = await again.request({ ...create, caller: { key: 'stdio:42', transport: 'stdio' } });
    assert.ok(other.approved && other.scope === 'always');
    const [grant] = again.grants.list();
    assert.equal(grant!.grantedBy, 'alice via desktop');
    assert.ok(grant!.lastUsedAt);
    assert.equal(again.grants.revoke(grant!.id, 'bob'), true);
    await again.grants.flush();
    assert.equal(new GrantStore({ file }).list().length, 0);
    // Destructive operations are not offered "always".
    const del = nextRequested(again);
    const dp = again.request(req());
    const delId = await del;
    assert.throws(() => again.decide(delId, { approve: true, scope: 'always' }, 'ui'), /not offered for DELETE/);
    again.decide(delId, { approve: false }, 'ui');
    await dp;
  } finally {
    cleanup();
  }
});

test('deny all answers every pending request', { timeout: 5000 }, async () => {
  const b = broker();
  const a = b.request(req({ runId: 'a' }));
  const c = b.request(req({ runId: 'c' }));
  assert.equal(b.denyAll('closing', 'ui'), 2);
  const [da, dc] = await Promise.all([a, c]);
  assert.ok(!da.approved && da.reason === 'closing' && !dc.approved);
});

test('attack: a method override cannot launder a DELETE into an "until revoked" grant, nor ride on a grant', async () => {
  // A DELETE operation sent with X-HTTP-Method-Override: PATCH is still destructive, whatever the override says.
  const op = { id: 'events.delete', method: 'DELETE', path: '/events/{eventId}', mutation: false } as never;
  const profile = { name: 'demo', policy: 'ask' as const, readOnly: false, mutations: [] };
  const verdict = classifyRequest({ op, method: 'DELETE', override: { method: 'PATCH', via: 'X-HTTP-Method-Override' }, profile });
  assert.equal(verdict.kind === 'ask' && verdict.reason, 'destructive');

  // A grant for the plain operation never covers a call that overrides its method, and none is offered for one.
  const b = broker();
  const plain = req({ reason: 'mutation', operationId: 'events.create', method: 'POST', pathTemplate: '/events' });
  const first = nextRequested(b);
  const granted = b.request(plain);
  b.decide(await first, { approve: true, scope: 'always' }, 'cli');
  assert.equal((await granted).approved, true);
  const overridden = req({ ...plain, runId: 'run-2', method: 'DELETE', reason: 'destructive', override: { from: 'POST', via: 'X-HTTP-Method-Override' } });
  assert.deepEqual(offeredScopes(overridden), ['once', 'run']);
  const asked = nextRequested(b);
  const decision = b.request(overridden);
  const id = await asked;
  assert.throws(() => b.decide(id, { approve: true, scope: 'session' }, 'cli'), /no grant is offered .* overrides its method/);
  b.decide(id, { approve: false }, 'cli');
  assert.equal((await decision).approved, false);
});

test('a grant "until revoked" never covers a call that may destroy (given before the operation became one); a profile\'s grants go together', async () => {
  const grants = new GrantStore();
  const b = broker({ grants });
  grants.add({ scope: 'always', profile: 'mcp:fs', operationId: 'write_file', callKind: 'tool-call', grantedBy: 'tester' });
  const writes = await b.request(toolReq({ reason: 'mutation' }));
  assert.equal(writes.approved, true, 'covered while the tool said it does not destroy');
  // Now the tool says it may destroy: the old grant is not enough, a person is asked.
  const asked = nextRequested(b);
  const deciding = b.request(toolReq({ reason: 'destructive' }));
  const id = await asked;
  b.decide(id, { approve: false }, 'tester');
  assert.equal((await deciding).approved, false);
  grants.add({
    scope: 'everyone-session',
    profile: 'mcp:fs',
    operationId: 'read_file',
    callKind: 'tool-call',
    grantedBy: 'tester',
  });
  grants.add({ scope: 'always', profile: 'demo', operationId: 'events.create', method: 'POST', pathTemplate: '/events', grantedBy: 'tester' });
  assert.equal(grants.revokeProfile('mcp:fs', 'tester'), 2);
  assert.deepEqual(
    grants.list().map((g) => g.profile),
    ['demo'],
  );
});
