// `airlock stdio` joining a running companion ignores none of the settings
// it was given: its own (data dir, log level, a background start's idle time)
// it honours; the shared companion's it honours only when the companion
// already uses that value, and otherwise refuses with one line naming the
// flag or variable, what the companion uses, and what to do. --profile of a
// served API is the session's scope; --spec is refused with the
// `airlock apis add` line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { givenCompanionSettings, joinedVerdict, type RunningCompanion } from '../../main/cli/joinedSettings.ts';
import { resolveSettings } from '../../main/core/config/resolveSettings.ts';

const resolved = (flags: Record<string, unknown>, env: Record<string, string> = {}) =>
  resolveSettings({ flags: { dataDir: '/tmp/d', ...flags }, env, file: { timeoutMs: 1234 }, defaultDataDir: '/tmp/d' });

const refusedLines = (...a: Parameters<typeof joinedVerdict>) => joinedVerdict(...a).refused;

const running: RunningCompanion = {
  pid: 4242,
  apis: ['demo', 'github'],
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
  const lines = refusedLines(given, running);
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(
    lines[0]!,
    /^AIRLOCK_EGRESS wrapper: the running companion \(pid 4242\) runs executor for every client\. Change it on its Engine screen, or run this client with --in-process/,
  );
  assert.match(lines[1]!, /^--timeout-ms 5000: the running companion \(pid 4242\) uses 30000 for every client\. Change it in its Settings/);
});

test("--profile of an API the companion serves is the session's scope; another is refused with how to enable it; --spec with the apis add line", () => {
  assert.deepEqual(joinedVerdict(givenCompanionSettings(resolved({ profile: 'github' })), running), { refused: [], scope: ['github'] });
  const other = refusedLines(givenCompanionSettings(resolved({ profile: 'openagenda' })), running);
  assert.equal(other.length, 1);
  assert.match(
    other[0]!,
    /^--profile openagenda: the running companion \(pid 4242\) does not serve the API 'openagenda' \(it serves demo, github\)\. Enable it for every client \(`airlock apis enable openagenda`, or the APIs screen\), or run this client with --in-process/,
  );
  const spec = refusedLines(givenCompanionSettings(resolved({ spec: '/srv/openapi.yaml' })), running);
  assert.match(
    spec[0]!,
    /^--spec \/srv\/openapi\.yaml: a joining client does not bring its own API .*`airlock apis add <name> --spec \/srv\/openapi\.yaml`.*`--api <name>`/,
  );
});

test('an auth scheme is compared in its written form', () => {
  assert.deepEqual(refusedLines([{ key: 'auth', value: { type: 'bearer' }, source: 'flag' }], running), []);
  const header = refusedLines([{ key: 'auth', value: { type: 'header', name: 'X-Api-Key' }, source: 'flag' }], running);
  assert.match(header[0]!, /^--auth header:X-Api-Key: /);
});

test('a setting given through its environment twin is named by the variable', () => {
  const [line] = refusedLines(givenCompanionSettings(resolved({}, { AIRLOCK_SPEC: '/srv/other.yaml' })), running);
  assert.match(line!, /^AIRLOCK_SPEC \/srv\/other\.yaml: .*`airlock apis add <name> --spec \/srv\/other\.yaml`/);
});
