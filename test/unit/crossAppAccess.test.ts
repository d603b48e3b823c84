// Cross-app access (SEP-990): the person's ID token from their identity
// provider is exchanged there for an authorization grant naming the server's
// authorization server and the MCP server, and that grant is what Airlock
// gives the authorization server, signing in as its own client. The whole
// flow against the official conformance suite is in
// test/integration/conformanceClient.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrossAppAccessProvider } from '../../main/core/upstream/crossAppAccess.ts';
import { serverEntrySchema } from '../../main/core/upstream/serverEntry.ts';

function provider(answer: (body: URLSearchParams) => Response, issuer = 'https://auth.example.com/') {
  const sent: { url: string; body: URLSearchParams }[] = [];
  const learnt: string[] = [];
  const p = new CrossAppAccessProvider({
    serverUrl: 'https://mcp.example.com/mcp',
    clientId: 'airlock-at-as',
    clientSecret: 'as-secret-0123456789',
    idpTokenEndpoint: 'https://idp.example.com/oauth2/token',
    idpClientId: 'airlock-at-idp',
    idToken: async () => 'eyJ.id-token.sig',
    fetch: (async (url: string | URL, init?: RequestInit) => {
      const body = new URLSearchParams(String(init?.body));
      sent.push({ url: String(url), body });
      return answer(body);
    }) as typeof fetch,
    onSecret: (v) => learnt.push(v),
  });
  p.saveDiscoveryState({
    authorizationServerUrl: 'https://auth.example.com',
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: 'https://auth.example.com/authorize',
      token_endpoint: 'https://auth.example.com/token',
      response_types_supported: ['code'],
    },
    resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'] },
  });
  return { p, sent, learnt };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

test('the ID token is exchanged for a grant naming the authorization server and the MCP server; the grant is what the token request carries', async () => {
  const { p, sent, learnt } = provider(() =>
    json(200, { access_token: 'id-jag-GRANT-0123456789', issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }),
  );
  const request = await p.prepareTokenRequest('mcp:read');
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.url, 'https://idp.example.com/oauth2/token');
  assert.deepEqual(Object.fromEntries(sent[0]!.body), {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    subject_token: 'eyJ.id-token.sig',
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    audience: 'https://auth.example.com',
    resource: 'https://mcp.example.com/mcp',
    client_id: 'airlock-at-idp',
    scope: 'mcp:read',
  });
  assert.deepEqual(Object.fromEntries(request), {
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: 'id-jag-GRANT-0123456789',
    scope: 'mcp:read',
  });
  assert.deepEqual(learnt, ['id-jag-GRANT-0123456789'], 'the grant is known to the redactor');
  assert.deepEqual(p.clientInformation(), { client_id: 'airlock-at-as', client_secret: 'as-secret-0123456789' });
  assert.equal(p.redirectUrl, undefined, 'no browser');
});

test('a refusal by the identity provider says what it said and what to do; another kind of token is refused', async () => {
  const refused = provider(() => json(400, { error: 'invalid_grant', error_description: 'ID token expired' }));
  await assert.rejects(refused.p.prepareTokenRequest(), (e: Error & { hint?: string }) => {
    assert.match(e.message, /the identity provider refused the token exchange \(invalid_grant: ID token expired\)/);
    assert.match(e.hint ?? '', /idp-id-token/);
    return true;
  });
  const wrongKind = provider(() => json(200, { access_token: 'x'.repeat(20), issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' }));
  await assert.rejects(wrongKind.p.prepareTokenRequest(), /issued a urn:ietf:params:oauth:token-type:access_token, not an authorization grant/);
  const broken = provider(() => new Response('<html>oops</html>', { status: 502 }));
  await assert.rejects(broken.p.prepareTokenRequest(), /refused the token exchange \(HTTP 502\)/);
});

test('an authorization server whose metadata names another issuer gets no grant: nothing goes to the identity provider', async () => {
  const { p, sent } = provider(() => json(200, { access_token: 'never' }), 'https://victim-as.example.com');
  await assert.rejects(p.prepareTokenRequest(), /says it is https:\/\/victim-as\.example\.com: no grant is asked/);
  assert.equal(sent.length, 0);
});

test('an entry signs in one way only, and reaches its identity provider over HTTPS (or on this machine)', () => {
  const base = { transport: 'http', url: 'https://mcp.example.com/mcp' };
  const crossApp = { clientId: 'a', idpTokenEndpoint: 'https://idp.example.com/token', idpClientId: 'b' };
  assert.equal(serverEntrySchema.safeParse({ ...base, crossApp }).success, true);
  assert.equal(serverEntrySchema.safeParse({ ...base, crossApp: { ...crossApp, idpTokenEndpoint: 'http://127.0.0.1:9000/token' } }).success, true);
  const plain = serverEntrySchema.safeParse({ ...base, crossApp: { ...crossApp, idpTokenEndpoint: 'http://idp.example.com/token' } });
  assert.match(JSON.stringify(plain.error?.issues), /must be HTTPS/);
  const both = serverEntrySchema.safeParse({ ...base, crossApp, clientCredentials: { clientId: 'c' } });
  assert.match(JSON.stringify(both.error?.issues), /three ways to sign in: give one/);
});
