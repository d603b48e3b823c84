import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startGateProxy } from '../../main/core/sandbox/gateProxy.ts';

function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let data = '';
        res.setEncoding('utf8').on('data', (d: string) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test("the gate proxy answers only a live run's token", async (t) => {
  const proxy = await startGateProxy();
  t.after(() => proxy.close());
  const calls: unknown[] = [];
  const run = proxy.openRun(async (call) => {
    calls.push(call);
    return { data: { ok: true }, error: null, status: 200 };
  });
  const body = JSON.stringify({ operationId: 'items.list', query: { a: 1 } });
  const ok = await post(`${proxy.url}/call`, { authorization: `Bearer ${run.token}` }, body);
  assert.equal(ok.status, 200);
  assert.deepEqual(JSON.parse(ok.body), { data: { ok: true }, error: null, status: 200 });
  assert.deepEqual(calls, [{ operationId: 'items.list', query: { a: 1 } }]);

  assert.equal((await post(`${proxy.url}/call`, {}, body)).status, 401);
  assert.equal((await post(`${proxy.url}/call`, { authorization: `Bearer ${'f'.repeat(64)}` }, body)).status, 401);
  assert.equal((await post(`${proxy.url}/call`, { authorization: `Bearer ${run.token}`, host: 'evil.example' }, body)).status, 403);
  run.close();
  assert.equal((await post(`${proxy.url}/call`, { authorization: `Bearer ${run.token}` }, body)).status, 401);
  assert.equal(calls.length, 1);
  assert.equal(proxy.liveRuns(), 0);
});

test("tokens are per run: one run cannot use another's handler", async (t) => {
  const proxy = await startGateProxy();
  t.after(() => proxy.close());
  const a = proxy.openRun(async () => ({ data: 'a', error: null, status: 200 }));
  const b = proxy.openRun(async () => ({ data: 'b', error: null, status: 200 }));
  assert.notEqual(a.token, b.token);
  const body = JSON.stringify({ operationId: 'x' });
  assert.equal(JSON.parse((await post(`${proxy.url}/call`, { authorization: `Bearer ${b.token}` }, body)).body).data, 'b');
  assert.equal((await post(`${proxy.url}/call`, { authorization: `Bearer ${a.token}` }, 'not json')).status, 400);
});
