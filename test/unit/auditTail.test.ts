// `airlock audit tail -n N` prints the N newest records, oldest first — every
// one asked for, however many (issue 36 §13: it stopped at one page of 500
// without a word), and all there are when there are fewer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openAuditStore } from '../../main/core/audit/auditStore.ts';
import { dataPaths } from '../../main/core/config/dataDir.ts';
import { runCliToEnd } from '../helpers/processes.ts';
import { tempDir } from '../helpers/paths.ts';

test('audit tail -n prints every record asked for, across pages, oldest first', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const store = openAuditStore({ file: dataPaths(dir).audit });
  for (let i = 0; i < 1_234; i++) {
    await store.recordToolCall({
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      clientName: 'test',
      transport: 'stdio',
      tool: 'search_docs',
      outcome: 'ok',
      durationMs: 1,
      input: { query: `q${i}` },
      bytesOut: 1,
    });
  }
  store.close();
  const seqs = async (n: number) => {
    const run = await runCliToEnd(['audit', 'tail', '-n', String(n), '--json', '--data-dir', dir], { timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    return run.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
  };
  const all = await seqs(100_000);
  assert.equal(all.length, 1_234, 'all there are, not one page');
  assert.deepEqual(
    all,
    [...all].sort((a, b) => a - b),
    'oldest first',
  );
  const some = await seqs(700);
  assert.equal(some.length, 700);
  assert.deepEqual(some, all.slice(-700), 'the newest 700');
});
