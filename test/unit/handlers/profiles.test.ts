// The APIs screen's profile methods, built from info, api, gate, logs and hub
// only: the active profile's operations with their policies (filtered by a
// query; another profile's are refused), a policy change that is saved with
// the profile and tells every window (rules-changed), saving a profile
// without silently overwriting one of the same name, listing, removing, and
// inspecting a document before it is saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventHub } from '../../../main/core/control/eventHub.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { ProfileStore } from '../../../main/core/profiles/profileStore.ts';
import type { Profile } from '../../../main/core/profiles/profile.ts';
import { createProfileHandlers, type ProfileHandlerServices } from '../../../main/core/runtime/profileHandlers.ts';
import { tempDir } from '../../helpers/paths.ts';
import {
  airlockError,
  companionInfo,
  invoke,
  liveSettings,
  logged,
  servedApisOf,
  SHOP_DOCUMENT,
  shopApi,
  shopProfile,
  testLogs,
} from '../../helpers/handlerServices.ts';
import { prepareApi } from '../../../main/core/search/preparedApi.ts';
import type { PrepareRequest } from '../../../main/core/search/preparation.ts';

const T = { timeout: 15_000 };

async function setup(t: { after(fn: () => void): void }, profile: Profile = shopProfile()) {
  const { dir, cleanup } = tempDir('airlock-profile-handlers-');
  t.after(cleanup);
  const info = companionInfo(dir);
  const api = shopApi(profile);
  const hub = new EventHub();
  const events: ControlEvent[] = [];
  hub.subscribe({ send: (batch) => void events.push(...batch) });
  // Documents are prepared here, in this process (the companion does it in a child process).
  const preparation = { prepare: (r: PrepareRequest) => prepareApi(r.spec, r), close: () => undefined };
  const services: ProfileHandlerServices = { info, apis: await servedApisOf(api), logs: testLogs(), hub, preparation, settings: liveSettings(dir) };
  const store = new ProfileStore(info.paths.profiles);
  /** The events published so far (the hub batches; this delivers them now). */
  const published = () => {
    hub.flush();
    return events.map((e) => e.type);
  };
  return { dir, info, api, store, services, published, handlers: createProfileHandlers(services) };
}

test("profiles.operations lists the active profile's operations with the policy that applies and where it comes from", T, async (t) => {
  const s = await setup(t, shopProfile({ operationPolicies: { 'products.list': 'deny' } }));
  const ops = await invoke(s.handlers, 'profiles.operations', {});
  const view = Object.fromEntries(ops.map((o) => [o.operationId, [o.method, o.mutation, o.policy, o.policySource]]));
  assert.deepEqual(view, {
    'orders.list': ['GET', false, 'allow', 'read'],
    'orders.create': ['POST', true, 'ask', 'profile'],
    'orders.delete': ['DELETE', true, 'ask', 'profile'],
    'products.list': ['GET', false, 'deny', 'operation'],
    // A read the profile marks as a mutation is one.
    'reports.refresh': ['GET', true, 'ask', 'profile'],
  });
  const products = ops.find((o) => o.operationId === 'products.list')!;
  assert.equal(products.deprecated, true);
  assert.equal(products.call, 'api.products.list');
  assert.equal(products.summary, 'List products');
});

test('profiles.operations filters by a query over id, method, path and summary, ignoring case', T, async (t) => {
  const s = await setup(t);
  const ids = async (query: string) => (await invoke(s.handlers, 'profiles.operations', { query })).map((o) => o.operationId);
  assert.deepEqual(await ids('ORDERS.'), ['orders.list', 'orders.create', 'orders.delete']);
  assert.deepEqual(await ids('cancel'), ['orders.delete'], 'the summary');
  assert.deepEqual(await ids('/reports'), ['reports.refresh'], 'the path');
  assert.deepEqual(await ids('post'), ['orders.create'], 'the method');
  assert.deepEqual(await ids('  '), ['orders.list', 'orders.create', 'orders.delete', 'products.list', 'reports.refresh'], 'a blank query filters nothing');
  assert.deepEqual(await ids('no such thing'), []);
});

test("profiles.operations refuses an API that is not served, and accepts a served one's name", T, async (t) => {
  const s = await setup(t);
  await assert.rejects(
    invoke(s.handlers, 'profiles.operations', { name: 'github' }),
    airlockError('usage', /API 'github' is not served; its operations are listed once it is/),
  );
  assert.equal((await invoke(s.handlers, 'profiles.operations', { name: 'shop' })).length, 5);
});

test('setOperationPolicy applies to the next call, is saved with the profile, and tells every window the rules changed', T, async (t) => {
  const s = await setup(t);
  // The gate holds the profile's map from its start (gateContext.ts): the change must land in that very map.
  const gateReads = (s.api.profile.operationPolicies ??= {});
  const result = await invoke(s.handlers, 'profiles.setOperationPolicy', { operationId: 'orders.create', policy: 'allow' });
  assert.equal(result.saved, true);
  assert.deepEqual(gateReads, { 'orders.create': 'allow' }, 'the map the gate holds has it');
  assert.deepEqual([result.operation.operationId, result.operation.policy, result.operation.policySource], ['orders.create', 'allow', 'operation']);
  assert.deepEqual(s.api.profile.operationPolicies, { 'orders.create': 'allow' }, 'the running profile (what the gate reads) has it');
  assert.deepEqual(s.published(), ['rules-changed']);
  assert.deepEqual(s.store.get('shop').operationPolicies, { 'orders.create': 'allow' }, 'saved in profiles/shop.json');
  const create = (await invoke(s.handlers, 'profiles.operations', { query: 'orders.create' }))[0]!;
  assert.equal(create.policy, 'allow');

  // null: back to the profile's policy.
  const back = await invoke(s.handlers, 'profiles.setOperationPolicy', { operationId: 'orders.create', policy: null });
  assert.deepEqual([back.operation.policy, back.operation.policySource], ['ask', 'profile']);
  assert.deepEqual(s.store.get('shop').operationPolicies, {});
  assert.deepEqual(s.published(), ['rules-changed', 'rules-changed']);
  assert.match(logged(s.services.logs, 'info').at(-1)!, /operation orders\.create: policy the profile's \(ask\) \(alice via test\)/);
});

test('setOperationPolicy of an unknown operation is not found, changes nothing and tells no one', T, async (t) => {
  const s = await setup(t);
  await assert.rejects(
    invoke(s.handlers, 'profiles.setOperationPolicy', { operationId: 'orders.explode', policy: 'deny' }),
    airlockError('not_found', /orders\.explode/),
  );
  assert.equal(s.api.profile.operationPolicies, undefined);
  assert.deepEqual(s.published(), []);
  assert.equal(existsSync(s.store.fileOf('shop')), false);
});

test('an ad hoc profile (--spec) keeps the policy until the companion stops: applied and announced, not saved', T, async (t) => {
  const s = await setup(t, shopProfile({ origin: 'adhoc' }));
  const result = await invoke(s.handlers, 'profiles.setOperationPolicy', { operationId: 'orders.delete', policy: 'deny' });
  assert.equal(result.saved, false);
  assert.equal(s.api.profile.operationPolicies?.['orders.delete'], 'deny');
  assert.deepEqual(s.published(), ['rules-changed']);
  assert.equal(existsSync(s.store.fileOf('shop')), false);
  assert.match(logged(s.services.logs, 'info').at(-1)!, /not saved \(ad hoc profile\)/);
});

test('a policy that cannot be saved is refused, and is not left in effect', T, async (t) => {
  const s = await setup(t);
  // The profiles directory cannot be created: a file is in its place.
  writeFileSync(s.info.paths.profiles, 'not a directory');
  await assert.rejects(invoke(s.handlers, 'profiles.setOperationPolicy', { operationId: 'orders.delete', policy: 'allow' }));
  // The caller was told it failed: the gate must not let deletions through without asking anyway.
  assert.equal(s.api.profile.operationPolicies?.['orders.delete'], undefined, 'the refused policy is not in effect');
});

test('profiles.save refuses a name already taken — saved, built-in or running — unless it is to replace it', T, async (t) => {
  const s = await setup(t, shopProfile({ name: 'adhoc-shop', origin: 'adhoc' }));
  const spec = 'https://api.example.test/openapi.json';
  const first = await invoke(s.handlers, 'profiles.save', { name: 'billing', spec });
  assert.equal(first.file, s.store.fileOf('billing'));
  assert.equal(first.restartRequired, false);
  for (const [name, taken] of [
    ['billing', 'saved'],
    ['demo', 'built-in'],
    ['adhoc-shop', 'running'],
  ] as const) {
    await assert.rejects(invoke(s.handlers, 'profiles.save', { name, spec: 'https://other.example.test/openapi.json' }), (error: unknown) =>
      airlockError('conflict', new RegExp(`a ${taken} profile is already named '${name}'`))(error),
    );
  }
  assert.equal(s.store.get('billing').spec, spec, 'the saved one is untouched');
  assert.equal(existsSync(s.store.fileOf('demo')), false);

  const replaced = await invoke(s.handlers, 'profiles.save', {
    name: 'billing',
    spec: 'https://other.example.test/openapi.json',
    policy: 'deny',
    replace: true,
  });
  assert.equal(replaced.restartRequired, false);
  assert.equal(s.store.get('billing').spec, 'https://other.example.test/openapi.json');
  assert.equal(s.store.get('billing').policy, 'deny');
  assert.ok(logged(s.services.logs, 'info').some((line) => /profile billing replaced \(saved\) by alice via test/.test(line)));
  assert.match(
    logged(s.services.logs, 'info').at(-1)!,
    /API billing served again as saved by alice via test: it could not be loaded: no network in handler tests/,
  );
  // Replacing the running profile serves it again as saved: no restart.
  assert.equal((await invoke(s.handlers, 'profiles.save', { name: 'adhoc-shop', spec, replace: true })).restartRequired, false);
  assert.equal(s.services.apis.get('adhoc-shop')?.profile.origin, 'file', 'served as saved');
});

test('profiles.save writes the fields given, with the defaults for the rest, and refuses a bad auth scheme', T, async (t) => {
  const s = await setup(t);
  await invoke(s.handlers, 'profiles.save', {
    name: 'crm',
    spec: 'https://crm.example.test/openapi.yaml',
    description: 'The CRM',
    auth: 'header:X-Api-Key',
    alias: 'crm',
    operationPolicies: { 'contacts.delete': 'deny' },
  });
  assert.deepEqual(JSON.parse(readFileSync(s.store.fileOf('crm'), 'utf8')), {
    description: 'The CRM',
    spec: 'https://crm.example.test/openapi.yaml',
    auth: 'header:X-Api-Key',
    alias: 'crm',
    enabled: true,
    policy: 'ask',
    readOnly: false,
    allowPrivateNetwork: false,
    mutations: [],
    operationPolicies: { 'contacts.delete': 'deny' },
  });
  await assert.rejects(
    invoke(s.handlers, 'profiles.save', { name: 'crm2', spec: 'https://crm.example.test/openapi.yaml', auth: 'kerberos' }),
    airlockError('usage', /^auth: /),
  );
  assert.equal(existsSync(s.store.fileOf('crm2')), false);
});

test('profiles.list shows the built-in and saved profiles, the active one always, and a broken file with its error', T, async (t) => {
  const s = await setup(t, shopProfile({ origin: 'adhoc' }));
  await invoke(s.handlers, 'profiles.save', { name: 'billing', spec: 'https://api.example.test/openapi.json' });
  mkdirSync(s.info.paths.profiles, { recursive: true });
  writeFileSync(join(s.info.paths.profiles, 'broken.json'), '{ nope');
  const list = await invoke(s.handlers, 'profiles.list', {});
  const byName = Object.fromEntries(list.map((p) => [p.name, p]));
  assert.deepEqual(Object.keys(byName).sort(), ['billing', 'broken', 'demo', 'openagenda', 'shop']);
  assert.equal(byName.shop!.active, true, 'the running ad hoc profile, though it has no file');
  assert.equal(byName.shop!.origin, 'adhoc');
  assert.equal(byName.billing!.active, false);
  assert.equal(byName.demo!.origin, 'preset');
  assert.match(byName.broken!.error!, /not valid JSON/);
  assert.equal(list.filter((p) => p.active).length, 1);
});

test('profiles.remove removes a saved profile once', T, async (t) => {
  const s = await setup(t);
  await invoke(s.handlers, 'profiles.save', { name: 'billing', spec: 'https://api.example.test/openapi.json' });
  assert.deepEqual(await invoke(s.handlers, 'profiles.remove', { name: 'billing' }), { removed: true });
  assert.equal(existsSync(s.store.fileOf('billing')), false);
  assert.deepEqual(await invoke(s.handlers, 'profiles.remove', { name: 'billing' }), { removed: false });
  assert.deepEqual(await invoke(s.handlers, 'profiles.remove', { name: 'demo' }), { removed: false }, 'a built-in one has no file to remove');
});

test('profiles.inspect says what a document holds, and refuses a relative path or a bad allowExternalRefs entry', T, async (t) => {
  const s = await setup(t);
  const file = join(s.dir, 'shop.json');
  writeFileSync(file, JSON.stringify(SHOP_DOCUMENT));
  const summary = await invoke(s.handlers, 'profiles.inspect', { spec: file });
  assert.equal(summary.title, 'Shop');
  assert.equal(summary.version, '2.1');
  assert.equal(summary.operations, 5);
  assert.equal(summary.mutations, 2, 'POST and DELETE (the profile marks no mutations here)');
  assert.deepEqual(summary.servers, ['https://shop.example.test/v1']);
  assert.equal(summary.auth, 'none');
  // How far reading it was, as every screen and `apis add` hear it.
  assert.ok(s.published().includes('inspect-progress'));
  await assert.rejects(
    invoke(s.handlers, 'profiles.inspect', { spec: 'shop.json' }),
    airlockError('usage', /neither an http\(s\) URL nor an absolute file path/),
  );
  await assert.rejects(
    invoke(s.handlers, 'profiles.inspect', { spec: file, allowExternalRefs: ['schemas/'] }),
    airlockError('usage', /allowExternalRefs: "schemas\/"/),
  );
});
