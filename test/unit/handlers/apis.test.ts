// The APIs' on/off methods, built from info, apis, logs and the audit only:
// every profile listed with whether it is served and how, and when it was
// last called; enabling serves an API at once and saves the choice;
// disabling stops serving it and saves that; an API that fails to load says
// why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileStore } from '../../../main/core/profiles/profileStore.ts';
import { createApiHandlers } from '../../../main/core/runtime/apiHandlers.ts';
import { join } from 'node:path';
import { openAuditStore } from '../../../main/core/audit/auditStore.ts';
import { tempDir } from '../../helpers/paths.ts';
import { companionInfo, invoke, logged, servedApisOf, shopApi, shopApiCall, shopProfile, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 15_000 };

async function setup(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-api-handlers-');
  t.after(cleanup);
  const info = companionInfo(dir);
  const store = new ProfileStore(info.paths.profiles);
  await store.save(shopProfile());
  const apis = await servedApisOf(shopApi(store.get('shop')));
  const audit = openAuditStore({ file: join(dir, 'audit.sqlite'), synchronous: 'normal' });
  t.after(() => audit.close());
  const services = { info, apis, logs: testLogs(), audit };
  return { store, services, handlers: createApiHandlers(services) };
}

test('apis.list: every profile, served or not, with its state; the OpenAgenda preset starts off', T, async (t) => {
  const s = await setup(t);
  const list = await invoke(s.handlers, 'apis.list', {});
  const byName = Object.fromEntries(list.map((a) => [a.name, [a.enabled, a.state, a.operations]]));
  assert.deepEqual(byName, { demo: [true, 'disabled', undefined], openagenda: [false, 'disabled', undefined], shop: [true, 'ready', 5] });
  // Each names the variable its key may be given in; a served one, the key it runs with (where from, never the key).
  const keys = Object.fromEntries(list.map((a) => [a.name, [a.keyEnv, a.credential?.source]]));
  assert.deepEqual(keys, { demo: ['AIRLOCK_KEY_DEMO', undefined], openagenda: ['AIRLOCK_KEY_OPENAGENDA', undefined], shop: ['AIRLOCK_KEY_SHOP', 'none'] });
});

test('apis.disable stops serving and saves the choice; apis.enable serves again at once and saves that', T, async (t) => {
  const s = await setup(t);
  const off = await invoke(s.handlers, 'apis.disable', { name: 'shop' });
  assert.deepEqual([off.enabled, off.state], [false, 'disabled']);
  assert.equal(s.services.apis.get('shop'), undefined, 'no longer served');
  assert.equal(s.store.get('shop').enabled, false, 'saved in profiles/shop.json');
  assert.match(logged(s.services.logs, 'info').at(-1)!, /API shop disabled by alice via test: new calls to it are refused/);

  const on = await invoke(s.handlers, 'apis.enable', { name: 'shop' });
  assert.deepEqual([on.enabled, on.state, on.operations], [true, 'ready', 5]);
  assert.equal(s.store.get('shop').enabled, true, 'saved');
});

test('an API that cannot be loaded is enabled but failed, with the reason; an unknown one is refused', T, async (t) => {
  const s = await setup(t);
  const demo = await invoke(s.handlers, 'apis.enable', { name: 'demo' });
  assert.deepEqual([demo.enabled, demo.state, demo.error], [true, 'failed', 'no network in handler tests']);
  assert.match(logged(s.services.logs, 'info').at(-1)!, /API demo enabled by alice via test: it could not be loaded: no network in handler tests/);
  await assert.rejects(invoke(s.handlers, 'apis.enable', { name: 'nope' }), /unknown profile 'nope'/);
});

test('apis.list says when each API was last called, from the audit log, and a call just made moves it', T, async (t) => {
  const s = await setup(t);
  const lastUsed = async () => Object.fromEntries((await invoke(s.handlers, 'apis.list', {})).map((a) => [a.name, a.lastUsed]));
  assert.deepEqual(await lastUsed(), { demo: undefined, openagenda: undefined, shop: undefined }, 'never called');
  const call = (startedAt: string, profile = 'shop') => shopApiCall({ profile, startedAt });
  await s.services.audit.recordApiCall(call('2026-11-20T10:00:00.000Z'));
  await s.services.audit.recordApiCall(call('2026-11-21T09:30:00.000Z', 'demo'));
  assert.deepEqual(await lastUsed(), { demo: '2026-11-21T09:30:00.000Z', openagenda: undefined, shop: '2026-11-20T10:00:00.000Z' });
  await s.services.audit.recordApiCall(call('2026-11-22T08:00:00.000Z'));
  assert.equal((await lastUsed()).shop, '2026-11-22T08:00:00.000Z', 'the newest call, once recorded');
});
