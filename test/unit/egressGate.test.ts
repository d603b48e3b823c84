// The egress gate against a real loopback API that echoes what it receives.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createEgressGate, type EgressGateOptions } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import type { ApprovalHook } from '../../main/core/approvals/types.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import type { Profile } from '../../main/core/profiles/profile.ts';
import type { AuthScheme } from '../../main/core/config/auth.ts';
import type { ApiCallRequest } from '../../main/core/sandbox/engine.ts';
import { startEchoApi, echoCatalogue, type EchoApi } from '../helpers/echoApi.ts';
import { ofKind } from '../helpers/approvalKinds.ts';

const KEY = 'sk_live_CANARY_0123456789abcdef';
const redactor = createRedactor([KEY]);
let echo: EchoApi;

before(async () => {
  echo = await startEchoApi();
});
after(() => echo.close());

function profile(overrides: Partial<Profile> = {}): Profile {
  return { name: 'echo', spec: 'x', policy: 'allow', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc', ...overrides };
}

function gate(opts: { auth?: AuthScheme; profile?: Partial<Profile>; records?: ApiCallRecord[] } & Partial<EgressGateOptions> = {}) {
  const { auth, profile: p, records, ...rest } = opts;
  return createEgressGate({
    api: { profile: profile(p), baseUrl: echo.url, auth: auth ?? { type: 'bearer' }, catalogue: echoCatalogue() },
    getCredential: () => KEY,
    redactor: () => redactor,
    onApiCall: (r) => void records?.push(r),
    ...rest,
  });
}

let paused = 0;
const run: RunContext = {
  runId: 'run-1',
  caller: { key: 'test', transport: 'internal' },
  scriptSha256: 'abc',
  script: 'return 1',
  calls: [],
  control: {
    whilePaused: async (wait) => {
      paused++;
      return wait();
    },
  },
};
const freshRun = (): RunContext => ({ ...run, calls: [] });

const leaks = (value: unknown) => {
  const text = JSON.stringify(value);
  const forms = [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('hex')];
  return (
    forms.some((f) => text.includes(f)) ||
    Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')
      .toString('latin1')
      .includes(KEY)
  );
};

test('a read reaches the API with the credential added outside the sandbox; nothing returned holds it', async () => {
  const before = echo.received.length;
  const result = await gate().call({ operationId: 'items.list', query: { tag: ['a', 'b'], filter: { kind: 'x y' } } }, run);
  assert.equal(result.status, 200);
  const got = echo.received[before]!;
  assert.equal(got.headers.authorization, `Bearer ${KEY}`);
  assert.equal(got.url, '/v1/items?tag=a&tag=b&filter[kind]=x%20y');
  // The echo API sent the key back in clear, base64, base64url, URL-encoded and hex, in body and headers.
  assert.equal(leaks(result), false);
  const data = result.data as { headers: Record<string, string>; base64: string; hex: string };
  assert.equal(data.headers.authorization, 'Bearer [REDACTED]');
  assert.ok(!Buffer.from(data.base64, 'base64').toString('latin1').includes(KEY));
  assert.match(result.headers!['x-echo-auth']!, /\[REDACTED\]/);
});

test('header and query credentials are injected and scrubbed too; records hold no key', async () => {
  const records: ApiCallRecord[] = [];
  const h = await gate({ auth: { type: 'header', name: 'X-Api-Key' }, records }).call({ operationId: 'items.get', path: { id: '42' } }, run);
  assert.equal(echo.received.at(-1)!.headers['x-api-key'], KEY);
  assert.equal(leaks(h), false);
  const q = await gate({ auth: { type: 'query', name: 'api_key' }, records }).call({ operationId: 'search.run' }, run);
  assert.match(echo.received.at(-1)!.url, new RegExp(`api_key=${KEY}`));
  assert.equal(leaks(q), false);
  assert.equal(leaks(records), false);
  assert.equal(records[1]!.url.includes('api_key'), false);
  // An error response that echoes the key is scrubbed as well.
  const f = await gate({ records }).call({ operationId: 'fail.get' }, run);
  assert.equal(f.status, 422);
  assert.equal(f.data, null);
  assert.deepEqual(f.error, { message: 'bad input', echo: 'Bearer [REDACTED]' });
});

test('the sandbox cannot set the credential header or query parameter itself', async () => {
  const before = echo.received.length;
  const a = await gate().call({ operationId: 'items.list', headers: { Authorization: 'Bearer mine' } }, run);
  assert.equal((a.error as { code: string }).code, 'airlock_invalid_request');
  const b = await gate({ auth: { type: 'query', name: 'api_key' } }).call({ operationId: 'search.run', query: { api_key: 'x' } }, run);
  assert.equal((b.error as { code: string }).code, 'airlock_invalid_request');
  const c = await gate().call({ operationId: 'items.list', headers: { Host: 'evil.example' } }, run);
  assert.equal((c.error as { code: string }).code, 'airlock_invalid_request');
  assert.equal(echo.received.length, before);
});

test('path values cannot leave the operation path', async () => {
  const before = echo.received.length;
  const dots = await gate().call({ operationId: 'items.get', path: { id: '..' } }, run);
  assert.match((dots.error as { message: string }).message, /cannot be '\.\.'/);
  assert.equal(echo.received.length, before);
  await gate().call({ operationId: 'items.get', path: { id: '../../admin?x=1#' } }, run);
  assert.equal(echo.received.at(-1)!.url, '/v1/items/..%2F..%2Fadmin%3Fx%3D1%23');
  const missing = await gate().call({ operationId: 'items.get' }, run);
  assert.match((missing.error as { message: string }).message, /missing path parameter 'id'/);
  const unknown = await gate().call({ operationId: 'nope.nope' }, run);
  assert.equal((unknown.error as { code: string }).code, 'airlock_unknown_operation');
});

test('under deny, and under ask with no approver, a mutation never reaches the API', async () => {
  const before = echo.received.length;
  const records: ApiCallRecord[] = [];
  const denied = await gate({ profile: { policy: 'deny' }, records }).call({ operationId: 'items.create', body: { a: 1 } }, run);
  assert.equal((denied.error as { code: string }).code, 'airlock_mutation_denied');
  const asked = await gate({ profile: { policy: 'ask' }, records }).call({ operationId: 'items.delete', path: { id: '1' } }, run);
  assert.equal((asked.error as { code: string }).code, 'airlock_approval_required');
  assert.match((asked.error as { message: string }).message, /needs a person's approval/);
  const readOnly = await gate({ profile: { readOnly: true }, records }).call({ operationId: 'items.delete', path: { id: '1' } }, run);
  assert.equal((readOnly.error as { code: string }).code, 'airlock_read_only');
  assert.equal(echo.received.length, before);
  assert.deepEqual(
    records.map((r) => r.decision),
    ['denied', 'denied', 'refused'],
  );
});

test('under ask, an approved mutation reaches the API once, with the wait paused', async () => {
  const requests: unknown[] = [];
  const approvals: ApprovalHook = {
    request: async (req) => {
      requests.push(req);
      return { approved: true, by: 'tester', scope: 'once', at: new Date().toISOString() };
    },
  };
  const records: ApiCallRecord[] = [];
  const before = echo.received.length;
  const pausedBefore = paused;
  const result = await gate({ profile: { policy: 'ask' }, approvals, records }).call({ operationId: 'items.create', body: { title: `uses ${KEY}` } }, run);
  assert.equal(result.status, 201);
  assert.equal(echo.received.length, before + 1);
  assert.equal(paused, pausedBefore + 1);
  const req = requests[0] as { operationId: string; method: string; bodyPreview: string };
  assert.equal(req.operationId, 'items.create');
  assert.equal(req.method, 'POST');
  assert.match(req.bodyPreview, /uses \[REDACTED\]/);
  assert.equal(records[0]!.decision, 'approved');
  assert.equal(records[0]!.approval?.by, 'tester');
  const denier: ApprovalHook = { request: async () => ({ approved: false, by: 'tester', reason: 'not today', at: new Date().toISOString(), code: 'denied' }) };
  const no = await gate({ profile: { policy: 'ask' }, approvals: denier }).call({ operationId: 'items.delete', path: { id: '9' } }, run);
  assert.match((no.error as { message: string }).message, /was not approved: not today/);
  // Only the read Airlock made to show the person the item (evidence); the DELETE never reached the API.
  assert.deepEqual(
    echo.received.slice(before + 1).map((r) => r.method),
    ['GET'],
  );
});

test('a read marked as a mutation in the profile is treated as one', async () => {
  const before = echo.received.length;
  const r = await gate({ profile: { policy: 'deny', mutations: ['search.run'] } }).call({ operationId: 'search.run' }, run);
  assert.equal((r.error as { code: string }).code, 'airlock_mutation_denied');
  assert.equal(echo.received.length, before);
});

test('redirects: same origin followed, another origin refused', async () => {
  const home = await gate().call({ operationId: 'redirect.home' }, run);
  assert.equal(home.status, 200);
  assert.equal((home.data as { url: string }).url, '/v1/items');
  const away = await gate().call({ operationId: 'redirect.away' }, run);
  assert.equal((away.error as { code: string }).code, 'airlock_redirect_refused');
});

test('a DNS origin resolving to a private address is refused before any connection', async () => {
  let connected = 0;
  const g = createEgressGate({
    api: { profile: profile(), baseUrl: 'https://api.internal.test/v1', auth: { type: 'bearer' }, catalogue: echoCatalogue() },
    getCredential: () => KEY,
    redactor: () => redactor,
    resolver: async () => [{ address: '10.0.0.7', family: 4 }],
    transport: async () => {
      connected++;
      throw new Error('should not connect');
    },
  });
  const r = await g.call({ operationId: 'items.list' }, run);
  assert.equal((r.error as { code: string }).code, 'airlock_blocked_address');
  assert.equal(connected, 0);
});

test('the address that was checked is the one connected to (pinning)', async () => {
  const seen: string[] = [];
  const g = createEgressGate({
    api: { profile: profile(), baseUrl: 'https://api.example.test/v1', auth: { type: 'bearer' }, catalogue: echoCatalogue() },
    getCredential: () => KEY,
    redactor: () => redactor,
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
    transport: async (x) => {
      seen.push(`${x.pinned.address} ${x.origin.hostname} ${x.pathAndQuery}`);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"ok":true}'), truncated: false };
    },
  });
  const r = await g.call({ operationId: 'items.get', path: { id: 'a b' } }, run);
  assert.deepEqual(r.data, { ok: true });
  assert.deepEqual(seen, ['93.184.216.34 api.example.test /v1/items/a%20b']);
});

test('an oversized response and the rate limit end in clear errors', async () => {
  const big = await gate({ responseBytes: 50_000 }).call({ operationId: 'big.get' }, run);
  assert.equal((big.error as { code: string }).code, 'airlock_response_too_large');
  const limited = await gate({ rateLimit: () => false }).call({ operationId: 'items.list' }, run);
  assert.equal(limited.status, 429);
  assert.equal((limited.error as { code: string }).code, 'airlock_rate_limited');
});

test("over the client's rate, a mutation under ask is refused before a person is asked or anything is read, and recorded", async () => {
  const { hook, requests } = scriptedApprovals(['yes']);
  const records: ApiCallRecord[] = [];
  const before = echo.received.length;
  const keys: string[] = [];
  const limited = await gate({ profile: { policy: 'ask' }, approvals: hook, records, rateLimit: (key) => (keys.push(key), false) }).call(
    { operationId: 'items.delete', path: { id: '7' } },
    freshRun(),
  );
  assert.equal((limited.error as { code: string }).code, 'airlock_rate_limited');
  assert.deepEqual(keys, ['test'], "the rate is the caller's");
  assert.equal(requests.length, 0, 'no person was asked');
  assert.equal(echo.received.length, before, 'nothing reached the API, not even a read for evidence');
  assert.deepEqual(
    records.map((r) => [r.decision, r.status]),
    [['refused', 429]],
  );
});

/** An approval hook that records each request and answers from a script of decisions. */
function scriptedApprovals(answers: ('yes' | 'no')[]) {
  const requests: import('../../main/core/approvals/types.ts').ApiCallApprovalRequest[] = [];
  const hook: ApprovalHook = {
    request: async (req) => {
      requests.push(ofKind(req, 'api-call'));
      const answer = answers.shift() ?? 'no';
      const at = new Date().toISOString();
      return answer === 'yes' ? { approved: true, by: 'tester', scope: 'once', at } : { approved: false, by: 'tester', reason: 'no', at, code: 'denied' };
    },
  };
  return { hook, requests };
}

test('attack: a GET with a method-override header or a _method field is classified by the method it asks for', async () => {
  const before = echo.received.length;
  // No approver: every override spelling of a mutation is refused before anything is sent.
  const calls: ApiCallRequest[] = [
    { operationId: 'items.list', headers: { 'X-HTTP-Method-Override': 'DELETE' } },
    { operationId: 'items.list', headers: { 'x-http-method': 'put' } },
    { operationId: 'items.list', headers: { 'X-Method-Override': 'PATCH' } },
    { operationId: 'items.list', headers: { 'X-HTTP-METHOD-OVERRIDE': 'post' } },
    { operationId: 'items.list', query: { _method: 'DELETE' } },
    { operationId: 'items.create', body: { _method: 'delete', a: 1 } },
  ];
  for (const call of calls) {
    const r = await gate({ profile: { policy: 'ask' } }).call(call, freshRun());
    assert.equal((r.error as { code: string }).code, 'airlock_approval_required', JSON.stringify(call));
  }
  assert.equal(echo.received.length, before);
  // With an approver: the person sees the override, the effective method and every header the call will send, the key masked.
  const { hook, requests } = scriptedApprovals(['yes']);
  const ok = await gate({ profile: { policy: 'ask' }, approvals: hook }).call(
    { operationId: 'items.list', headers: { 'X-HTTP-Method-Override': 'DELETE' } },
    freshRun(),
  );
  assert.equal(ok.status, 200);
  const req = requests[0]!;
  assert.equal(req.method, 'DELETE');
  assert.equal(req.reason, 'destructive');
  assert.deepEqual(req.override, { from: 'GET', via: 'x-http-method-override' });
  assert.match(req.rule, /GET overridden to DELETE by x-http-method-override/);
  const names = req.headers.map((h) => h.name);
  assert.ok(names.includes('x-http-method-override') && names.includes('host') && names.includes('accept'), names.join());
  const auth = req.headers.find((h) => h.name === 'authorization')!;
  assert.equal(auth.credential, true);
  assert.match(auth.value, /^Bearer •••• \(from keychain: echo\)$/);
  assert.equal(leaks(requests), false);
  // A read override (GET on a GET) stays a read.
  const read = await gate({ profile: { policy: 'deny' } }).call({ operationId: 'items.list', headers: { 'X-HTTP-Method-Override': 'GET' } }, freshRun());
  assert.equal(read.status, 200);
});

const REDIRECTS = [301, 302, 303, 307, 308] as const;
type Redirected = { code: string; message: string; location: string };

test('attack: an approved mutation answered with any redirect is handed back, never re-sent: every re-send status, every method', async () => {
  for (const status of REDIRECTS) {
    for (const method of ['post', 'put', 'patch', 'delete']) {
      const records: ApiCallRecord[] = [];
      const approvals = scriptedApprovals(['yes', 'yes', 'yes']);
      const before = echo.received.length;
      const body = method === 'delete' ? {} : { body: { wipe: true } };
      const r = await gate({ profile: { policy: 'ask' }, approvals: approvals.hook, records }).call(
        { operationId: `bounce.${method}`, path: { status: String(status) }, ...body },
        freshRun(),
      );
      const what = `${method.toUpperCase()} answered ${status}`;
      // (Besides the GET Airlock makes to show the person the resource as it is now.)
      assert.equal(echo.received.slice(before).filter((x) => x.method !== 'GET').length, 1, `${what}: only the approved request reached the API`);
      assert.equal(approvals.requests.length, 1, `${what}: one decision, for the request the person saw`);
      assert.equal(r.status, status, what);
      const error = r.error as Redirected;
      assert.equal(error.code, 'airlock_redirect_not_followed', what);
      assert.match(error.location, /\/v1\/items\/elsewhere$/, what);
      assert.match(error.message, /does not follow a redirect of a call that may change data/, what);
      assert.equal(r.headers!.location, '/v1/items/elsewhere', what);
      // The evidence read (audited as such, never one of the run's calls) is not followed either: one record, the 3xx.
      assert.deepEqual(
        records.filter((x) => x.decision !== 'evidence').map((x) => [x.method, x.status, x.decision]),
        [[method.toUpperCase(), status, 'approved']],
        what,
      );
    }
  }
});

test('attack: no grant, policy or override carries a mutation through a redirect', async () => {
  const before = echo.received.length;
  // Allowed by policy, without asking: still one request.
  const allowed = await gate({ profile: { policy: 'allow' } }).call({ operationId: 'bounce.delete', path: { status: '307' } }, freshRun());
  assert.equal((allowed.error as Redirected).code, 'airlock_redirect_not_followed');
  // "Rest of this run" (or any grant) answers yes to every later question: a redirect never asks one.
  let asked = 0;
  const grantAll: ApprovalHook = {
    request: async () => (asked++, { approved: true, by: 'grant', scope: 'run', at: new Date().toISOString() }),
  };
  const granted = await gate({ profile: { policy: 'ask' }, approvals: grantAll }).call(
    { operationId: 'bounce.post', path: { status: '308' }, body: { a: 1 } },
    freshRun(),
  );
  assert.equal((granted.error as Redirected).code, 'airlock_redirect_not_followed');
  assert.equal(asked, 1);
  // A GET that an override makes a DELETE is not a read: not followed either.
  const overridden = await gate({ profile: { policy: 'allow' } }).call(
    { operationId: 'bounce.get', path: { status: '302' }, headers: { 'X-HTTP-Method-Override': 'DELETE' } },
    freshRun(),
  );
  assert.equal((overridden.error as Redirected).code, 'airlock_redirect_not_followed');
  assert.equal(echo.received.length, before + 3);
  assert.ok(
    echo.received.slice(before).every((r) => /\/bounce\//.test(r.url)),
    'nothing reached /items/elsewhere',
  );
});

test('a read redirected to a read is followed, whatever the status; one led to anything else is handed back', async () => {
  for (const status of REDIRECTS) {
    for (const method of ['get', 'head', 'options']) {
      const records: ApiCallRecord[] = [];
      const before = echo.received.length;
      const r = await gate({ profile: { policy: 'ask' }, records }).call({ operationId: `bounce.${method}`, path: { status: String(status) } }, freshRun());
      const what = `${method.toUpperCase()} answered ${status}`;
      if (method === 'options' && status !== 303) {
        // The document describes no OPTIONS at the target: it could be anything there, so it is handed back.
        assert.equal((r.error as Redirected).code, 'airlock_redirect_not_followed', what);
        assert.equal(echo.received.length, before + 1, what);
        continue;
      }
      assert.equal(r.status, 200, what);
      const second = echo.received[before + 1]!;
      // 303 makes the next request a GET; the others keep the read's method.
      assert.equal(second.method, status === 303 ? 'GET' : method.toUpperCase(), what);
      assert.equal(second.url, '/v1/items/elsewhere', what);
      assert.deepEqual(
        records.map((x) => x.decision),
        ['read', 'read'],
        what,
      );
    }
  }
  // A read whose target the person wants asked about (operation policy), or marks as a mutation, is not followed, and asks nobody.
  for (const p of [{ operationPolicies: { 'items.get': 'ask' as const } }, { mutations: ['items.get'] }]) {
    const { hook, requests } = scriptedApprovals(['yes']);
    const before = echo.received.length;
    const r = await gate({ profile: { policy: 'ask', ...p }, approvals: hook }).call({ operationId: 'bounce.get', path: { status: '303' } }, freshRun());
    assert.equal(r.status, 303, JSON.stringify(p));
    assert.equal((r.error as Redirected).code, 'airlock_redirect_not_followed', JSON.stringify(p));
    assert.match((r.error as Redirected).message, /nor one that leads a read to something else/);
    assert.equal(requests.length, 0);
    assert.equal(echo.received.length, before + 1);
  }
});

test('attack: a redirect to a read that its Location makes a mutation, or to a path the document does not describe, is handed back', async () => {
  const before = echo.received.length;
  const overridden = await gate({ profile: { policy: 'deny' } }).call(
    { operationId: 'bounce.get', path: { status: '302' }, query: { to: '/v1/items/1?_method=DELETE' } },
    freshRun(),
  );
  assert.equal((overridden.error as Redirected).code, 'airlock_redirect_not_followed');
  // A HEAD runs the GET's handler on most servers: the GET's marks apply to it.
  const head = await gate({ profile: { policy: 'ask', mutations: ['items.get'] } }).call({ operationId: 'bounce.head', path: { status: '307' } }, freshRun());
  assert.equal((head.error as Redirected).code, 'airlock_redirect_not_followed');
  // Spellings the catalogue does not match, but a server may route to a marked operation.
  for (const to of ['/v1/%69tems/x', '/v1//items/x', '/v1/nowhere']) {
    const r = await gate().call({ operationId: 'bounce.get', path: { status: '302' }, query: { to } }, freshRun());
    assert.equal((r.error as Redirected).code, 'airlock_redirect_not_followed', to);
    assert.match((r.error as Redirected).message, /a path the API document does not describe/, to);
  }
  assert.equal(echo.received.length, before + 5, 'only the first requests reached the API');
});

test('a redirect loop ends after three hops, handed back with its Location', async () => {
  const before = echo.received.length;
  const r = await gate().call({ operationId: 'bounce.get', path: { status: '302' }, query: { to: 'self' } }, freshRun());
  assert.equal(r.status, 302);
  assert.equal((r.error as Redirected).code, 'airlock_redirect_not_followed');
  assert.match((r.error as Redirected).message, /redirected more than 3 times/);
  assert.equal(echo.received.length, before + 4);
});

test('an approval is bound to a hash of method, full URL and body', async () => {
  const { hook, requests } = scriptedApprovals(['yes']);
  await gate({ profile: { policy: 'ask' }, approvals: hook }).call({ operationId: 'items.create', body: { a: 1 } }, freshRun());
  const { createHash } = await import('node:crypto');
  const expected = createHash('sha256').update(`POST\n${echo.url}/items\n`).update('{"a":1}').digest('hex');
  assert.equal(requests[0]!.requestHash, expected);
});

test('attack: the key comes back escaped in JSON, as raw bytes, as hex under an unknown type, MIME-wrapped, in pieces, or in a redirect: the script sees none of it', async () => {
  const g = gate();
  const seen: unknown[] = [];
  for (const kind of ['json-escaped', 'binary', 'unknown', 'mime', 'fragment', 'redirect']) {
    const r = await g.call({ operationId: 'leak.get', query: { kind } }, freshRun());
    seen.push(r);
    const text = JSON.stringify(r);
    // Decoded the way the script could decode it: base64 of bytes, JSON escapes, hex, MIME base64.
    const binary = (r.data as { base64?: string } | null)?.base64;
    const decoded = [
      text,
      JSON.stringify(r.data),
      binary ? Buffer.from(binary, 'base64').toString('latin1') : '',
      typeof r.data === 'string' ? Buffer.from(r.data.replace(/\s/g, ''), 'hex').toString('latin1') : '',
      typeof r.data === 'string' ? Buffer.from(r.data.replace(/\s/g, ''), 'base64').toString('latin1') : '',
    ];
    assert.ok(
      decoded.some((d) => d.includes('[REDACTED]')),
      kind,
    );
    for (const d of decoded) for (let i = 0; i + 8 <= KEY.length; i++) assert.ok(!d.includes(KEY.slice(i, i + 8)), `${kind}: ${KEY.slice(i, i + 8)}`);
  }
});

test('HTTP Basic and cookie API keys are sent as the document declares, never silently dropped, and scrubbed', async () => {
  const records: ApiCallRecord[] = [];
  const basic = await createEgressGate({
    api: { profile: profile(), baseUrl: echo.url, auth: { type: 'basic' }, catalogue: echoCatalogue() },
    getCredential: () => `alice:${KEY}`,
    redactor: () => createRedactor([`alice:${KEY}`]),
    onApiCall: (r) => void records.push(r),
  }).call({ operationId: 'items.get', path: { id: '1' } }, run);
  assert.equal(basic.status, 200);
  assert.equal(echo.received.at(-1)!.headers.authorization, `Basic ${Buffer.from(`alice:${KEY}`).toString('base64')}`);
  assert.equal(leaks(basic), false, 'the echoed Basic header is scrubbed');

  const cookie = await gate({ auth: { type: 'cookie', name: 'session_key' }, records }).call({ operationId: 'items.get', path: { id: '2' } }, run);
  assert.equal(echo.received.at(-1)!.headers.cookie, `session_key=${KEY}`);
  assert.equal(leaks(cookie), false);
  assert.equal(leaks(records), false);

  // A Basic credential that is not user:password is refused with a message that says so, and nothing is sent.
  const before = echo.received.length;
  const bad = await createEgressGate({
    api: { profile: profile(), baseUrl: echo.url, auth: { type: 'basic' }, catalogue: echoCatalogue() },
    getCredential: () => KEY,
    redactor: () => redactor,
  }).call({ operationId: 'items.get', path: { id: '3' } }, run);
  assert.equal((bad.error as { code: string }).code, 'airlock_credential_format');
  assert.match((bad.error as { message: string }).message, /username:password/);
  assert.equal(echo.received.length, before);
});

test("cookie parameters go in one Cookie header beside a cookie API key; the sandbox can neither set the key's cookie nor an undeclared one", async () => {
  const ok = await gate({ auth: { type: 'cookie', name: 'session_key' } }).call({ operationId: 'prefs.get', cookies: { region: 'eu west', lang: 'fr' } }, run);
  assert.equal(ok.status, 200);
  assert.equal(echo.received.at(-1)!.headers.cookie, `region=eu%20west; lang=fr; session_key=${KEY}`);
  assert.equal(leaks(ok), false);
  const code = async (cookies: Record<string, unknown>, auth: AuthScheme = { type: 'cookie', name: 'session_key' }) => {
    const r = await gate({ auth }).call({ operationId: 'prefs.get', cookies }, run);
    return [(r.error as { code: string }).code, (r.error as { message: string }).message];
  };
  assert.deepEqual(await code({ lang: 'fr' }), ['airlock_invalid_request', "missing required cookie 'region' for prefs.get: pass { cookies: { region: … } }"]);
  assert.match((await code({ region: 'eu', tracking: 'x' }))[1]!, /unknown cookie parameter 'tracking' for prefs.get \(expected: region, lang\)/);
  assert.match((await code({ region: 'eu', session_key: 'mine' }))[1]!, /unknown cookie parameter 'session_key'|cookie 'session_key' carries the API key/);
  const bearer = await gate().call({ operationId: 'prefs.get', cookies: { region: 'us' } }, run);
  assert.equal(bearer.status, 200);
  assert.equal(echo.received.at(-1)!.headers.cookie, 'region=us');
});
