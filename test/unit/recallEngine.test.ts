// Recall's engine (search/recallEngine.ts) works each index word's BM25 out
// once and adds the query's words up itself. It must give exactly what
// MiniSearch's own search gives — the same operations, the same scores to the
// last bit, ties in the same order — on a freshly built index, on one
// restored from MiniSearch's own form, and on the compact form a served API
// keeps (built, and read back from its JSON form), for every request of the
// search evaluation and for queries that reach prefix and fuzzy matches,
// typo fixes, synonyms and learnt words. A MiniSearch upgrade that changes
// its internals fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import { readQuery } from '../../main/core/search/queryParsing.ts';
import { RecallEngine } from '../../main/core/search/recallEngine.ts';
import { type SearchIndex, buildSearchIndex, loadSearchIndex, recall, recallQueries, tagTexts } from '../../main/core/search/searchIndex.ts';
import { CompactIndex } from '../../main/core/search/compactIndex.ts';
import { CANDIDATES } from '../../main/core/search/weights.ts';
import { DEMO_SPEC, OPENAGENDA_SPEC } from '../helpers/paths.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const EVAL = join(ROOT, 'bench', 'search-eval');

/** Queries beyond the evaluation's: prefixes, typos, long unknown words (fuzzy), repeated and stop words, synonyms. */
const EXTRA = [
  'list list repos',
  'webhoks for a repositry',
  'authentification tokens',
  'remove the ticket',
  'who can see this',
  'the of and',
  'x',
  'constructor __proto__ toString',
  'créer un évènement',
  'organizationmembershipinvitations',
  // More than 32 different words: which words reached an operation no longer fits one 32-bit mask.
  'list create update delete repository issue comment label milestone project column card team member invitation webhook event release asset branch commit tag tree blob gist star watcher fork pull review deployment status check secret variable runner workflow artifact cache package billing',
];

function sets(): { name: string; spec: string; queries: string[] }[] {
  const out = [{ name: 'demo', spec: DEMO_SPEC, queries: ['list events', 'delete an event', 'create a venue'] }];
  for (const file of readdirSync(EVAL).sort()) {
    const set = JSON.parse(readFileSync(join(EVAL, file), 'utf8')) as { spec?: string; queries: { q: string }[] };
    const name = file.replace(/\.json$/, '');
    // OpenAgenda's set reads the contract from beside the repository when it is there (its requests are French and English).
    const spec = set.spec ? join(ROOT, set.spec) : name === 'openagenda' ? OPENAGENDA_SPEC : undefined;
    if (spec) out.push({ name, spec, queries: set.queries.map((q) => q.q) });
  }
  return out;
}

/** Recall on `index` gives what MiniSearch's own search gives on `reference` (by default, `index` itself). */
function same(
  index: SearchIndex | CompactIndex,
  query: string,
  context: { vocabulary: Set<string>; learned: Record<string, string[]> },
  reference: SearchIndex = index as SearchIndex,
): void {
  const read = readQuery(query, context);
  const known = (t: string) => context.vocabulary.has(t);
  const mine = recall(index, query, read, known).map((r) => [r.id, r.score]);
  const theirs = reference
    .search({ combineWith: 'OR', queries: recallQueries(query, read, known) })
    .slice(0, CANDIDATES)
    .map((r) => [r.id, r.score]);
  assert.deepEqual(mine, theirs, query);
}

test('recall gives exactly what MiniSearch gives, on built, restored and compact indexes, for every evaluation request', { timeout: 240_000 }, async (t) => {
  let compared = 0;
  const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-recall-'));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  for (const set of sets()) {
    const { document, refNames } = await loadApiDocument(set.spec, { cacheDir });
    const catalogue = buildCatalogue(document, refNames);
    const state = new OperationSearch(catalogue, { tags: document.tags }).toJSON();
    const context = { vocabulary: new Set(state.vocabulary), learned: state.learned };
    const built = buildSearchIndex(catalogue, tagTexts(document.tags));
    const restored = loadSearchIndex(JSON.parse(JSON.stringify(built.toJSON())));
    const compact = CompactIndex.of(buildSearchIndex(catalogue, tagTexts(document.tags)));
    // What a served API searches: the compact form, as the search keeps it and read back from its saved form.
    const kept = CompactIndex.fromJSON(JSON.parse(JSON.stringify(state.index)));
    assert.ok(RecallEngine.for(built) && RecallEngine.for(restored), `${set.name}: the engine reads this MiniSearch's index`);
    for (const query of [...set.queries, ...EXTRA]) {
      // Twice each: the first search fills the engine's word cache, the second reads it. A compact index holds its
      // words in the order MiniSearch's saved form lists them, as a restored MiniSearch index does: that is its reference.
      for (const [index, reference] of [
        [built, built],
        [restored, restored],
        [compact, restored],
        [kept, restored],
      ] as const) {
        same(index, query, context, reference);
        same(index, query, context, reference);
      }
      compared++;
    }
  }
  assert.ok(compared > 500, `only ${compared} requests compared`);
});

function smallIndex(): SearchIndex {
  const catalogue = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: {
      '/tickets': { get: { operationId: 'tickets.list', summary: 'List tickets', responses: { 200: { description: 'ok' } } } },
      '/tickets/{id}': { delete: { operationId: 'tickets.delete', summary: 'Delete a ticket', responses: { 204: { description: 'gone' } } } },
    },
  });
  return buildSearchIndex(catalogue, {});
}

test('a limit of 0 finds nothing and leaves the next search as MiniSearch gives it', () => {
  const index = smallIndex();
  const engine = RecallEngine.for(index)!;
  const read = readQuery('list tickets', { vocabulary: new Set(), learned: {} });
  assert.deepEqual(
    engine.search(
      recallQueries('list tickets', read, () => false),
      0,
    ),
    [],
  );
  same(index, 'list tickets', { vocabulary: new Set(), learned: {} });
  same(index, 'delete a ticket', { vocabulary: new Set(), learned: {} });
});

test('an index that gains a document after its first search is read again, not served from what was worked out', () => {
  const index = smallIndex();
  same(index, 'tickets', { vocabulary: new Set(), learned: {} });
  index.add({
    id: 2,
    operationId: 'tickets.create',
    summary: 'Create a ticket',
    path: 'tickets',
    tags: '',
    params: '',
    schemas: '',
    enums: '',
    synonyms: '',
    paramDocs: '',
    description: '',
    tagDocs: '',
  } as never);
  same(index, 'tickets', { vocabulary: new Set(), learned: {} });
  assert.ok(recall(index, 'tickets', readQuery('tickets', { vocabulary: new Set(), learned: {} })).some((r) => r.id === 2));
});

test('index-wide search options the engine does not apply as MiniSearch does leave the index to MiniSearch', () => {
  const withOptions = (searchOptions: object) => {
    const index = smallIndex() as unknown as { _options: { searchOptions: object } };
    index._options.searchOptions = { ...index._options.searchOptions, ...searchOptions };
    return index;
  };
  assert.ok(RecallEngine.for(smallIndex()));
  assert.equal(RecallEngine.for(withOptions({ boostTerm: () => 2 })), undefined);
  assert.equal(RecallEngine.for(withOptions({ filter: () => true })), undefined);
  assert.equal(RecallEngine.for(withOptions({ boostDocument: () => 1 })), undefined);
  assert.equal(RecallEngine.for(withOptions({ weights: { fuzzy: 0.5 } })), undefined);
});

test('an index the engine does not know (documents removed) is searched by MiniSearch itself', () => {
  const catalogue = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: { '/a': { get: { operationId: 'a.list', summary: 'List a', responses: { 200: { description: 'ok' } } } } },
  });
  const index = buildSearchIndex(catalogue, {});
  index.discard(0);
  assert.equal(RecallEngine.for(index), undefined);
  assert.deepEqual(recall(index, 'list', readQuery('list', { vocabulary: new Set(), learned: {} })), []);
});
