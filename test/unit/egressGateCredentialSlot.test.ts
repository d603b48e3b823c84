// Attack: the script fills the slot the API key travels in (query:NAME), by a
// route the first check did not look at — an exploded object parameter, or a
// same-origin redirect whose Location names the key's parameter. Upstream must
// see the gate's key, once, and nothing the script chose beside it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createEgressGate } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import type { AuthScheme } from '../../main/core/config/auth.ts';
import { startEchoApi, echoCatalogue, type EchoApi } from '../helpers/echoApi.ts';

const KEY = 'sk_live_CANARY_0123456789abcdef';
let echo: EchoApi;

before(async () => {
  echo = await startEchoApi();
});
after(() => echo.close());

const run = (): RunContext => ({
  runId: 'run-slot',
  caller: { key: 'test', transport: 'internal' },
  scriptSha256: 'abc',
  script: 'return 1',
  calls: [],
  control: { whilePaused: (wait) => wait() },
});

function gate(auth: AuthScheme, records: ApiCallRecord[] = []) {
  return createEgressGate({
    api: {
      profile: { name: 'echo', spec: 'x', policy: 'allow', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc' },
      baseUrl: echo.url,
      auth,
      catalogue: echoCatalogue(),
    },
    getCredential: () => KEY,
    redactor: () => createRedactor([KEY]),
    onApiCall: (r) => void records.push(r),
  });
}

const keyValues = (url: string, name: string) => new URL(url, 'http://x').searchParams.getAll(name);

test('attack: an exploded object parameter cannot add the query parameter that carries the key', async () => {
  const before = echo.received.length;
  // search.run declares no parameter: an object is sent form-exploded, one pair per field.
  const r = await gate({ type: 'query', name: 'api_key' }).call({ operationId: 'search.run', query: { q: { api_key: 'mine' } } }, run());
  assert.equal((r.error as { code: string }).code, 'airlock_invalid_request');
  assert.match((r.error as { message: string }).message, /'api_key' carries the API key/);
  assert.equal(echo.received.length, before, 'nothing reached the API');
  // A declared array parameter of that name is refused as well, as is the plain form.
  const plain = await gate({ type: 'query', name: 'tag' }).call({ operationId: 'items.list', query: { tag: ['a', 'b'] } }, run());
  assert.equal((plain.error as { code: string }).code, 'airlock_invalid_request');
  assert.equal(echo.received.length, before);
});

test('attack: a followed redirect whose Location names the key parameter goes out with the gate key only', async () => {
  for (const name of ['api_key', 'api%5Fkey']) {
    const records: ApiCallRecord[] = [];
    const before = echo.received.length;
    const r = await gate({ type: 'query', name: 'api_key' }, records).call(
      { operationId: 'bounce.get', path: { status: '302' }, query: { to: `/v1/search?x=1&${name}=mine&y=a%20b` } },
      run(),
    );
    assert.equal(r.status, 200, name);
    assert.equal(echo.received.length, before + 2, name);
    const followed = echo.received.at(-1)!.url;
    assert.deepEqual(keyValues(followed, 'api_key'), [KEY], `${name}: ${followed}`);
    assert.match(followed, /^\/v1\/search\?x=1&y=a%20b&api_key=/, 'the rest of the query is kept as the API wrote it');
    assert.equal(records.at(-1)!.url.includes('mine'), false, 'the record shows what was sent');
  }
});

test('a followed redirect that hands the key back in its Location (a pagination link) sends it once', async () => {
  const before = echo.received.length;
  const r = await gate({ type: 'query', name: 'api_key' }).call(
    { operationId: 'bounce.get', path: { status: '302' }, query: { to: `/v1/search?page=2&api_key=${KEY}` } },
    run(),
  );
  assert.equal(r.status, 200);
  assert.equal(echo.received.length, before + 2);
  assert.deepEqual(keyValues(echo.received.at(-1)!.url, 'api_key'), [KEY]);
  assert.deepEqual(keyValues(echo.received.at(-1)!.url, 'page'), ['2']);
});

test('attack: the key’s place under any spelling a server may read as its name — case, [] suffix, encoding, the other part of the request', async () => {
  const refused = async (auth: AuthScheme, call: Parameters<ReturnType<typeof gate>['call']>[0], what: string) => {
    const before = echo.received.length;
    const r = await gate(auth).call(call, run());
    assert.equal((r.error as { code?: string } | undefined)?.code, 'airlock_invalid_request', what);
    assert.equal(echo.received.length, before, `${what}: nothing reached the API`);
  };
  const query = { type: 'query', name: 'api_key' } as const;
  for (const name of ['API_KEY', 'api_key[]', 'api_key[0]', 'api.key', 'api-key', 'api%5Fkey'])
    await refused(query, { operationId: 'search.run', query: { [name]: 'mine' } }, `query ${name}`);
  await refused(query, { operationId: 'search.run', query: { q: { 'api_key[]': 'mine' } } }, 'exploded api_key[]');
  // A server may look for a query key in a header of that name first (APISIX), and the other way round.
  await refused(query, { operationId: 'search.run', headers: { api_key: 'mine' } }, 'header named like the query key');
  const header = { type: 'header', name: 'X-Api-Key' } as const;
  await refused(header, { operationId: 'search.run', headers: { x_api_key: 'mine' } }, 'x_api_key beside X-Api-Key (CGI reads both as HTTP_X_API_KEY)');
  await refused(header, { operationId: 'search.run', query: { 'x-api-key': 'mine' } }, 'query parameter named like the header key');
});

test('attack: a redirect’s Location cannot put a value in the key’s place under another spelling or after a ;', async () => {
  for (const name of ['API_KEY', 'api_key[]', 'api_key%5B%5D', 'x=1;api_key']) {
    const before = echo.received.length;
    const r = await gate({ type: 'query', name: 'api_key' }).call(
      { operationId: 'bounce.get', path: { status: '302' }, query: { to: `/v1/search?${name}=mine&y=2` } },
      run(),
    );
    assert.equal(r.status, 200, name);
    assert.equal(echo.received.length, before + 2, name);
    const followed = echo.received.at(-1)!.url;
    assert.equal(followed.includes('mine'), false, `${name}: ${followed}`);
    assert.deepEqual(keyValues(followed, 'api_key'), [KEY], `${name}: ${followed}`);
  }
});

test('a shared redactor that does not know the key (wiring gone wrong) still never lets the key back to the script', async () => {
  const g = createEgressGate({
    api: {
      profile: { name: 'echo', spec: 'x', policy: 'allow', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc' },
      baseUrl: echo.url,
      auth: { type: 'bearer' },
      catalogue: echoCatalogue(),
    },
    getCredential: () => KEY,
    redactor: () => createRedactor([]),
  });
  // The echo API sends back the headers it received, the key among them.
  const r = await g.call({ operationId: 'search.run' }, run());
  assert.equal(r.status, 200);
  assert.equal(JSON.stringify(r).includes(KEY), false);
  assert.equal((await g.redactor()).leaks(KEY), true, "the gate's redactor knows the key");
});
