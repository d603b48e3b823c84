// The plumbing under the forms and the Logs screen: a log line about a run
// carries the run's id (so the run filter shows the gate's and the
// approvals' lines too), the text the UI shows has its `code` spans split
// out (no literal backticks on screen), the client list says when there is a
// change to undo, and the form's profile-name rule is the core's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { LogBuffer } from '../../main/core/log/logBuffer.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { codeSpans } from '../../renderer/src/components/codeSpans.ts';
import { createRegistrar } from '../../main/core/clients/registrar.ts';
import { CLIENTS, type ClientEnv } from '../../main/core/clients/clientCatalog.ts';
import { PROFILE_NAME } from '../../main/core/profiles/profile.ts';
import { PROFILE_NAME_PATTERN } from '../../contract/profiles.ts';
import { tempDir, NODE, CLI } from '../helpers/paths.ts';

test('a line logged with a run id carries it into the buffer and the sink; other lines carry none', () => {
  const buffer = new LogBuffer({ capacity: 10 });
  const sink: string[] = [];
  const log = createLogger({ buffer, sink: (l) => sink.push(l), level: 'info' });
  const runId = '0123abcd-0000-4000-8000-000000000000';
  log.child('gate').info('events.list: read GET https://api.test/events → 200', { runId });
  log.child('approvals').warn('approval apr_1 requested', { runId });
  log.info('started');
  const entries = buffer.entries();
  assert.deepEqual(
    entries.map((e) => [e.source, e.runId]),
    [
      ['gate', runId],
      ['approvals', runId],
      ['core', undefined],
    ],
  );
  assert.ok(!('runId' in entries[2]!), 'no empty runId field');
  assert.equal(sink[0], 'airlock info  [gate] (run 0123abcd) events.list: read GET https://api.test/events → 200');
  assert.equal(sink[2], 'airlock info  [core] started');
});

test('code spans: backticks become code, an unpaired backtick stays, nothing else is interpreted', () => {
  assert.deepEqual(codeSpans('run `airlock approvals list` to answer'), [
    { code: false, text: 'run ' },
    { code: true, text: 'airlock approvals list' },
    { code: false, text: ' to answer' },
  ]);
  assert.deepEqual(codeSpans('`a` and `b`'), [
    { code: true, text: 'a' },
    { code: false, text: ' and ' },
    { code: true, text: 'b' },
  ]);
  assert.deepEqual(codeSpans("'x`y' is not allowed"), [{ code: false, text: "'x`y' is not allowed" }]);
  assert.deepEqual(codeSpans('<b>not markup</b>'), [{ code: false, text: '<b>not markup</b>' }]);
  assert.deepEqual(codeSpans(''), []);
});

test('the client list says when Airlock last changed a file (undo has something to restore), and not before or after undo', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const env: ClientEnv = { home: join(dir, 'home'), platform: 'linux', env: {} };
  const registrar = createRegistrar({
    env,
    backupDir: join(dir, 'backups'),
    launch: { command: NODE, args: [CLI, 'stdio'] },
    which: () => undefined,
    runCli: async () => ({ code: 0, stdout: '', stderr: '' }),
    now: () => new Date(Date.UTC(2026, 10, 25, 9, 30, 0)),
  });
  const file = CLIENTS.find((c) => c.id === 'cursor')!.paths(env)[0]!;
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '{ "mcpServers": {} }\n');
  const cursor = async () => (await registrar.list()).find((c) => c.id === 'cursor')!;
  assert.equal((await cursor()).lastChangeAt, undefined);
  await registrar.add('cursor', { dryRun: true });
  assert.equal((await cursor()).lastChangeAt, undefined, 'a dry run changes nothing');
  await registrar.add('cursor');
  assert.equal((await cursor()).lastChangeAt, '2026-11-25T09:30:00.000Z');
  await registrar.undo('cursor');
  assert.equal((await cursor()).lastChangeAt, undefined);
});

test("the form's profile-name rule is the core's", () => {
  assert.equal(PROFILE_NAME_PATTERN.source, PROFILE_NAME.source);
});
