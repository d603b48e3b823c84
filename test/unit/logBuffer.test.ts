import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogBuffer } from '../../main/core/log/logBuffer.ts';
import { createLogger } from '../../main/core/log/logger.ts';

test('the ring keeps the newest entries up to its capacity', () => {
  const buf = new LogBuffer({ capacity: 3 });
  for (let i = 1; i <= 5; i++) buf.append({ level: 'info', source: 'core', message: `m${i}` });
  assert.deepEqual(
    buf.entries().map((e) => e.message),
    ['m3', 'm4', 'm5'],
  );
  assert.equal(buf.lastSeq, 5);
});

test('queries filter by level, source, substring, since and limit', () => {
  const buf = new LogBuffer({ capacity: 10 });
  buf.append({ level: 'debug', source: 'core', message: 'starting' });
  buf.append({ level: 'warn', source: 'http', message: 'Refused request' });
  buf.append({ level: 'error', source: 'sandbox', message: 'boom', runId: 'r1' });
  buf.append({ level: 'info', source: 'http', message: 'served request' });
  assert.deepEqual(
    buf.query({ level: 'warn' }).map((e) => e.message),
    ['Refused request', 'boom'],
  );
  assert.deepEqual(
    buf.query({ source: 'http' }).map((e) => e.message),
    ['Refused request', 'served request'],
  );
  assert.deepEqual(
    buf.query({ grep: 'REQUEST' }).map((e) => e.seq),
    [2, 4],
  );
  assert.deepEqual(
    buf.query({ since: 2 }).map((e) => e.seq),
    [3, 4],
  );
  assert.deepEqual(
    buf.query({ limit: 1 }).map((e) => e.seq),
    [4],
  );
});

test('subscribers get batches, and replay what the ring holds on re-attach', () => {
  const buf = new LogBuffer({ capacity: 10, batchMs: 1000 });
  const batches: string[][] = [];
  buf.append({ level: 'info', source: 'core', message: 'before' });
  const off = buf.subscribe((b) => batches.push(b.map((e) => e.message)), { replay: {} });
  buf.append({ level: 'info', source: 'core', message: 'a' });
  buf.append({ level: 'info', source: 'core', message: 'b' });
  buf.flush();
  assert.deepEqual(batches, [['before'], ['a', 'b']]);
  off();
  buf.append({ level: 'info', source: 'core', message: 'c' });
  buf.flush();
  assert.equal(batches.length, 2);
  const again: string[] = [];
  buf.subscribe((b) => again.push(...b.map((e) => e.message)), { replay: { since: 1 } });
  assert.deepEqual(again, ['a', 'b', 'c']);
});

test('the logger writes to its sink and the buffer, redacted, never to stdout', () => {
  const buf = new LogBuffer();
  const lines: string[] = [];
  const writes: unknown[] = [];
  const original = process.stdout.write;
  process.stdout.write = ((chunk: unknown) => {
    writes.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    const log = createLogger({ buffer: buf, sink: (l) => lines.push(l), level: 'info', redact: (s) => s.replaceAll('sekrit', '[redacted]') });
    log.debug('quiet');
    log.child('http').warn('key sekrit leaked?');
  } finally {
    process.stdout.write = original;
  }
  assert.deepEqual(writes, []);
  assert.deepEqual(lines, ['airlock warn  [http] key [redacted] leaked?']);
  assert.deepEqual(
    buf.entries().map((e) => [e.level, e.message]),
    [
      ['debug', 'quiet'],
      ['warn', 'key [redacted] leaked?'],
    ],
  );
});

test('attack: a line appended straight to the ring (sandbox console) with the key escaped is redacted for every reader', { timeout: 10_000 }, async () => {
  const { createRedactor } = await import('../../main/core/log/redactor.ts');
  const KEY = 'sk_live_LOGRING_0123456789';
  const buffer = new LogBuffer({ capacity: 10, redact: createRedactor([KEY]), batchMs: 1 });
  const seen: string[] = [];
  buffer.subscribe((batch) => seen.push(...batch.map((e) => e.message)));
  const escaped = KEY.split('')
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  buffer.append({ level: 'info', source: 'sandbox', message: `console: ${escaped}` });
  buffer.append({ level: 'info', source: 'sandbox', message: `b64: ${Buffer.from(KEY).toString('base64')}` });
  buffer.flush();
  for (const text of [...buffer.query().map((e) => e.message), ...seen]) {
    assert.match(text, /\[REDACTED\]/);
    assert.doesNotMatch(text, /LOGRING/);
  }
});

// The default sink writes a turn's lines to stderr together: none is lost when the process ends in that turn.
test('stderr gets every line, in order, when the process exits or throws in the turn that logged them', { timeout: 30_000 }, async () => {
  const { spawnSync } = await import('node:child_process');
  const logger = new URL('../../main/core/log/logger.ts', import.meta.url).href;
  const endings = { exit: 'process.exit(3);', throw: "throw new Error('boom');", 'a later turn': 'setTimeout(() => {}, 10);' };
  for (const [how, end] of Object.entries(endings)) {
    const script = `import { createLogger } from ${JSON.stringify(logger)};
const log = createLogger({ source: 'test' });
for (let i = 1; i <= 3; i++) log.info('line ' + i);
${end}`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    const lines = child.stderr.split('\n').filter((l) => l.startsWith('airlock'));
    assert.deepEqual(lines, ['airlock info  [test] line 1', 'airlock info  [test] line 2', 'airlock info  [test] line 3'], how);
  }
});
