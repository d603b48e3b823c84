// Grant scopes, {this client | every client} × {this session | until
// revoked}: who each one lets through, what survives a restart, what is
// refused for a deletion or a client without a name; every change (a use
// included) is told to the listener; the hit counter reads the audit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalBroker, type BrokerEvent } from '../../main/core/approvals/approvalBroker.ts';
import type { ApiCallApprovalRequest, ServerSwitchApprovalRequest } from '../../main/core/approvals/types.ts';
import { GrantStore } from '../../main/core/approvals/grantStore.ts';
import { RuleHitCounter, hitKind } from '../../main/core/approvals/ruleHits.ts';
import { grantLine, offeredScopes, type ApproveScope } from '../../contract/approvals.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { effectiveOf } from '../../main/core/runtime/ruleHandlers.ts';
import type { ApiCallEntry, AuditQuery } from '../../main/core/audit/types.ts';
import { tempDir } from '../helpers/paths.ts';

const caller = (key: string, clientName?: string) => ({ key, transport: 'http' as const, ...(clientName ? { clientName } : {}) });

function req(overrides: Partial<ApiCallApprovalRequest> = {}): ApiCallApprovalRequest {
  return {
    kind: 'api-call',
    runId: `run-${Math.random()}`,
    caller: caller('http:s1', 'claude-code'),
    profile: 'demo',
    reason: 'mutation',
    rule: 'profile demo policy "ask": POST changes data',
    operationId: 'events.create',
    call: 'api.events.create',
    method: 'POST',
    pathTemplate: '/events',
    url: 'http://127.0.0.1:1/events',
    query: {},
    headers: [],
    bodyPreview: '',
    requestHash: 'h'.repeat(64),
    callIndex: 1,
    earlierCalls: [],
    scriptSha256: 'f'.repeat(64),
    script: 'await api.events.create(...)',
    ...overrides,
  };
}

const broker = (grants = new GrantStore()) =>
  new ApprovalBroker({ timeoutMs: 60_000, approversAvailable: () => true, noApproverMessage: 'needs a person', grants });

/** Answers the next request with `scope`, and resolves with its decision. */
async function grantWith(b: ApprovalBroker, scope: ApproveScope, r = req()) {
  const asked = new Promise<string>((resolve) => {
    const off = b.subscribe((e: BrokerEvent) => {
      if (e.type === 'approval-requested') {
        off();
        resolve(e.approval.id);
      }
    });
  });
  const decision = b.request(r);
  b.decide(await asked, { approve: true, scope }, 'alice via web UI');
  return decision;
}

/** Whether a call from this caller goes through without asking (a request that would ask is denied at once). */
async function throughWithoutAsking(b: ApprovalBroker, c: ReturnType<typeof caller>): Promise<boolean> {
  const off = b.subscribe((e) => {
    if (e.type === 'approval-requested') queueMicrotask(() => b.decide(e.approval.id, { approve: false }, 'test'));
  });
  try {
    return (await b.request(req({ caller: c }))).approved;
  } finally {
    off();
  }
}

test(
  '"this client, until revoked" covers the declared name in any session, survives a restart, and says it is bound to a name',
  { timeout: 5000 },
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = `${dir}/grants.json`;
      const b = broker(new GrantStore({ file }));
      const d = await grantWith(b, 'client-always');
      assert.ok(d.approved && d.scope === 'client-always' && d.grantId);
      await b.grants.flush();
      const again = broker(new GrantStore({ file }));
      assert.equal(await throughWithoutAsking(again, caller('http:new-session', 'claude-code')), true, 'same name, another session');
      assert.equal(await throughWithoutAsking(again, caller('http:s9', 'cursor')), false, 'another name asks');
      assert.equal(await throughWithoutAsking(again, caller('stdio:1')), false, 'no name asks');
      const [g] = again.grants.list();
      assert.equal(g!.scope, 'client-always');
      assert.equal(g!.clientName, 'claude-code');
      assert.equal(g!.uses, 1);
    } finally {
      cleanup();
    }
  },
);

test(
  '"this client, until revoked" for a client with a token of its own is bound to the token: not to its declared name, and revoked with it',
  { timeout: 5000 },
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = `${dir}/grants.json`;
      const b = broker(new GrantStore({ file }));
      const ciBot = { id: 'tok-1', name: 'ci-bot' };
      const withToken = (key: string, name: string, token: { id: string; name: string }) => ({ ...caller(key, name), clientToken: token });
      const d = await grantWith(b, 'client-always', req({ caller: withToken('http:client:tok-1', 'claude-code', ciBot) }));
      assert.ok(d.approved && d.grantId);
      const [g] = b.grants.list();
      assert.deepEqual([g!.clientTokenId, g!.clientName], ['tok-1', 'ci-bot'], 'bound to the token, named by the name the person gave it');
      await b.grants.flush();
      const again = broker(new GrantStore({ file }));
      assert.equal(await throughWithoutAsking(again, withToken('http:client:tok-1:api=demo', 'anything', ciBot)), true, 'the same token, after a restart');
      assert.equal(
        await throughWithoutAsking(again, withToken('http:client:tok-2', 'claude-code', { id: 'tok-2', name: 'mallory' })),
        false,
        'another token declaring the same name asks',
      );
      assert.equal(await throughWithoutAsking(again, caller('http:s2', 'claude-code')), false, 'the declared name alone asks');
      assert.equal(again.grants.revokeClientToken('tok-1', 'alice'), 1);
      assert.equal(await throughWithoutAsking(again, withToken('http:client:tok-1', 'claude-code', ciBot)), false, 'revoked with its token');

      // A grant bound to a name never covers a client that came with a token of its own, whatever it declares.
      const named = broker();
      await grantWith(named, 'client-always');
      assert.equal(await throughWithoutAsking(named, withToken('http:client:tok-3', 'claude-code', { id: 'tok-3', name: 'bot' })), false);
      assert.equal(await throughWithoutAsking(named, caller('http:s3', 'claude-code')), true);
    } finally {
      cleanup();
    }
  },
);

test('"every client, until Airlock stops" covers every client now, and is not kept after a restart', { timeout: 5000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = `${dir}/grants.json`;
    const b = broker(new GrantStore({ file }));
    await grantWith(b, 'everyone-session');
    assert.equal(await throughWithoutAsking(b, caller('stdio:7')), true);
    assert.equal(await throughWithoutAsking(b, caller('http:s2', 'cursor')), true);
    await b.grants.flush();
    assert.equal(new GrantStore({ file }).list().length, 0);
    // A session ending does not end it.
    b.grants.endSession('http:s1');
    assert.equal(b.grants.list().length, 1);
  } finally {
    cleanup();
  }
});

test('"until revoked" is refused for a deletion, and "this client, until revoked" for a client without a name', { timeout: 5000 }, async () => {
  const del = req({ reason: 'destructive', method: 'DELETE', operationId: 'events.delete', pathTemplate: '/events/{id}' });
  assert.deepEqual(offeredScopes(del), ['once', 'run', 'session', 'everyone-session']);
  assert.deepEqual(offeredScopes(req({ caller: caller('stdio:1') })), ['once', 'run', 'session', 'everyone-session', 'always']);
  assert.deepEqual(offeredScopes(req()), ['once', 'run', 'session', 'client-always', 'everyone-session', 'always']);
  const b = broker();
  for (const [r, scope, why] of [
    [del, 'client-always', /not offered for DELETE/],
    [del, 'always', /not offered for DELETE/],
    [req({ caller: caller('stdio:1') }), 'client-always', /declared none/],
  ] as const) {
    const asked = new Promise<string>((resolve) => {
      const off = b.subscribe((e) => e.type === 'approval-requested' && (off(), resolve(e.approval.id)));
    });
    const p = b.request(r);
    const id = await asked;
    assert.throws(() => b.decide(id, { approve: true, scope }, 'ui'), why);
    b.decide(id, { approve: false }, 'ui');
    await p;
  }
  assert.equal(b.grants.list().length, 0);
});

test('the narrowest grant is the one used; every use is told to the listener (Last used and the counts stay current)', { timeout: 5000 }, async () => {
  let changes = 0;
  const store = new GrantStore({ onChange: () => changes++ });
  const b = broker(store);
  await grantWith(b, 'always');
  store.add({
    scope: 'session',
    profile: 'demo',
    operationId: 'events.create',
    method: 'POST',
    pathTemplate: '/events',
    callerKey: 'http:s1',
    grantedBy: 'bob',
  });
  const before = changes;
  const d = await b.request(req());
  assert.ok(d.approved && d.scope === 'session');
  assert.equal(changes, before + 1, 'a use notifies');
  const used = store.list().find((g) => g.scope === 'session')!;
  assert.equal(used.uses, 1);
  assert.ok(used.lastUsedAt);
  assert.equal(store.list().find((g) => g.scope === 'always')!.uses, 0);
});

test('what is in effect: a policy, or a grant that lets the call through, in words', { timeout: 5000 }, () => {
  const g = (scope: 'session' | 'client-always' | 'everyone-session' | 'always') =>
    ({
      id: 'g',
      scope,
      profile: 'demo',
      operationId: 'x',
      method: 'POST',
      pathTemplate: '/x',
      clientName: 'cursor',
      callerKey: 'http:1',
      grantedBy: 'a',
      createdAt: '',
      uses: 0,
    }) as const;
  assert.deepEqual(effectiveOf('ask', []), { kind: 'ask', text: 'Asks a person' });
  assert.equal(effectiveOf('ask', [g('always')]).kind, 'allow');
  assert.match(effectiveOf('ask', [g('always')]).text, /every client, until revoked/);
  assert.equal(effectiveOf('ask', [g('client-always')]).kind, 'some');
  assert.match(effectiveOf('ask', [g('client-always')]).text, /Allowed for cursor .*other clients are asked/);
  assert.equal(effectiveOf('deny', [g('always')]).kind, 'deny', 'a grant never overrides deny');
  assert.equal(effectiveOf('read-only', []).kind, 'deny');
  assert.equal(effectiveOf('allow', []).kind, 'allow');
});

test('hit counts come from the audit, read once, then only what is new; other profiles are not counted', { timeout: 5000 }, () => {
  let seq = 0;
  const records: ApiCallEntry[] = [];
  const add = (operationId: string, decision: ApiCallEntry['decision'], approval?: ApiCallEntry['approval'], profile = 'demo') =>
    records.push({
      kind: 'api',
      seq: ++seq,
      time: new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString(),
      recordedAt: '',
      outcome: 'ok',
      prevHash: '',
      hash: '',
      runId: 'r',
      callerKey: 'k',
      profile,
      operationId,
      method: 'POST',
      url: 'http://x/events',
      status: 200,
      durationMs: 1,
      bytes: 1,
      decision,
      ...(approval ? { approval } : {}),
      startedAt: '',
    } as ApiCallEntry);
  let queries = 0;
  const audit = {
    query(q: AuditQuery = {}) {
      queries++;
      const after = q.after ?? 0;
      const page = records.filter((r) => r.seq > after).slice(0, q.limit ?? 100);
      return { records: page, ...(records.filter((r) => r.seq > after).length > page.length ? { next: page.at(-1)!.seq } : {}) };
    },
  };
  add('events.create', 'approved', { by: 'alice', at: '', scope: 'once' });
  add('events.create', 'approved', { by: 'grant g1 (every client, until revoked, given by alice)', at: '', scope: 'always', grantId: 'g1' });
  // A person's "yes, this client, this session" names the grant it left, and was asked.
  add('events.create', 'approved', { by: 'alice via web UI', at: '', scope: 'session', grantId: 'g2' });
  add('events.create', 'denied', { by: 'timeout', at: '', code: 'timeout' });
  add('events.create', 'denied');
  add('events.list', 'read');
  add('events.create', 'allowed', undefined, 'other');
  const counter = new RuleHitCounter(audit, (r) => r.profile === 'demo');
  counter.catchUp();
  assert.deepEqual(
    counter.hits('events.create'),
    { allowed: 1, asked: 3, saidNo: 1, refused: 1, lastAt: records[4]!.time },
    'the prompt no one answered was asked, and not let through',
  );
  assert.deepEqual(counter.hits('events.list'), { allowed: 1, asked: 0, saidNo: 0, refused: 0, lastAt: records[5]!.time });
  assert.equal(counter.countedSince, records[0]!.time);
  add('events.create', 'allowed');
  const before = queries;
  counter.catchUp();
  assert.equal(queries, before + 1);
  assert.equal(counter.hits('events.create').allowed, 2);
  assert.equal(hitKind({ decision: 'approved', approval: { by: 'earlier approval (rest of run)', at: '', scope: 'run' } }), 'allowed');
  assert.equal(hitKind({ decision: 'approved', approval: { by: 'alice via CLI', at: '', scope: 'run' } }), 'asked');
  assert.equal(hitKind({ decision: 'refused' }), 'refused');
});

test('a grant kept before the kinds (its method said TOOL) is read as the tool call it covers; an API grant keeps its method and path', () => {
  const { dir, cleanup } = tempDir('airlock-grants-kinds-');
  try {
    const file = join(dir, 'grants.json');
    const kept = { scope: 'always', grantedBy: 'alice', createdAt: '2026-11-01T00:00:00.000Z', uses: 3 };
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        grants: [
          { ...kept, id: 'grt_tool', profile: 'mcp:fs', operationId: 'write_file', method: 'TOOL', pathTemplate: 'mcp://fs/write_file' },
          { ...kept, id: 'grt_api', profile: 'demo', operationId: 'events.create', method: 'POST', pathTemplate: '/events' },
        ],
      }),
    );
    const grants = new GrantStore({ file }).list();
    const tool = grants.find((g) => g.id === 'grt_tool')!;
    assert.equal(tool.callKind, 'tool-call');
    assert.equal(tool.method, undefined, 'no HTTP method is kept for a tool');
    assert.equal(grantLine(tool), 'tool write_file of MCP server fs');
    const api = grants.find((g) => g.id === 'grt_api')!;
    assert.deepEqual([api.callKind, api.method, api.pathTemplate], ['api-call', 'POST', '/events']);
    assert.equal(grantLine(api), 'POST /events');
  } finally {
    cleanup();
  }
});

test('a server switch is answered one yes at a time: no scope but "once" is offered or taken', async () => {
  const { method: _m, pathTemplate: _p, url: _u, query: _q, headers: _h, bodyPreview: _b, kind: _k, ...shared } = req();
  const sw: ServerSwitchApprovalRequest = {
    ...shared,
    kind: 'server-switch',
    profile: 'airlock',
    operationId: 'toggle_mcp_server',
    server: 'fs',
    enabled: false,
  };
  assert.deepEqual(offeredScopes(sw), ['once']);
  const b = broker();
  const asked = new Promise<string>((resolve) => {
    const off = b.subscribe((e: BrokerEvent) => {
      if (e.type === 'approval-requested') {
        off();
        resolve(e.approval.id);
      }
    });
  });
  const deciding = b.request(sw);
  const id = await asked;
  assert.throws(() => b.decide(id, { approve: true, scope: 'always' }, 'alice'), /one yes at a time/);
  b.decide(id, { approve: true, scope: 'once' }, 'alice');
  assert.equal((await deciding).approved, true);
  assert.deepEqual(b.grants.list(), [], 'nothing left behind');
});
