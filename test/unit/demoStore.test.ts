import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDemoStore, type DemoStore } from '../../main/core/demo/demoStore.ts';
import { DemoApiError, type DemoEvent, type ListQuery } from '../../main/core/demo/demoModel.ts';
import { SEED_SIZE } from '../../main/core/demo/demoSeed.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';

const NOW = new Date('2030-06-01T12:00:00Z');

function withStore(run: (store: DemoStore, file: string) => void, now: () => Date = () => NOW): void {
  const { dir, cleanup } = tempDir('airlock-demo-store-');
  const file = join(dir, 'events.sqlite');
  const store = openDemoStore({ file, now });
  try {
    run(store, file);
  } finally {
    store.close();
    cleanup();
  }
}

function all(store: DemoStore, query: ListQuery = {}): DemoEvent[] {
  return store.list({ ...query, limit: 100 }).data;
}

const input = {
  title: 'Repair café',
  category: 'workshop',
  city: 'Grenoble',
  venue: 'La Bifurk',
  start: '2030-06-10T14:00:00Z',
  end: '2030-06-10T18:00:00Z',
};

test('paging stays exact while events are added and removed between pages', () => {
  withStore((store) => {
    const first = store.list({ limit: 5 });
    const seen = first.data.map((e) => e.id);
    // Remove an event already returned and one not yet returned; add one later in the calendar.
    assert.ok(store.delete(first.data[0]!.id));
    const removedAhead = all(store)[10]!;
    assert.ok(store.delete(removedAhead.id));
    const added = store.create({ ...input, start: '2030-12-31T10:00:00Z', end: '2030-12-31T12:00:00Z' });
    let after = first.pagination.after;
    while (after) {
      const page = store.list({ limit: 5, after });
      seen.push(...page.data.map((e) => e.id));
      after = page.pagination.after;
    }
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    assert.ok(seen.includes(added.id), 'an event added ahead of the cursor is reached');
    assert.ok(!seen.includes(removedAhead.id), 'an event removed ahead of the cursor is not returned');
    assert.equal(seen.length, SEED_SIZE - 1 + 1);
  });
});

test('two stores on one file (desktop and a stdio fallback) share the data and seed it once', () => {
  withStore((store, file) => {
    const other = openDemoStore({ file, now: () => NOW });
    try {
      assert.equal(other.list().pagination.total, SEED_SIZE);
      const created = other.create(input);
      assert.equal(store.get(created.id)?.title, 'Repair café');
      assert.equal(store.list().pagination.total, SEED_SIZE + 1);
    } finally {
      other.close();
    }
  });
});

test('reset puts back the sample events, dated from now', () => {
  let now = NOW;
  withStore(
    (store) => {
      store.create(input);
      for (const e of all(store)) store.delete(e.id);
      assert.equal(store.list().pagination.total, 0);
      now = new Date('2031-01-01T00:00:00Z');
      store.reset();
      const events = all(store);
      assert.equal(events.length, SEED_SIZE);
      const earliest = Math.min(...events.map((e) => Date.parse(e.start)));
      assert.ok(earliest >= now.getTime() - 15 * 86_400_000 && earliest < now.getTime());
    },
    () => now,
  );
});

test('search ignores case and accents, and city matching is exact but case-insensitive', () => {
  withStore((store) => {
    store.create({ ...input, title: 'Fête de la musique', city: 'Besançon', venue: 'Théâtre Ledoux' });
    assert.deepEqual(
      all(store, { q: 'FETE theatre' }).map((e) => e.title),
      ['Fête de la musique'],
    );
    assert.deepEqual(
      all(store, { city: ['besancon'] }).map((e) => e.venue),
      ['Théâtre Ledoux'],
    );
    assert.equal(all(store, { city: ['Besan'] }).length, 0, 'city is not a substring match');
  });
});

test('direct callers get the same validation as HTTP callers', () => {
  withStore((store) => {
    assert.throws(
      () => store.list({ limit: 500 }),
      (error: unknown) => error instanceof DemoApiError && error.status === 400 && error.details?.[0]?.field === 'limit',
    );
    assert.throws(
      () => store.create({ ...input, currency: 'euros' }),
      (error: unknown) => error instanceof DemoApiError && error.status === 422 && error.details?.[0]?.field === 'currency',
    );
    assert.equal(store.patch('evt_missing000', { title: 'x' }), undefined);
    assert.equal(store.replace('evt_missing000', input), undefined);
    assert.equal(store.delete('evt_missing000'), false);
  });
});

test('an unreadable database file is an error that says what to do', () => {
  const { dir, cleanup } = tempDir('airlock-demo-store-');
  try {
    const file = join(dir, 'events.sqlite');
    writeFileSync(file, 'this is not a database, just some text long enough to fill a header page '.repeat(20));
    assert.throws(
      () => openDemoStore({ file }),
      (error: unknown) => error instanceof AirlockError && error.message.includes(file) && /delete that file/.test(error.hint ?? ''),
    );
  } finally {
    cleanup();
  }
});
