// Preparing a document apart (search/preparation.ts): a child process makes
// the prepared store, with progress; a later start opens that store without
// preparing again; a damaged store is prepared again, never used; a
// preparation is cancelled with its process; a document over the caps is
// refused, naming the cap and how to raise it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, getPriority } from 'node:os';
import { createPreparation } from '../../main/core/search/preparation.ts';
import { storeFileOf, type PrepareProgress } from '../../main/core/search/preparedApi.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { largeDocument } from '../helpers/largeDocument.ts';
import { tempDir } from '../helpers/paths.ts';

const T = { timeout: 120_000 };

function setup(t: { after(fn: () => void): void }, operations: number, memoryMb = 512) {
  const { dir, cleanup } = tempDir('airlock-preparation-');
  t.after(cleanup);
  const spec = join(dir, 'large.json');
  writeFileSync(spec, JSON.stringify(largeDocument(operations)));
  const preparation = createPreparation({ memoryMb: () => memoryMb });
  t.after(() => preparation.close());
  // racyMs 0: the document's times are trusted at once (by default, a file changed in the last 2 s is hashed).
  return { dir, spec, cacheDir: join(dir, 'cache'), preparation, racyMs: 0 };
}

test('a document is prepared in a child process, with progress; the next start opens its store without preparing it again', T, async (t) => {
  const { spec, cacheDir, preparation, racyMs } = setup(t, 2_000);
  const progress: PrepareProgress[] = [];
  const first = await preparation.prepare({ spec, cacheDir, racyMs, onProgress: (p) => progress.push(p) });
  t.after(() => first.close());
  assert.equal(first.cache, 'miss');
  assert.equal(first.catalogue.operations.length, 2_000);
  assert.equal(preparation.stats!().started, 1);
  // Every phase, in order, the percentages never going back.
  const phases = [...new Set(progress.map((p) => p.phase))];
  assert.deepEqual(phases, ['reading', 'parsing', 'resolving', 'cataloguing', 'indexing', 'writing', 'opening']);
  assert.ok(progress.every((p, i) => i === 0 || p.percent >= progress[i - 1]!.percent));
  assert.equal(progress.at(-1)!.percent, 100);
  assert.ok(progress.some((p) => p.phase === 'indexing' && p.operations !== undefined && p.operations > 0));

  const again = await preparation.prepare({ spec, cacheDir, racyMs });
  t.after(() => again.close());
  assert.equal(again.cache, 'hit');
  assert.equal(preparation.stats!().started, 1, 'no process prepared it again');
  assert.deepEqual(
    again.search.search('create things of kind 7', 3).map((h) => h.op.id),
    first.search.search('create things of kind 7', 3).map((h) => h.op.id),
  );
  // Details come from the store when asked, with the component names the document gave them.
  const create = again.catalogue.byId('things7.create')!;
  assert.equal(again.catalogue.refNames.get(create.requestBody!.schema!), 'Thing7');
});

test('the preparing process runs below normal priority: the companion serving calls comes first for the CPU', T, async (t) => {
  const { spec, cacheDir, preparation, racyMs } = setup(t, 2_000);
  const priorities: number[] = [];
  const prepared = await preparation.prepare({
    spec,
    cacheDir,
    racyMs,
    onProgress: (p) => {
      if (p.phase !== 'parsing' || priorities.length > 0) return;
      const [pid] = preparation.stats!().running;
      if (pid !== undefined) priorities.push(getPriority(pid));
    },
  });
  t.after(() => prepared.close());
  // Nice 10, or the parent's own when it runs nicer still (a process may not raise its children above itself).
  assert.equal(priorities.length, 1, 'seen while it parsed');
  assert.equal(priorities[0], Math.max(constants.priority.PRIORITY_BELOW_NORMAL, getPriority()));
});

test('a store that fails its checks is prepared again, never used', T, async (t) => {
  const { spec, cacheDir, preparation, racyMs } = setup(t, 500);
  (await preparation.prepare({ spec, cacheDir, racyMs })).close();
  const file = storeFileOf(spec, cacheDir);
  const bytes = readFileSync(file);
  bytes[100] = bytes[100]! ^ 0x20; // in the first section
  writeFileSync(file, bytes);
  const rebuilt = await preparation.prepare({ spec, cacheDir, racyMs });
  t.after(() => rebuilt.close());
  assert.equal(rebuilt.cache, 'miss');
  assert.equal(rebuilt.catalogue.operations.length, 500);
  assert.equal(preparation.stats!().started, 2);
});

test('a preparation is cancelled with its process: nothing it wrote is used', T, async (t) => {
  const { spec, cacheDir, preparation } = setup(t, 20_000);
  const cancel = new AbortController();
  const running = preparation.prepare({
    spec,
    cacheDir,
    signal: cancel.signal,
    onProgress: (p) => {
      if (p.phase === 'indexing') cancel.abort(new Error('cancelled by the test'));
    },
  });
  await assert.rejects(running, /cancelled by the test/);
  assert.deepEqual(preparation.stats!().running, [], 'its process is gone');
  assert.equal(existsSync(storeFileOf(spec, cacheDir)), false);
  assert.deepEqual(existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.bin')) : [], []);
});

test('a document over a cap is refused, naming the cap and how to raise it', T, async (t) => {
  const { spec, cacheDir, preparation } = setup(t, 5_000, 24);
  // The size cap.
  await assert.rejects(
    preparation.prepare({ spec, cacheDir, maxBytes: 1024 * 1024 }),
    (error: unknown) => error instanceof AirlockError && /over the 1\.0 MB cap on API documents/.test(error.message) && /--spec-max-mb/.test(error.hint ?? ''),
  );
  // The memory cap of the preparing process (24 MB is too little for 5,000 operations).
  await assert.rejects(
    preparation.prepare({ spec, cacheDir }),
    (error: unknown) => error instanceof AirlockError && /needs more than 24 MB to prepare/.test(error.message) && /--prepare-memory-mb/.test(error.hint ?? ''),
  );
});
