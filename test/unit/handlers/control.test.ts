// createControlHandlers merges every group into the whole control API: one
// handler for each method of the contract, none more, and the two it defines
// itself (status, sessions.list) answer as the contract says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createControlHandlers } from '../../../main/core/runtime/controlHandlers.ts';
import type { Services } from '../../../main/core/runtime/services.ts';
import { CONTROL_METHOD_NAMES } from '../../../contract/methods.ts';
import { controlContract } from '../../../contract/control.ts';
import { openAuditStore } from '../../../main/core/audit/auditStore.ts';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { GrantStore } from '../../../main/core/approvals/grantStore.ts';
import { SessionRegistry } from '../../../main/core/mcp/sessionRegistry.ts';
import { EventHub } from '../../../main/core/control/eventHub.ts';
import { createMemoryStore } from '../../../main/core/secrets/memoryStore.ts';
import { tempDir } from '../../helpers/paths.ts';
import {
  airlockError,
  companionInfo,
  fakeKeys,
  servedApisOf,
  fakeEngines,
  fakeRuns,
  invoke,
  noUpstream,
  noToolGate,
  liveSettings,
  shopApi,
  testLogs,
} from '../../helpers/handlerServices.ts';
import { ServerStore } from '../../../main/core/upstream/serverStore.ts';
import { PinStore } from '../../../main/core/upstream/toolPins.ts';

const T = { timeout: 10_000 };

async function setup(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-control-handlers-');
  const audit = openAuditStore({ file: join(dir, 'audit.sqlite'), synchronous: 'normal' });
  t.after(() => {
    audit.close();
    cleanup();
  });
  const api = shopApi();
  const services: Services = {
    info: companionInfo(dir),
    settings: liveSettings(dir),
    logs: testLogs(),
    preparation: { prepare: () => Promise.reject(new Error('not prepared in this test')), close: () => undefined },
    apis: await servedApisOf(api),
    keys: fakeKeys(createMemoryStore()),
    audit,
    broker: new ApprovalBroker({ timeoutMs: 600_000, approversAvailable: () => true, noApproverMessage: 'no one to ask', grants: new GrantStore() }),
    engines: fakeEngines(),
    upstream: noUpstream(),
    serverEntries: new ServerStore(companionInfo(dir).paths.servers),
    serverReviews: new PinStore(companionInfo(dir).paths.serverReviews),
    toolGate: noToolGate(),
    runs: fakeRuns(),
    sessions: new SessionRegistry(),
    hub: new EventHub(),
    host: {},
  };
  return { api, services, handlers: createControlHandlers(services) };
}

test('createControlHandlers has a handler for every method of the contract, and no other', T, async (t) => {
  const { handlers } = await setup(t);
  assert.deepEqual(Object.keys(handlers).sort(), [...CONTROL_METHOD_NAMES].sort());
  assert.deepEqual(Object.keys(handlers).sort(), Object.keys(controlContract).sort());
  for (const [method, handler] of Object.entries(handlers)) assert.equal(typeof handler, 'function', method);
});

test('status and sessions.list answer from the services, as the contract says', T, async (t) => {
  const s = await setup(t);
  assert.deepEqual(await invoke(s.handlers, 'sessions.list', {}), []);
  s.services.sessions.open({ key: 'stdio:7', transport: 'stdio', clientName: 'codex' });
  assert.deepEqual(
    (await invoke(s.handlers, 'sessions.list', {})).map((x) => [x.key, x.clientName]),
    [['stdio:7', 'codex']],
  );
  const status = await invoke(s.handlers, 'status', {});
  assert.equal(status.profile, 'shop');
  assert.equal(status.sessions.length, 1);
  assert.equal(status.engine, 'quickjs');
});

test('the merged handlers are the groups built from the same services', T, async (t) => {
  const s = await setup(t);
  // A key set through the whole API is in the store the services hold; a host without a web UI says so.
  await invoke(s.handlers, 'keys.set', { profile: 'shop', secret: 'sk-test-0123456789' });
  assert.equal(await s.services.keys.store.get('shop'), 'sk-test-0123456789');
  await assert.rejects(invoke(s.handlers, 'ui.loginLink', {}), airlockError('unavailable'));
  assert.equal((await invoke(s.handlers, 'profiles.operations', {})).length, s.api.catalogue.operations.length);
});
