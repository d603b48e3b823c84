// `airlock stdio` joining a running companion ignores none of the settings
// it was given: its own (data dir, log level, a background start's idle time)
// it honours; the shared companion's it honours only when the companion
// already uses that value, and otherwise refuses with one line naming the
// flag or variable, what the companion uses, and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { givenCompanionSettings, unhonouredSettings, type RunningCompanion } from '../../main/cli/joinedSettings.ts';
import { resolveSettings } from '../../main/core/config/settings.ts';

const resolved = (flags: Record<string, unknown>, env: Record<string, string> = {}) =>
  resolveSettings({ flags: { dataDir: '/tmp/d', ...flags }, env, file: { timeoutMs: 1234 }, defaultDataDir: '/tmp/d' });

const running: RunningCompanion = {
  pid: 4242,
  profile: 'demo',
  values: { engine: 'quickjs', egress: 'executor', timeoutMs: 30000, auth: 'bearer', spec: undefined, logLevel: 'info' },
};

test('the settings the joining process honours itself, and those from settings.json or defaults, are not checked', () => {
  const given = givenCompanionSettings(resolved({ logLevel: 'debug', exitWhenIdle: 5 }));
  assert.deepEqual(given, [], 'data dir, log level and idle time are the joining process’s own; settings.json is the companion’s');
});

test('a given setting the running companion already uses is honoured; a different one is refused with what to do', () => {
  const given = givenCompanionSettings(resolved({ engine: 'quickjs', timeoutMs: 5000 }, { AIRLOCK_EGRESS: 'wrapper' }));
  assert.deepEqual(
    given.map((g) => [g.key, g.source]),
    [
      ['engine', 'flag'],
      ['egress', 'env'],
      ['timeoutMs', 'flag'],
    ],
  );
  const lines = unhonouredSettings(given, running);
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(
    lines[0]!,
    /^AIRLOCK_EGRESS wrapper: the running companion \(pid 4242\) runs executor for every client\. Change it on its Engine screen, or run this client with --in-process/,
  );
  assert.match(lines[1]!, /^--timeout-ms 5000: the running companion \(pid 4242\) uses 30000 for every client\. Change it in its Settings/);
});

test('another API is refused with the way to serve it; the API the companion serves is honoured', () => {
  const other = unhonouredSettings(givenCompanionSettings(resolved({ profile: 'openagenda' })), running);
  assert.equal(other.length, 1);
  assert.match(
    other[0]!,
    /^--profile openagenda: the running companion \(pid 4242\) serves profile 'demo' to every client, one API at a time\. Start it with this API instead .*--in-process/,
  );
  assert.deepEqual(unhonouredSettings(givenCompanionSettings(resolved({ profile: 'demo' })), running), []);
  const spec = unhonouredSettings(givenCompanionSettings(resolved({ spec: '/srv/openapi.yaml' })), running);
  assert.match(spec[0]!, /^--spec \/srv\/openapi\.yaml: .* serves profile 'demo'/);
});

test('an auth scheme is compared in its written form', () => {
  assert.deepEqual(unhonouredSettings([{ key: 'auth', value: { type: 'bearer' }, source: 'flag' }], running), []);
  const header = unhonouredSettings([{ key: 'auth', value: { type: 'header', name: 'X-Api-Key' }, source: 'flag' }], running);
  assert.match(header[0]!, /^--auth header:X-Api-Key: /);
});

test('a setting given through its environment twin is named by the variable, and the way to serve that API by its flag', () => {
  const [line] = unhonouredSettings(givenCompanionSettings(resolved({}, { AIRLOCK_SPEC: '/srv/other.yaml' })), running);
  assert.match(line!, /^AIRLOCK_SPEC \/srv\/other\.yaml: .*`airlock serve --spec …`/);
});
