// The Logs screen's methods, built from logs only (the real logger and ring
// buffer): the buffer by filter, a run's lines by its id, and the UI's own
// lines appended with source `ui`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogHandlers, type LogHandlerServices } from '../../../main/core/runtime/logHandlers.ts';
import { invoke, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };

function setup() {
  const logs = testLogs();
  const services: LogHandlerServices = { logs };
  const log = logs.logger;
  log.info('companion started');
  log.child('execute').info('run started', { runId: 'run-a' });
  log.child('gate').warn('POST /orders held for a person', { runId: 'run-a' });
  log.child('execute').info('run started', { runId: 'run-b' });
  log.child('gate').error('upstream refused the call', { runId: 'run-b' });
  log.child('execute').info('run ended', { runId: 'run-a' });
  log.debug('cache hit');
  return { logs, handlers: createLogHandlers(services) };
}

const messages = (entries: { message: string; runId?: string }[]) => entries.map((e) => (e.runId ? `${e.runId}: ${e.message}` : e.message));

test("logs.query with a run id gives that run's lines only, oldest first", T, async () => {
  const s = setup();
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { runId: 'run-a' })), [
    'run-a: run started',
    'run-a: POST /orders held for a person',
    'run-a: run ended',
  ]);
  assert.deepEqual(await invoke(s.handlers, 'logs.query', { runId: 'run-none' }), []);
  assert.equal((await invoke(s.handlers, 'logs.query', {})).length, 7, 'no filter: every line');
});

test('logs.query passes level, source, grep, since and limit to the buffer', T, async () => {
  const s = setup();
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { level: 'warn' })), [
    'run-a: POST /orders held for a person',
    'run-b: upstream refused the call',
  ]);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { source: 'gate' })), [
    'run-a: POST /orders held for a person',
    'run-b: upstream refused the call',
  ]);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { grep: 'RUN STARTED' })), ['run-a: run started', 'run-b: run started']);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { since: 5 })), ['run-a: run ended', 'cache hit']);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { limit: 2 })), ['run-a: run ended', 'cache hit']);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { level: 'info', source: 'execute', runId: 'run-b' })), ['run-b: run started']);
});

test('logs.query with a run id and a limit gives the newest N lines of that run', T, async () => {
  // The contract: limit is "the newest N that match" — and the run id is one of the filters. Applying the limit
  // to the whole buffer first leaves out a run's lines whenever later lines belong to something else.
  const s = setup();
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { runId: 'run-a', limit: 2 })), [
    'run-a: POST /orders held for a person',
    'run-a: run ended',
  ]);
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { runId: 'run-b', limit: 1 })), ['run-b: upstream refused the call']);
});

test("logs.append adds the UI's lines with source ui, at their level, and counts them", T, async () => {
  const s = setup();
  const before = s.logs.buffer.lastSeq;
  const result = await invoke(s.handlers, 'logs.append', {
    lines: [
      { level: 'error', message: 'TypeError: x is undefined' },
      { level: 'warn', message: 'slow render' },
    ],
  });
  assert.deepEqual(result, { appended: 2 });
  const added = s.logs.buffer.query({ since: before });
  assert.deepEqual(
    added.map((e) => [e.source, e.level, e.message]),
    [
      ['ui', 'error', 'TypeError: x is undefined'],
      ['ui', 'warn', 'slow render'],
    ],
  );
  assert.deepEqual(messages(await invoke(s.handlers, 'logs.query', { source: 'ui' })), ['TypeError: x is undefined', 'slow render']);
  assert.deepEqual(await invoke(s.handlers, 'logs.append', { lines: [] }), { appended: 0 });
});
