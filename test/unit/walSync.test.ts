// Durable audit records without blocking the event loop: a record of an API
// call or an execute run settles only once a flush of the WAL that started
// after its commit has completed; a search_docs record does not wait for one;
// a failed flush fails exactly the records it was to cover, with a message
// that says the log could not reach the disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { GroupSync } from '../../main/core/audit/walSync.ts';
import { openAuditStore } from '../../main/core/audit/auditStore.ts';
import { tempDir } from '../helpers/paths.ts';

/** A flush the test completes by hand. */
function manualSync() {
  const pending: { resolve(): void; reject(e: Error): void }[] = [];
  return {
    started: () => pending.length,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    finish: (i: number, error?: Error) => (error ? pending[i]!.reject(error) : pending[i]!.resolve()),
  };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  // Let every already-resolved promise run its callbacks.
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('a flush covers the commits made before it started; later ones wait for the next flush', async () => {
  const flush = manualSync();
  const group = new GroupSync(flush.sync);
  const a = group.afterCommit();
  const b = group.afterCommit();
  await Promise.resolve();
  assert.equal(flush.started(), 1, 'one flush for both');
  const c = group.afterCommit(); // while the first flush runs
  flush.finish(0);
  assert.equal(await settled(a), true);
  assert.equal(await settled(b), true);
  assert.equal(await settled(c), false, 'c committed after the flush started: not covered');
  assert.equal(flush.started(), 2, 'a second flush for c');
  flush.finish(1, new Error('EIO: disk gone'));
  await assert.rejects(c, /EIO/);
  // The next waiter gets a fresh flush.
  const d = group.afterCommit();
  await Promise.resolve();
  assert.equal(flush.started(), 3);
  flush.finish(2);
  await d;
});

test('the record of an API call that may change something, or of an execute run, settles once the WAL is flushed; a read or a search_docs record does not wait', async () => {
  const { dir, cleanup } = tempDir('airlock-walsync-');
  const flush = manualSync();
  const store = openAuditStore({ file: join(dir, 'audit.sqlite'), syncWal: flush.sync });
  try {
    const search = store.recordToolCall({ transport: 'stdio', tool: 'search_docs', outcome: 'ok', durationMs: 1, input: { query: 'x' }, bytesOut: 1 });
    const call = (method: string) =>
      store.recordApiCall({
        runId: 'run-1',
        callerKey: 'stdio:1',
        operationId: method === 'GET' ? 'events.list' : 'events.delete',
        method,
        url: 'https://api.test/events',
        status: 200,
        durationMs: 3,
        bytes: 10,
        decision: method === 'GET' ? 'read' : 'approved',
        startedAt: new Date().toISOString(),
      });
    const read = call('GET');
    const api = call('DELETE');
    // A GET the gate did not treat as a read (an override header, x-airlock-mutation, a policy of ask) waits like a DELETE.
    const approvedGet = store.recordApiCall({
      runId: 'run-1',
      callerKey: 'stdio:1',
      operationId: 'events.purge',
      method: 'GET',
      url: 'https://api.test/events/purge',
      status: 200,
      durationMs: 3,
      bytes: 10,
      decision: 'approved',
      startedAt: new Date().toISOString(),
    });
    // An execute that failed before it had a run id may still have reached an API.
    const failedRun = store.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'error', durationMs: 1, input: 'return 1', bytesOut: 0 });
    assert.equal((await search).tool, 'search_docs');
    assert.equal((await read).method, 'GET', "a read's record settles at its commit (the run's tool record will flush it)");
    assert.equal(await settled(api), false, 'committed, not yet on disk');
    assert.equal(await settled(approvedGet), false, 'an approved GET waits for the disk too');
    assert.equal(await settled(failedRun), false, 'an execute without a run id waits for the disk too');
    assert.equal(store.head().records, 5, 'all are committed and readable');
    flush.finish(0);
    assert.equal((await api).kind, 'api');
    assert.equal((await approvedGet).decision, 'approved');
    assert.equal((await failedRun).tool, 'execute');

    const run = store.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'ok', durationMs: 1, input: 'return 1', bytesOut: 1, runId: 'run-1' });
    assert.equal(await settled(run), false);
    flush.finish(1, new Error('EIO: i/o error'));
    await assert.rejects(run, /could not flush the audit log .* to disk: EIO/);
  } finally {
    store.close();
    cleanup();
  }
});

test("a client's direct call of another server's tool is flushed once, with its tool record, before the client hears back", async () => {
  const { dir, cleanup } = tempDir('airlock-walsync-');
  const flush = manualSync();
  const store = openAuditStore({ file: join(dir, 'audit.sqlite'), syncWal: flush.sync });
  try {
    const toolCall = (flushedWithRun: boolean) =>
      store.recordApiCall({
        runId: 'run-direct',
        callerKey: 'stdio:1',
        operationId: 'write_file',
        callKind: 'tool-call',
        server: 'fs',
        url: 'mcp://fs/write_file',
        status: 200,
        durationMs: 3,
        bytes: 10,
        decision: 'approved',
        startedAt: new Date().toISOString(),
        ...(flushedWithRun ? { flushedWithRun } : {}),
      });
    assert.equal((await toolCall(true)).server, 'fs', 'the direct call settles at its commit');
    assert.equal(flush.started(), 0, 'no flush of its own');
    const inScript = toolCall(false);
    assert.equal(await settled(inScript), false, 'the same call made by a script waits for the disk');
    flush.finish(0);
    await inScript;
    const answer = store.recordToolCall({
      transport: 'stdio',
      tool: 'fs__write_file',
      outcome: 'ok',
      durationMs: 1,
      input: {},
      bytesOut: 1,
      runId: 'run-direct',
    });
    assert.equal(await settled(answer), false, 'its tool record, which the client waits for, waits for the flush that covers both');
    flush.finish(1);
    await answer;
    const stored = store.query({ limit: 5 }).records.find((r) => r.kind === 'api');
    assert.equal(stored && 'flushedWithRun' in stored, false, 'the flag is not part of the record');
  } finally {
    store.close();
    cleanup();
  }
});

test('with synchronous: normal no record waits for a flush', async () => {
  const { dir, cleanup } = tempDir('airlock-walsync-');
  const flush = manualSync();
  const store = openAuditStore({ file: join(dir, 'audit.sqlite'), synchronous: 'normal', syncWal: flush.sync });
  try {
    const run = await store.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'ok', durationMs: 1, input: 'return 1', bytesOut: 1, runId: 'r' });
    assert.equal(run.seq, 1);
    assert.equal(flush.started(), 0);
  } finally {
    store.close();
    cleanup();
  }
});

test('closing the store settles the records still waiting for a flush as written: its checkpoint put them on disk', async () => {
  const { dir, cleanup } = tempDir('airlock-walsync-');
  try {
    // The real flush: a record queued, then the store closed at once.
    const file = join(dir, 'audit.sqlite');
    const store = openAuditStore({ file });
    const run = store.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'ok', durationMs: 1, input: 'return 1', bytesOut: 1, runId: 'r1' });
    store.close();
    assert.equal((await run).seq, 1);

    // A flush in flight when the store closes settles its own record; one queued behind it is settled by the close.
    const flush = manualSync();
    const again = openAuditStore({ file, syncWal: flush.sync });
    const first = again.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'ok', durationMs: 1, input: 'return 2', bytesOut: 1, runId: 'r2' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(flush.started(), 1, 'the first record is being flushed');
    const second = again.recordToolCall({ transport: 'stdio', tool: 'execute', outcome: 'ok', durationMs: 1, input: 'return 3', bytesOut: 1, runId: 'r3' });
    again.close();
    assert.equal((await second).seq, 3);
    flush.finish(0);
    assert.equal((await first).seq, 2);
    assert.equal(flush.started(), 1, 'no flush after the close');
    const reopened = openAuditStore({ file });
    try {
      assert.deepEqual(reopened.verify(), { ok: true, records: 3 });
    } finally {
      reopened.close();
    }
  } finally {
    cleanup();
  }
});
