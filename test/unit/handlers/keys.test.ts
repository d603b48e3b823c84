// The APIs screen's key methods, built from keys and logs only: a key goes in
// (stored, its fingerprint returned, the cached credential forgotten) and
// never comes out — listed by fingerprint, never in a reply or a log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createKeyHandlers, type KeyHandlerServices } from '../../../main/core/runtime/keyHandlers.ts';
import { createMemoryStore } from '../../../main/core/secrets/memoryStore.ts';
import { createFileStore } from '../../../main/core/secrets/fileStore.ts';
import { fingerprint } from '../../../main/core/secrets/fingerprint.ts';
import type { SecretStore } from '../../../main/core/secrets/secretStore.ts';
import { tempDir } from '../../helpers/paths.ts';
import { airlockError, fakeCredentials, fakeKeys, invoke, logged, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };
const SECRET = 'sk-live-4f1c2a9e77b0d3c5e6f8a1b2';
const OTHER = 'ghp_Zq8mW3nR5tY7uI9oP1aS2dF4gH6jK8lX';

function setup(store: SecretStore = createMemoryStore()) {
  const credentials = fakeCredentials();
  const keys = fakeKeys(store, credentials);
  const services: KeyHandlerServices = { keys, logs: testLogs() };
  return { store, credentials, keys, services, handlers: createKeyHandlers(services) };
}

test('keys.set stores the key, returns its fingerprint, and forgets the cached credential', T, async () => {
  const s = setup();
  const result = await invoke(s.handlers, 'keys.set', { profile: 'shop', secret: SECRET });
  assert.deepEqual(result, { fingerprint: fingerprint(SECRET) });
  assert.equal(await s.store.get('shop'), SECRET);
  assert.equal(s.credentials.invalidations, 1, 'the next call resolves the new key');
  assert.deepEqual(s.keys.invalidated, ['shop'], "that profile's served API forgets its cached key");
  const lines = logged(s.services.logs);
  assert.deepEqual(lines, [`API key for profile shop set (${fingerprint(SECRET)}) by alice via test`]);
  assert.ok(!lines.join('\n').includes(SECRET));
});

test('keys.list gives each profile with a key and its fingerprint, never the key', T, async () => {
  const s = setup(createMemoryStore({ entries: { shop: SECRET } }));
  await invoke(s.handlers, 'keys.set', { profile: 'github', secret: OTHER });
  const list = await invoke(s.handlers, 'keys.list', {});
  assert.deepEqual(list, [
    { profile: 'github', fingerprint: fingerprint(OTHER), source: 'keychain' },
    { profile: 'shop', fingerprint: fingerprint(SECRET), source: 'keychain' },
  ]);
  // What the handler returns, before the contract strips anything, holds neither key.
  const raw = JSON.stringify(list);
  assert.ok(!raw.includes(SECRET) && !raw.includes(OTHER));
});

test('keys.list says the key is in the file store when that is where keys live', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-key-handlers-');
  t.after(cleanup);
  const s = setup(createFileStore({ path: join(dir, 'secrets.json') }));
  await invoke(s.handlers, 'keys.set', { profile: 'shop', secret: SECRET });
  assert.deepEqual(await invoke(s.handlers, 'keys.list', {}), [{ profile: 'shop', fingerprint: fingerprint(SECRET), source: 'file' }]);
});

test('keys.remove removes the key and forgets the cached credential; removing it again removes nothing', T, async () => {
  const s = setup(createMemoryStore({ entries: { shop: SECRET, github: OTHER } }));
  assert.deepEqual(await invoke(s.handlers, 'keys.remove', { profile: 'shop' }), { removed: true });
  assert.equal(await s.store.get('shop'), undefined);
  assert.equal(await s.store.get('github'), OTHER, 'other profiles keep theirs');
  assert.equal(s.credentials.invalidations, 1);
  assert.deepEqual(await invoke(s.handlers, 'keys.remove', { profile: 'shop' }), { removed: false });
  assert.deepEqual(logged(s.services.logs), ['API key for profile shop removed by alice via test'], 'only a real removal is logged');
  assert.deepEqual(
    (await invoke(s.handlers, 'keys.list', {})).map((k) => k.profile),
    ['github'],
  );
});

test('a key the store refuses is a usage error that never quotes it, and nothing is stored', T, async () => {
  const s = setup();
  // Within the contract's 16 KiB, over the store's limit; and a key on two lines.
  for (const secret of [`${SECRET}x`.repeat(300), `${SECRET}\nsecond-line`]) {
    await assert.rejects(invoke(s.handlers, 'keys.set', { profile: 'shop', secret }), (error: unknown) => {
      airlockError('usage')(error);
      assert.ok(!(error as Error).message.includes(SECRET), 'the message never quotes the key');
      return true;
    });
  }
  assert.deepEqual(await s.store.list(), []);
  assert.deepEqual(logged(s.services.logs), []);
});

test("an MCP server's secret (kept in the same store) can be neither set nor removed through the API-key methods", T, async () => {
  const store = createMemoryStore();
  await store.set('mcp-server:github:GITHUB_TOKEN', OTHER);
  const s = setup(store);
  await assert.rejects(
    invoke(s.handlers, 'keys.set', { profile: 'mcp-server:github:GITHUB_TOKEN', secret: SECRET }),
    airlockError('usage', /not a profile name/),
  );
  await assert.rejects(invoke(s.handlers, 'keys.remove', { profile: 'mcp-server:github:GITHUB_TOKEN' }), airlockError('usage', /not a profile name/));
  assert.equal(await store.get('mcp-server:github:GITHUB_TOKEN'), OTHER, 'untouched');
  assert.deepEqual(await invoke(s.handlers, 'keys.list', {}), [], 'and not listed as an API key');
});
