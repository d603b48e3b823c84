// What the gate records and hands back on every path a call can take: sent,
// followed, handed back, refused before or after a decision, failed on the
// way, or withheld when the audit cannot take it. A fake upstream (transport
// and resolver) makes every path reachable and every record exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEgressGate } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import { BlockedAddressError } from '../../main/core/util/addressPolicy.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import type { ApprovalHook } from '../../main/core/approvals/types.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import type { AuthScheme } from '../../main/core/config/auth.ts';
import type { Logger } from '../../main/core/log/logger.ts';
import type { Transport, UpstreamExchange } from '../../main/core/egress/upstream.ts';
import type { MutationPolicy } from '../../main/core/profiles/profile.ts';
import { echoCatalogue } from '../helpers/echoApi.ts';
import { ofKind } from '../helpers/approvalKinds.ts';

const KEY = 'sk_live_RECORDS_0123456789abcdef';
const ORIGIN = 'https://api.example.test';
const AT = new Date(0).toISOString();

type Reply = { status: number; headers?: Record<string, string>; body?: string; truncated?: boolean } | Error;

interface Setup {
  auth?: AuthScheme;
  policy?: MutationPolicy;
  reply?: (x: UpstreamExchange) => Reply;
  approvals?: ApprovalHook;
  rateLimit?: () => boolean;
  killSwitch?: () => boolean;
  onApiCall?: (r: ApiCallRecord) => void | Promise<unknown>;
  getCredential?: () => string | undefined;
  resolver?: () => Promise<{ address: string; family: 4 | 6 }[]>;
  responseBytes?: number;
}

function setup(o: Setup = {}) {
  const records: ApiCallRecord[] = [];
  const lines: string[] = [];
  const sent: UpstreamExchange[] = [];
  const reply = o.reply ?? ((): Reply => ({ status: 200, body: '{"ok":true}' }));
  const transport: Transport = async (x) => {
    sent.push(x);
    const r = reply(x);
    if (r instanceof Error) throw r;
    return { status: r.status, headers: r.headers ?? { 'content-type': 'application/json' }, body: Buffer.from(r.body ?? ''), truncated: r.truncated ?? false };
  };
  const logger: Logger = {
    debug: () => {},
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
    child: () => logger,
  };
  const gate = createEgressGate({
    api: {
      profile: { name: 'p', spec: 'x', policy: o.policy ?? 'allow', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc' },
      baseUrl: `${ORIGIN}/v1`,
      auth: o.auth ?? { type: 'bearer' },
      catalogue: echoCatalogue(),
    },
    getCredential: o.getCredential ?? (() => KEY),
    redactor: () => createRedactor([KEY]),
    resolver: o.resolver ?? (async () => [{ address: '93.184.216.34', family: 4 }]),
    transport,
    onApiCall: o.onApiCall ?? ((r) => void records.push(r)),
    logger,
    now: () => new Date(0),
    ...(o.approvals ? { approvals: o.approvals } : {}),
    ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}),
    ...(o.killSwitch ? { killSwitch: o.killSwitch } : {}),
    ...(o.responseBytes ? { responseBytes: o.responseBytes } : {}),
  });
  return { gate, records, lines, sent };
}

const run = (over: Partial<RunContext> = {}): RunContext => ({
  runId: 'r1',
  caller: { key: 'c1', transport: 'internal', clientName: 'Claude' },
  scriptSha256: 'abc',
  script: 'return 1',
  calls: [],
  control: { whilePaused: (wait) => wait() },
  ...over,
});

const base = { runId: 'r1', callerKey: 'c1', clientName: 'Claude', profile: 'p', startedAt: AT, callKind: 'api-call' };
/** A record without its duration (a measured time). */
const timeless = ({ durationMs, ...rest }: ApiCallRecord) => (assert.equal(typeof durationMs, 'number'), rest);
const yes: ApprovalHook = { asksPerson: () => false, request: async () => ({ approved: true, by: 'tester', scope: 'once', at: AT }) };
const no: ApprovalHook = { asksPerson: () => false, request: async () => ({ approved: false, by: 'tester', reason: 'not now', at: AT, code: 'denied' }) };

test('a read that is sent: one record, one run call, one log line; the result is the response', async () => {
  const { gate, records, lines, sent } = setup();
  const r = run();
  const result = await gate.call({ operationId: 'items.list', query: { tag: ['a'] } }, r);
  assert.deepEqual(result, { data: { ok: true }, error: null, status: 200, headers: { 'content-type': 'application/json' } });
  assert.deepEqual(records.map(timeless), [
    { ...base, operationId: 'items.list', method: 'GET', url: `${ORIGIN}/v1/items?tag=a`, bytes: 11, decision: 'read', status: 200 },
  ]);
  assert.deepEqual(r.calls, [{ callKind: 'api-call', method: 'GET', url: `${ORIGIN}/v1/items?tag=a`, status: 200, decision: 'read' }]);
  assert.deepEqual(lines, ['info items.list: read GET /v1/items → 200']);
  assert.equal(sent[0]!.headers.authorization, `Bearer ${KEY}`);
  assert.equal(sent[0]!.pinned.address, '93.184.216.34');
});

test('the key cannot be read: refused, recorded with no duration, nothing sent', async () => {
  const { gate, records, sent, lines } = setup({
    getCredential: () => {
      throw Object.assign(new Error('raw'), { line: 'the keychain is locked' });
    },
  });
  const r = run();
  const result = await gate.call({ operationId: 'items.list' }, r);
  assert.deepEqual(result, {
    data: null,
    status: 0,
    error: {
      code: 'airlock_credential_unavailable',
      message:
        "the keychain is locked. The person running Airlock can fix the keychain, or start Airlock with this API's key in AIRLOCK_KEY_P, " +
        'or with `--secret-store file` (keys kept in a plaintext file) and set it with `airlock keys set p`.',
    },
  });
  assert.deepEqual(records, [
    { ...base, operationId: 'items.list', method: '', url: '', status: 0, durationMs: 0, bytes: 0, decision: 'refused', error: 'the keychain is locked' },
  ]);
  assert.deepEqual(r.calls, [{ callKind: 'api-call', method: '', url: '', status: 0, decision: 'refused' }]);
  assert.deepEqual(lines, ['info items.list: refused (the keychain is locked)']);
  assert.equal(sent.length, 0);
});

test("a key file that cannot be read: the fix is what works with it (this API's variable), not the file store it already is", async () => {
  const { gate, sent } = setup({
    getCredential: () => {
      throw Object.assign(new Error('raw'), { line: 'file store unavailable: bad JSON', store: 'file' });
    },
  });
  const result = await gate.call({ operationId: 'items.list' }, run());
  assert.equal(
    (result.error as { message?: string } | undefined)?.message,
    "file store unavailable: bad JSON. The person running Airlock can fix the key file, or start Airlock with this API's key in AIRLOCK_KEY_P.",
  );
  assert.equal(sent.length, 0);
});

test('refused before anything is built: an unknown operation, an invalid request (its message redacted)', async () => {
  const { gate, records, sent } = setup();
  const unknown = await gate.call({ operationId: 'nope' }, run());
  assert.deepEqual(unknown, { data: null, status: 0, error: { code: 'airlock_unknown_operation', message: "unknown operation 'nope'" } });
  const invalid = await gate.call({ operationId: 'items.get', path: { id: '..' }, headers: {} }, run());
  assert.equal((invalid.error as { code: string }).code, 'airlock_invalid_request');
  const leaky = await gate.call({ operationId: 'items.get', path: { [KEY]: 1, id: 'x' } }, run());
  assert.equal((leaky.error as { message: string }).message.includes(KEY), false);
  assert.deepEqual(records.map(timeless).slice(0, 2), [
    { ...base, operationId: 'nope', method: '', url: '', bytes: 0, decision: 'refused', status: 0, error: "unknown operation 'nope'" },
    { ...base, operationId: 'items.get', method: 'GET', url: '', bytes: 0, decision: 'refused', status: 0, error: "path parameter 'id' cannot be '..'" },
  ]);
  assert.equal(records[2]!.error!.includes(KEY), false);
  assert.equal(sent.length, 0);
});

test('refused after the decision: the run ended (the approval kept), the rate limit, a Basic key that is not user:password', async () => {
  const ended = new AbortController();
  ended.abort();
  const a = setup({ policy: 'ask', approvals: yes });
  const aborted = await a.gate.call({ operationId: 'items.create', body: { a: 1 } }, run({ signal: ended.signal }));
  assert.deepEqual(aborted.error, { code: 'airlock_run_ended', message: 'the run ended before the call was sent' });
  assert.deepEqual(a.records.map(timeless), [
    {
      ...base,
      operationId: 'items.create',
      method: 'POST',
      url: `${ORIGIN}/v1/items`,
      bytes: 0,
      decision: 'refused',
      status: 0,
      error: 'the run ended before the call was sent',
      approval: { by: 'tester', at: AT, scope: 'once' },
    },
  ]);
  const b = setup({ policy: 'ask', approvals: yes, rateLimit: () => false });
  const limited = await b.gate.call({ operationId: 'items.create', body: { a: 1 } }, run());
  assert.equal(limited.status, 429);
  assert.equal((limited.error as { code: string }).code, 'airlock_rate_limited');
  assert.equal(b.records[0]!.approval, undefined, 'the rate-limit refusal carries no approval');
  assert.equal(b.records[0]!.status, 429);
  const c = setup({ auth: { type: 'basic' } });
  const basic = await c.gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(basic, {
    data: null,
    status: 401,
    error: { code: 'airlock_credential_format', message: 'the key of profile p must be username:password for HTTP Basic auth' },
  });
  assert.equal(c.records[0]!.decision, 'refused');
  assert.equal(c.records[0]!.url, `${ORIGIN}/v1/items`);
  for (const s of [a, b, c]) assert.equal(s.sent.length, 0);
});

test('a person says no: denied, recorded with the refusal and the approval', async () => {
  const { gate, records, sent } = setup({ policy: 'ask', approvals: no });
  const result = await gate.call({ operationId: 'items.delete', path: { id: '1' } }, run());
  assert.equal((result.error as { code: string }).code, 'airlock_mutation_denied');
  assert.deepEqual(records.map(timeless), [
    {
      ...base,
      operationId: 'items.delete',
      method: 'DELETE',
      url: `${ORIGIN}/v1/items/1`,
      bytes: 0,
      decision: 'denied',
      status: 0,
      error: 'DELETE /items/{id} (items.delete) was not approved: not now',
      approval: { by: 'tester', at: AT, reason: 'not now', code: 'denied' },
    },
  ]);
  assert.equal(sent.length, 0);
});

test('redirects: followed hop by hop (each recorded), refused to another origin or a bad Location, handed back when not followed', async () => {
  const hops = setup({
    reply: (x) => (x.pathAndQuery.startsWith('/v1/bounce') ? { status: 302, headers: { location: '/v1/items?page=2' } } : { status: 200, body: '[]' }),
  });
  const followed = await hops.gate.call({ operationId: 'bounce.get', path: { status: '302' } }, run());
  assert.equal(followed.status, 200);
  assert.deepEqual(hops.records.map(timeless), [
    { ...base, operationId: 'bounce.get', method: 'GET', url: `${ORIGIN}/v1/bounce/302`, bytes: 0, decision: 'read', status: 302 },
    { ...base, operationId: 'items.list', method: 'GET', url: `${ORIGIN}/v1/items?page=2`, bytes: 2, decision: 'read', status: 200 },
  ]);
  assert.deepEqual(
    hops.sent.map((x) => x.pathAndQuery),
    ['/v1/bounce/302', '/v1/items?page=2'],
  );

  const away = setup({ reply: () => ({ status: 302, headers: { location: 'https://evil.example/x' } }) });
  const refused = await away.gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(refused.error, {
    code: 'airlock_redirect_refused',
    message: `the API redirected to another origin (https://evil.example); the gate only talks to ${ORIGIN}`,
  });
  assert.equal(refused.status, 302);
  assert.equal(away.records[0]!.decision, 'refused', 'a read led away is refused');
  const approvedAway = setup({ policy: 'ask', approvals: yes, reply: () => ({ status: 302, headers: { location: 'https://evil.example/x' } }) });
  await approvedAway.gate.call({ operationId: 'items.create', body: {} }, run());
  assert.equal(approvedAway.records[0]!.decision, 'approved', 'an approved mutation led away keeps its decision');
  assert.equal(approvedAway.records[0]!.approval?.by, 'tester');

  const bad = setup({ reply: () => ({ status: 302, headers: { location: 'http://[bad' } }) });
  const invalid = await bad.gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(invalid.error, { code: 'airlock_redirect_refused', message: 'the API answered with a redirect to an invalid location' });
  assert.equal(bad.records[0]!.decision, 'read');

  const back = setup({ policy: 'ask', approvals: yes, reply: () => ({ status: 303, headers: { location: `/v1/items/9?k=${KEY}` }, body: 'moved' }) });
  const handed = await back.gate.call({ operationId: 'items.create', body: {} }, run());
  const error = handed.error as { code: string; message: string; location: string; body: unknown };
  assert.equal(error.code, 'airlock_redirect_not_followed');
  assert.equal(error.location, `${ORIGIN}/v1/items/9?k=[REDACTED]`);
  assert.equal(handed.status, 303);
  assert.equal(JSON.stringify(handed).includes(KEY), false);
  assert.deepEqual(timeless(back.records[0]!), {
    ...base,
    operationId: 'items.create',
    method: 'POST',
    url: `${ORIGIN}/v1/items`,
    bytes: 5,
    decision: 'approved',
    status: 303,
    error: error.message,
    approval: { by: 'tester', at: AT, scope: 'once' },
  });
  assert.equal(back.sent.length, 1);
});

test('a response too large, a network error, a blocked address and an aborted exchange are refusals with their own codes', async () => {
  const big = setup({ reply: () => ({ status: 200, body: 'x', truncated: true }), responseBytes: 10 });
  const tooLarge = await big.gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(tooLarge, {
    data: null,
    status: 200,
    error: { code: 'airlock_response_too_large', message: 'the response of items.list is larger than 10 bytes; ask for less (filters, limit, fields)' },
  });
  assert.equal(big.records[0]!.decision, 'read');

  const down = setup({ reply: () => new Error(`ECONNRESET near ${KEY}`) });
  const network = await down.gate.call({ operationId: 'items.list' }, run());
  assert.equal((network.error as { code: string }).code, 'airlock_network_error');
  assert.equal((network.error as { message: string }).message, `could not reach ${ORIGIN}: ECONNRESET near [REDACTED]`);
  assert.deepEqual(timeless(down.records[0]!), {
    ...base,
    operationId: 'items.list',
    method: 'GET',
    url: `${ORIGIN}/v1/items`,
    bytes: 0,
    decision: 'refused',
    status: 0,
    error: `could not reach ${ORIGIN}: ECONNRESET near [REDACTED]`,
  });

  const blocked = setup({
    resolver: async () => {
      throw new BlockedAddressError('api.example.test resolves to 10.0.0.1, a private address', 'private');
    },
  });
  const b = await blocked.gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(b.error, { code: 'airlock_blocked_address', message: 'api.example.test resolves to 10.0.0.1, a private address' });
  assert.equal(blocked.records[0]!.url, `${ORIGIN}/v1/items`);

  const ended = new AbortController();
  const gone = setup({
    reply: () => {
      ended.abort();
      return Object.assign(new Error('aborted'), { name: 'AbortError' });
    },
  });
  const a = await gone.gate.call({ operationId: 'items.list' }, run({ signal: ended.signal }));
  assert.deepEqual(a.error, { code: 'airlock_run_ended', message: 'the run ended before the API answered' });
});

test('fail closed: a call the audit cannot record hands nothing back; a gate failure is an error, never a throw', async () => {
  const { gate, lines, sent } = setup({
    onApiCall: () => {
      throw new Error('disk full');
    },
  });
  const result = await gate.call({ operationId: 'items.list' }, run());
  assert.deepEqual(result, {
    data: null,
    status: 0,
    error: { code: 'airlock_audit_failed', message: 'the audit log could not record this call, so its result is withheld; see the Airlock log' },
  });
  assert.equal(sent.length, 1);
  assert.ok(lines.includes('error recording an API call failed: disk full'));
  // A transport that throws is a network error; a fault of the gate's own (here, a run with no call list) is an internal error.
  const broken = setup();
  const internal = await broken.gate.call({ operationId: 'nope' }, run({ calls: undefined as unknown as RunContext['calls'] }));
  assert.deepEqual(internal.error, { code: 'airlock_internal_error', message: 'the gate failed to handle this call; see the Airlock log' });
  assert.match(broken.lines[0]!, /^error egress gate failure: TypeError/);
});

test('no key configured: a warning, and the call goes out without one', async () => {
  const { gate, lines, sent } = setup({ getCredential: () => undefined });
  await gate.call({ operationId: 'items.list' }, run());
  assert.equal(sent[0]!.headers.authorization, undefined);
  assert.equal(lines[0], 'warn items.list: no API key configured; sending without credentials');
});

test('the evidence read behind a held DELETE carries the key, is audited as "evidence", and is not one of the run calls', async () => {
  const asked: unknown[] = [];
  const approvals: ApprovalHook = {
    request: async (req) => {
      asked.push(req);
      return { approved: false, by: 'tester', reason: 'no', at: AT, code: 'denied' };
    },
  };
  const { gate, records, sent } = setup({
    policy: 'ask',
    approvals,
    auth: { type: 'query', name: 'api_key' },
    reply: () => ({ status: 200, body: '{"title":"Concert"}' }),
  });
  const r = run();
  await gate.call({ operationId: 'items.delete', path: { id: '7' } }, r);
  assert.deepEqual(
    sent.map((x) => `${x.method} ${x.pathAndQuery} ${x.headers.accept}`),
    [`GET /v1/items/7?api_key=${KEY} application/json`],
  );
  assert.deepEqual(timeless(records[0]!), {
    ...base,
    operationId: 'items.get',
    method: 'GET',
    url: `${ORIGIN}/v1/items/7`,
    status: 200,
    bytes: 19,
    decision: 'evidence',
  });
  assert.equal(records[1]!.decision, 'denied');
  assert.deepEqual(
    r.calls.map((c) => c.decision),
    ['denied'],
  );
  assert.deepEqual((asked[0] as { evidence: unknown }).evidence, { kind: 'delete', source: 'GET /items/{id}', title: 'Concert' });
});

test('the approval dialog shows each header the request sends, the key masked in its place', async () => {
  const shown: unknown[] = [];
  const approvals: ApprovalHook = {
    asksPerson: () => false,
    request: async (req) => {
      shown.push(ofKind(req, 'api-call').headers);
      return { approved: false, by: 'tester', reason: 'no', at: AT, code: 'denied' };
    },
  };
  const schemes: [AuthScheme, string | undefined][] = [
    [{ type: 'bearer' }, 'authorization: Bearer ••••'],
    [{ type: 'basic' }, 'authorization: Basic ••••'],
    [{ type: 'header', name: 'X-Api-Key' }, 'x-api-key: ••••'],
    [{ type: 'cookie', name: 'sid' }, 'cookie: sid=••••'],
    [{ type: 'query', name: 'api_key' }, undefined],
    [{ type: 'none' }, undefined],
  ];
  for (const [auth, line] of schemes) {
    shown.length = 0;
    const { gate } = setup({ policy: 'ask', approvals, auth, getCredential: () => (auth.type === 'basic' ? `u:${KEY}` : KEY) });
    await gate.call({ operationId: 'items.create', body: { a: 1 } }, run());
    const headers = shown[0] as { name: string; value: string; credential?: boolean }[];
    const credential = headers.filter((h) => h.credential).map((h) => `${h.name}: ${h.value.replace(/ \(from .*\)$/, '')}`);
    assert.deepEqual(credential, line ? [line] : [], auth.type);
    assert.equal(headers[0]!.name, 'host');
    assert.match(headers.find((h) => h.credential)?.value ?? '(from keychain: p)', /\(from keychain: p\)$/);
  }
});

test('the kill switch stops an API call as it stops a tool call: before anything is built, and after a yes given while it went on', async () => {
  const on = setup({ killSwitch: () => true });
  const refused = await on.gate.call({ operationId: 'items.list' }, run());
  assert.equal((refused.error as { code: string }).code, 'airlock_kill_switch');
  assert.equal(on.sent.length, 0, 'nothing sent');
  assert.equal(on.records[0]!.decision, 'refused');
  let killed = false;
  const during = setup({
    policy: 'ask',
    killSwitch: () => killed,
    approvals: { asksPerson: () => false, request: async () => ((killed = true), { approved: true, by: 'tester', scope: 'once', at: AT }) },
  });
  const late = await during.gate.call({ operationId: 'items.create', body: { name: 'x' } }, run());
  assert.equal((late.error as { code: string }).code, 'airlock_kill_switch');
  assert.equal(during.sent.length, 0, 'the yes does not let it out');
  assert.equal(during.records[0]!.approval?.by, 'tester', 'the answer is on the record');
});
