// One place per auth scheme: what inject writes is exactly what strip removes
// and what mask shows, for every scheme, so the three can no longer disagree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MASK,
  credentialPlacement,
  credentialProblem,
  injectCredential,
  maskedCredential,
  stripCredential,
  type Outgoing,
} from '../../main/core/egress/credentialPlacement.ts';
import type { AuthScheme } from '../../main/core/config/auth.ts';

const KEY = 'sk_live_PLACE_0123456789';
const SCHEMES: AuthScheme[] = [
  { type: 'bearer' },
  { type: 'basic' },
  { type: 'header', name: 'X-Api-Key' },
  { type: 'query', name: 'api_key' },
  { type: 'cookie', name: 'sid' },
  { type: 'none' },
];
const request = (): Outgoing => ({ headers: { accept: 'application/json', cookie: 'region=eu' }, pathAndQuery: '/v1/items?tag=a%20b' });

test('inject puts the key where each scheme says, written as it says', () => {
  const sent = (auth: AuthScheme, key = KEY) => injectCredential(credentialPlacement(auth), request(), key);
  assert.equal(sent({ type: 'bearer' }).headers.authorization, `Bearer ${KEY}`);
  assert.equal(sent({ type: 'basic' }, `u:${KEY}`).headers.authorization, `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}`);
  assert.equal(sent({ type: 'header', name: 'X-Api-Key' }).headers['x-api-key'], KEY);
  assert.equal(sent({ type: 'query', name: 'api_key' }).pathAndQuery, `/v1/items?tag=a%20b&api_key=${KEY}`);
  assert.equal(sent({ type: 'cookie', name: 'sid' }).headers.cookie, `region=eu; sid=${KEY}`);
  assert.deepEqual(sent({ type: 'none' }), request());
  for (const auth of SCHEMES)
    assert.deepEqual(injectCredential(credentialPlacement(auth), request(), undefined), request(), `${auth.type}: no key, nothing added`);
  assert.equal(
    injectCredential(credentialPlacement({ type: 'query', name: 'k y' }), { headers: {}, pathAndQuery: '/x' }, 'a&b').pathAndQuery,
    '/x?k%20y=a%26b',
  );
});

test('for every scheme, strip removes exactly what inject adds, and mask names the same header', () => {
  for (const auth of SCHEMES) {
    const placement = credentialPlacement(auth);
    const key = auth.type === 'basic' ? `u:${KEY}` : KEY;
    const injected = injectCredential(placement, request(), key);
    assert.deepEqual(stripCredential(placement, injected), request(), `${auth.type}: stripped back to the request`);
    assert.equal(JSON.stringify(stripCredential(placement, injected)).includes(KEY), false, auth.type);
    const added = Object.keys(injected.headers).filter((h) => injected.headers[h] !== request().headers[h]);
    const masked = maskedCredential(placement);
    assert.deepEqual(added, masked ? [masked.name] : [], `${auth.type}: the masked header is the one the key goes in`);
    if (masked) assert.ok(masked.value.endsWith(MASK) && !masked.value.includes(KEY), auth.type);
  }
});

test('mask shows the key’s place with the key replaced', () => {
  const shown = SCHEMES.map((auth) => maskedCredential(credentialPlacement(auth)));
  assert.deepEqual(shown, [
    { name: 'authorization', value: `Bearer ${MASK}` },
    { name: 'authorization', value: `Basic ${MASK}` },
    { name: 'x-api-key', value: MASK },
    undefined,
    { name: 'cookie', value: `sid=${MASK}` },
    undefined,
  ]);
});

test('strip empties the key’s place of any value, however the query spells its name, and leaves the rest as written', () => {
  const query = credentialPlacement({ type: 'query', name: 'api_key' });
  const strip = (pathAndQuery: string) => stripCredential(query, { headers: {}, pathAndQuery }).pathAndQuery;
  assert.equal(strip('/v1/items?x=1&api_key=mine&y=a%20b'), '/v1/items?x=1&y=a%20b');
  assert.equal(strip('/v1/items?api%5Fkey=mine&api_key=two'), '/v1/items');
  assert.equal(strip('/v1/items?api_keys=1&xapi_key=2&api_key'), '/v1/items?api_keys=1&xapi_key=2');
  assert.equal(strip('/v1/items?a=%zz'), '/v1/items?a=%zz', 'untouched when the name is absent');
  const cookie = credentialPlacement({ type: 'cookie', name: 'sid' });
  assert.deepEqual(stripCredential(cookie, { headers: { cookie: 'a=1; sid=x;b=2' }, pathAndQuery: '/' }).headers, { cookie: 'a=1; b=2' });
  assert.deepEqual(stripCredential(cookie, { headers: { cookie: 'sid=x' }, pathAndQuery: '/' }).headers, {});
  assert.deepEqual(stripCredential(cookie, { headers: { cookie: 'a=1;b=2' }, pathAndQuery: '/' }).headers, { cookie: 'a=1;b=2' });
  const header = credentialPlacement({ type: 'header', name: 'X-Api-Key' });
  assert.deepEqual(stripCredential(header, { headers: { 'x-api-key': 'mine', accept: '*/*' }, pathAndQuery: '/' }).headers, { accept: '*/*' });
  const before = { headers: { authorization: 'Bearer mine' }, pathAndQuery: '/' };
  stripCredential(credentialPlacement({ type: 'bearer' }), before);
  assert.equal(before.headers.authorization, 'Bearer mine', 'the request given is not changed');
});

test('inject replaces what is in the key’s place: the key goes out once, the gate’s own', () => {
  const query = credentialPlacement({ type: 'query', name: 'api_key' });
  assert.equal(injectCredential(query, { headers: {}, pathAndQuery: '/s?api_key=mine&q=1' }, KEY).pathAndQuery, `/s?q=1&api_key=${KEY}`);
  const cookie = credentialPlacement({ type: 'cookie', name: 'sid' });
  assert.equal(injectCredential(cookie, { headers: { cookie: 'sid=mine; a=1' }, pathAndQuery: '/' }, KEY).headers.cookie, `a=1; sid=${KEY}`);
});

test('a Basic key must be username:password; other schemes take any key', () => {
  const basic = credentialPlacement({ type: 'basic' });
  assert.equal(credentialProblem(basic, KEY, 'demo'), 'the key of profile demo must be username:password for HTTP Basic auth');
  assert.equal(credentialProblem(basic, `u:${KEY}`, 'demo'), undefined);
  assert.equal(credentialProblem(basic, undefined, 'demo'), undefined, 'no key: nothing to check');
  for (const auth of SCHEMES.filter((s) => s.type !== 'basic')) assert.equal(credentialProblem(credentialPlacement(auth), KEY, 'demo'), undefined, auth.type);
});

test('the request builder refuses the key’s place by the same names (header, query parameter, cookie)', async () => {
  const { buildUpstreamRequest } = await import('../../main/core/egress/requestBuilder.ts');
  const { echoCatalogue } = await import('../helpers/echoApi.ts');
  const catalogue = echoCatalogue();
  const build = (auth: AuthScheme, op: string, call: Record<string, unknown>) => {
    const r = buildUpstreamRequest(catalogue.byId(op)!, { operationId: op, ...call }, '/v1', credentialPlacement(auth));
    return r.ok ? 'ok' : r.message;
  };
  assert.match(build({ type: 'header', name: 'X-Api-Key' }, 'items.list', { headers: { 'X-API-KEY': 'mine' } }), /cannot be set from the sandbox/);
  assert.match(build({ type: 'query', name: 'api_key' }, 'search.run', { query: { api_key: 'mine' } }), /'api_key' carries the API key/);
  assert.match(build({ type: 'query', name: 'api_key' }, 'search.run', { query: { q: { api_key: 'mine' } } }), /'api_key' carries the API key/);
  assert.equal(build({ type: 'query', name: 'api_key' }, 'items.list', { query: { filter: { api_key: 'x' } } }), 'ok', 'filter[api_key] is another name');
  assert.match(build({ type: 'cookie', name: 'region' }, 'prefs.get', { cookies: { region: 'eu' } }), /cookie 'region' carries the API key/);
  assert.equal(build({ type: 'cookie', name: 'region' }, 'prefs.get', { cookies: {} }), 'ok', 'a required cookie the key fills is not missing');
});
