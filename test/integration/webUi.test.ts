// The web mode's doors: a one-time login link becomes an HttpOnly,
// SameSite=Strict session cookie; the session, the control token and the MCP
// token each open only their own door; calls from another origin or without
// the UI header are refused; pages carry a strict CSP; no file outside the
// built UI is served.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { serve, type Served } from '../helpers/processes.ts';
import { tempDir } from '../helpers/paths.ts';
import { loginLink } from '../helpers/browser.ts';

let server: Served;
let dataDir: string;
let cleanup: () => void;

before(async () => {
  ({ dir: dataDir, cleanup } = tempDir());
  server = await serve(dataDir, ['--ui']);
});
after(async () => {
  await server.stop();
  cleanup();
});

const tokenOf = (link: string) => /#login=([0-9a-f]{64})$/.exec(link)![1]!;
const login = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/ui/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify({ token }),
  });
const rpc = (method: string, headers: Record<string, string>) =>
  fetch(`${server.url}/ui/api/rpc/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

test('a login link works once, and gives an HttpOnly, SameSite=Strict session cookie', { timeout: 30_000 }, async () => {
  const token = tokenOf(await loginLink(dataDir));
  const first = await login(token);
  assert.equal(first.status, 200);
  const cookie = first.headers.get('set-cookie')!;
  assert.match(cookie, /^airlock_ui=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/ui/);
  const again = await login(token);
  assert.equal(again.status, 401);
  assert.match(((await again.json()) as { error: { hint: string } }).error.hint, /airlock open/);
  const session = cookie.split(';')[0]!;
  const ok = await rpc('status', { cookie: session, 'x-airlock-ui': '1', origin: server.url });
  assert.equal(ok.status, 200);
});

test('each credential opens only its own door', { timeout: 30_000 }, async () => {
  const session = (await login(tokenOf(await loginLink(dataDir)))).headers.get('set-cookie')!.split(';')[0]!;
  // The MCP token does not open the UI API, nor the control API.
  assert.equal((await rpc('approvals.list', { authorization: `Bearer ${server.token}`, 'x-airlock-ui': '1' })).status, 401);
  // The UI session does not open MCP, nor the control API.
  const mcp = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { cookie: session, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  assert.equal(mcp.status, 401);
  const control = await fetch(`${server.url}/control/rpc/status`, { method: 'POST', headers: { cookie: session }, body: '{}' });
  assert.equal(control.status, 401);
});

test('calls from another origin, or without the UI header, are refused', { timeout: 30_000 }, async () => {
  const session = (await login(tokenOf(await loginLink(dataDir)))).headers.get('set-cookie')!.split(';')[0]!;
  const port = Number(new URL(server.url).port);
  const foreign = await rpc('approvals.list', { cookie: session, 'x-airlock-ui': '1', origin: `http://127.0.0.1:${port + 1}` });
  assert.equal(foreign.status, 403);
  const noHeader = await rpc('approvals.list', { cookie: session, origin: server.url });
  assert.equal(noHeader.status, 403);
  const evil = await rpc('approvals.list', { cookie: session, 'x-airlock-ui': '1', origin: 'https://evil.example' });
  assert.equal(evil.status, 403);
  // A login from another page is refused too.
  assert.equal((await login(tokenOf(await loginLink(dataDir)), { origin: 'https://evil.example' })).status, 403);
});

test('the page carries a strict CSP and no file outside the built UI is served', { timeout: 30_000 }, async () => {
  const page = await fetch(`${server.url}/ui/`);
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy')!;
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  for (const path of ['/ui/../token', '/ui/%2e%2e/token', '/ui/..%2ftoken', '/ui/%2e%2e%2f%2e%2e%2fetc%2fpasswd']) {
    const body = await rawGet(path);
    assert.ok(!body.includes(server.token), path);
    assert.doesNotMatch(body, /root:x:0:0/, path);
  }
});

/** A GET with the path sent exactly as written (fetch would normalise dot segments). */
function rawGet(path: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    req.on('error', reject);
    req.end();
  });
}
