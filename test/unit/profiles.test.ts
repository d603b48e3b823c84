import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ProfileStore, selectProfile } from '../../main/core/profiles/profileStore.ts';
import { OPENAGENDA_SPEC_URL, PRESETS } from '../../main/core/profiles/presets.ts';
import { tempDir } from '../helpers/paths.ts';
import type { AirlockError } from '../../main/core/util/errors.ts';

test('presets: demo is the default, openagenda points at the published contract', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = new ProfileStore(join(dir, 'profiles'));
  const demo = selectProfile({}, store);
  assert.equal(demo.name, 'demo');
  assert.equal(demo.spec, 'airlock:demo');
  const oa = selectProfile({ profile: 'openagenda' }, store);
  assert.equal(oa.spec, OPENAGENDA_SPEC_URL);
  assert.match(OPENAGENDA_SPEC_URL, /OpenAgenda\/oa-public\/.*api-spec\/openapi\.yaml$/);
  assert.equal(oa.baseUrl, 'https://api.openagenda.com/v3');
  assert.deepEqual(oa.auth, { type: 'bearer' });
  assert.equal(oa.alias, 'oa');
});

test("--spec alone makes an ad hoc profile; with --profile it overrides the profile's spec", (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = new ProfileStore(join(dir, 'profiles'));
  const adhoc = selectProfile({ spec: 'api.yaml', baseUrl: 'http://127.0.0.1:9999', auth: { type: 'query', name: 'key' } }, store);
  assert.equal(adhoc.name, 'custom');
  assert.equal(adhoc.origin, 'adhoc');
  assert.equal(adhoc.spec, join(process.cwd(), 'api.yaml'));
  assert.equal(adhoc.policy, 'ask');
  const oa = selectProfile({ profile: 'openagenda', spec: '/tmp/oa.yaml' }, store);
  assert.equal(oa.spec, '/tmp/oa.yaml');
  assert.equal(oa.alias, 'oa');
});

test('profiles persist as files (0600) and read back the same', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = new ProfileStore(join(dir, 'profiles'));
  const file = await store.save({
    name: 'petstore',
    spec: 'https://pets.test/openapi.json',
    auth: { type: 'header', name: 'X-Key' },
    alias: 'pets',
    policy: 'deny',
    readOnly: true,
    allowPrivateNetwork: false,
    mutations: ['pets.search'],
    origin: 'file',
  });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const back = store.get('petstore');
  assert.equal(back.spec, 'https://pets.test/openapi.json');
  assert.deepEqual(back.auth, { type: 'header', name: 'X-Key' });
  assert.equal(back.policy, 'deny');
  assert.deepEqual(back.mutations, ['pets.search']);
  assert.deepEqual(store.names(), ['demo', 'openagenda', 'petstore']);
  assert.equal(store.remove('petstore'), true);
  assert.throws(
    () => store.get('petstore'),
    (e: AirlockError) => e.line === "unknown profile 'petstore' (known: demo, openagenda)",
  );
});

test('a bad profile file is reported with its path and the offending field', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles);
  const file = join(profiles, 'broken.json');
  const store = new ProfileStore(profiles);
  writeFileSync(file, JSON.stringify({ spec: 'x.yaml', policy: 'sometimes' }));
  assert.throws(
    () => store.get('broken'),
    (e: Error) => e.message.startsWith(file) && e.message.includes('"policy"'),
  );
  writeFileSync(file, JSON.stringify({ spec: 'x.yaml', auth: 'digest' }));
  assert.throws(() => store.get('broken'), /"auth" 'digest' is not an auth scheme/);
  writeFileSync(file, JSON.stringify({ spec: 'x.yaml', alias: 'not valid' }));
  assert.throws(() => store.get('broken'), /"alias" must be a JavaScript identifier/);
  writeFileSync(file, JSON.stringify({ spec: 'x.yaml', colour: 'blue' }));
  assert.throws(() => store.get('broken'), /colour/);
  writeFileSync(file, '{');
  assert.throws(() => store.get('broken'), /not valid JSON/);
  // Listing keeps going and shows the error beside the name.
  const listing = store.list().find((l) => l.name === 'broken');
  assert.match(listing?.error ?? '', /not valid JSON/);
  // A relative spec path in a profile file is relative to the file.
  writeFileSync(file, JSON.stringify({ spec: 'specs/x.yaml' }));
  assert.equal(store.get('broken').spec, join(profiles, 'specs', 'x.yaml'));
});

test('allowExternalRefs takes absolute directories and http(s) origins, names a bad entry, and round-trips', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles);
  writeFileSync(join(profiles, 'bad.json'), JSON.stringify({ spec: 'https://x.test/o.json', allowExternalRefs: ['shared/', 'https://x.test/defs/?q=1'] }));
  const store = new ProfileStore(profiles);
  assert.throws(
    () => selectProfile({ profile: 'bad' }, store),
    (e: AirlockError) => /allowExternalRefs/.test(e.message) && /"shared\/" must be an absolute directory/.test(e.message),
  );
  writeFileSync(join(profiles, 'good.json'), JSON.stringify({ spec: 'https://x.test/o.json', allowExternalRefs: [dir, 'https://x.test/defs/'] }));
  const good = selectProfile({ profile: 'good' }, store);
  assert.deepEqual(good.allowExternalRefs, [dir, 'https://x.test/defs/']);
  await store.save({ ...good, name: 'copy' });
  assert.deepEqual(selectProfile({ profile: 'copy' }, store).allowExternalRefs, [dir, 'https://x.test/defs/']);
});

test("a profile's own words for search are read from its file, named when malformed, and kept when it is saved", async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles);
  writeFileSync(join(profiles, 'bad.json'), JSON.stringify({ spec: 'https://x.test/o.json', words: { payment: 'intent' } }));
  const store = new ProfileStore(profiles);
  assert.throws(
    () => selectProfile({ profile: 'bad' }, store),
    (e: AirlockError) => /words/.test(e.message),
  );
  writeFileSync(join(profiles, 'stripe.json'), JSON.stringify({ spec: 'https://x.test/o.json', words: { payment: ['intent'] } }));
  const stripe = selectProfile({ profile: 'stripe' }, store);
  assert.deepEqual(stripe.words, { payment: ['intent'] });
  await store.save({ ...stripe, name: 'copy' });
  assert.deepEqual(selectProfile({ profile: 'copy' }, store).words, { payment: ['intent'] });
  assert.ok(PRESETS.openagenda!.words?.upcoming, "OpenAgenda's words are its preset's");
});
