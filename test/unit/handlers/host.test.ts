// What only the host provides, built from host and logs only: the web UI's
// login link and a new MCP token are unavailable when the host lacks them,
// and call through to it when it has them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHostHandlers, type HostHandlerServices } from '../../../main/core/runtime/controlHandlers.ts';
import type { Host } from '../../../main/core/runtime/services.ts';
import { airlockError, invoke, logged, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };

function setup(host: Host) {
  const services: HostHandlerServices = { host, logs: testLogs() };
  return { services, handlers: createHostHandlers(services) };
}

test('a host without a web UI or MCP over HTTP: both are unavailable, saying what to do', T, async () => {
  const s = setup({});
  await assert.rejects(invoke(s.handlers, 'ui.loginLink', {}), (error: unknown) => {
    airlockError('unavailable', /web UI is not served/)(error);
    assert.match((error as { hint: string }).hint, /airlock serve --ui/);
    return true;
  });
  await assert.rejects(invoke(s.handlers, 'tokens.rotateMcp', {}), airlockError('unavailable', /no MCP over HTTP/));
  assert.deepEqual(logged(s.services.logs), []);
});

test("ui.loginLink returns the host's link, a new one each time", T, async () => {
  let n = 0;
  const s = setup({ loginLink: () => ({ url: `http://127.0.0.1:7339/login#t${++n}`, expiresAt: '2030-01-01T00:02:00.000Z' }) });
  assert.deepEqual(await invoke(s.handlers, 'ui.loginLink', {}), { url: 'http://127.0.0.1:7339/login#t1', expiresAt: '2030-01-01T00:02:00.000Z' });
  assert.equal((await invoke(s.handlers, 'ui.loginLink', {})).url, 'http://127.0.0.1:7339/login#t2');
});

test('tokens.rotateMcp rotates through the host and logs who did it', T, async () => {
  let rotations = 0;
  const s = setup({
    rotateMcpToken: () => {
      rotations++;
      return { file: '/data/token', endedSessions: 2 };
    },
  });
  assert.deepEqual(await invoke(s.handlers, 'tokens.rotateMcp', {}, { by: 'erin via CLI', channel: 'http' }), { file: '/data/token', endedSessions: 2 });
  assert.equal(rotations, 1);
  assert.deepEqual(logged(s.services.logs, 'warn'), ['MCP token rotated by erin via CLI']);
});

test('the host is read when asked, so a login link added after the handlers were built is used', T, async () => {
  const host: Host = {};
  const s = setup(host);
  await assert.rejects(invoke(s.handlers, 'ui.loginLink', {}), airlockError('unavailable'));
  host.loginLink = () => ({ url: 'http://127.0.0.1:7339/login#late', expiresAt: '2030-01-01T00:02:00.000Z' });
  assert.equal((await invoke(s.handlers, 'ui.loginLink', {})).url, 'http://127.0.0.1:7339/login#late');
});
