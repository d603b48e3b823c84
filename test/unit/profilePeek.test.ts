// The APIs an initialize answered before the core loads names are read from
// the profile files without the schema (profiles/profilePeek.ts); for every
// file the core accepts, they are the ones the core serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peekEnabledProfiles } from '../../main/core/profiles/profilePeek.ts';
import { ProfileStore } from '../../main/core/profiles/profileStore.ts';
import { isEnabled } from '../../main/core/profiles/profile.ts';
import { earlyInstructions } from '../../main/core/mcp/earlyInstructions.ts';
import { tempDir } from '../helpers/paths.ts';

test('the enabled APIs read without the schema are those the core serves, with their aliases', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles, { recursive: true });
  const write = (name: string, body: Record<string, unknown>) => writeFileSync(join(profiles, `${name}.json`), JSON.stringify(body));
  write('github', { spec: '/specs/github.json', baseUrl: 'https://api.github.com', auth: 'bearer', enabled: true, alias: 'gh' });
  write('stripe', { spec: '/specs/stripe.json', enabled: false });
  write('legacy', { spec: '/specs/legacy.json' }); // from before several APIs: off
  write('openagenda', { spec: '/specs/oa.yaml', enabled: true, alias: 'oa' }); // a preset turned on
  write('demo', { spec: 'airlock:demo', enabled: false }); // the demo turned off

  const core = new ProfileStore(profiles)
    .list()
    .flatMap((l) => (l.profile && isEnabled(l.profile) ? [{ name: l.profile.name, ...(l.profile.alias ? { alias: l.profile.alias } : {}) }] : []))
    .sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(peekEnabledProfiles(profiles), core);
  assert.deepEqual(core, [
    { name: 'github', alias: 'gh' },
    { name: 'openagenda', alias: 'oa' },
  ]);
});

test('a fresh data dir names the demo; an unreadable file is left to the core to report', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  assert.deepEqual(peekEnabledProfiles(join(dir, 'profiles')), [{ name: 'demo' }]);
  assert.match(earlyInstructions(dir, undefined), /^Airlock gives you the demo API \(loading\)/);
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'broken.json'), '{ not json');
  writeFileSync(join(dir, 'profiles', 'Bad Name.json'), '{"enabled": true}');
  assert.deepEqual(peekEnabledProfiles(join(dir, 'profiles')), [{ name: 'demo' }]);
  assert.match(earlyInstructions(dir, ['github']), /none is served to this session yet/);
  // A built-in one whose file is broken is not named (the core shows it as failed), nor is an alias a script cannot use.
  writeFileSync(join(dir, 'profiles', 'demo.json'), '{ broken');
  writeFileSync(join(dir, 'profiles', 'github.json'), JSON.stringify({ spec: '/g.json', enabled: true, alias: 'not an identifier' }));
  assert.deepEqual(peekEnabledProfiles(join(dir, 'profiles')), [{ name: 'github' }]);
});
