// The recall engine and the compact index read parts of a MiniSearch index
// that are not its public API (main/core/search/miniSearchInternals.ts). They
// are pinned to one MiniSearch release, and this checks the pin and every
// part read, on a real index: an upgrade that moves one fails here, by name,
// not as a wrong ranking somewhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { MINISEARCH_VERSION, type IndexInternals } from '../../main/core/search/miniSearchInternals.ts';
import { ROOT } from '../helpers/paths.ts';

const T = { timeout: 10_000 };

test('MiniSearch is pinned to the release whose internals are read, in package.json and installed', T, () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.equal(pkg.dependencies.minisearch, MINISEARCH_VERSION, 'package.json pins the exact release (no range)');
  const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'minisearch', 'package.json'), 'utf8')) as { version: string };
  assert.equal(installed.version, MINISEARCH_VERSION);
});

test('every internal part read is there, with the shape read, on a real index', T, () => {
  const mini = new MiniSearch({ fields: ['name', 'summary'], searchOptions: { boost: { name: 2 } } });
  mini.addAll([
    { id: 'a', name: 'list events', summary: 'List the events of an agenda' },
    { id: 'b', name: 'create event', summary: 'Create an event' },
  ]);
  const inside = mini as unknown as IndexInternals;
  const postings = inside._index.get('events');
  assert.ok(postings instanceof Map, '_index.get(term) gives the postings by field');
  const nameField = inside._fieldIds.name!;
  assert.equal(typeof nameField, 'number', '_fieldIds maps a field to its id');
  assert.equal(postings.get(nameField)?.get(0), 1, 'postings: field id → short id → how often');
  assert.deepEqual([...inside._index.atPrefix('even')].map(([term]) => term).sort(), ['event', 'events'], '_index.atPrefix(prefix) lists the terms under it');
  assert.ok(inside._index.fuzzyGet('evnts', 1).has('events'), '_index.fuzzyGet(term, distance) finds the term');
  assert.equal(inside._avgFieldLength.length, 2, 'one average length per field');
  assert.deepEqual(inside._fieldLength.get(0), [2, 6], 'each document’s field lengths, by short id');
  assert.equal(inside._documentCount, 2);
  assert.equal(inside._documentIds.get(1), 'b', 'short id → the document id');
  assert.equal(inside._dirtCount, 0);
  assert.equal(inside._nextId, 2);
  assert.deepEqual(inside._options.fields, ['name', 'summary']);
  assert.equal(typeof inside._options.tokenize, 'function');
  assert.equal(typeof inside._options.processTerm, 'function');
  assert.deepEqual(inside._options.searchOptions.boost, { name: 2 });
});
