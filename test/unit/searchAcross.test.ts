// One query over several APIs (search_docs for a session that reaches more
// than one): the hits of each API merged on comparable scores, the API a
// request names or is written in first, and one API's own ranking untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import { searchAcross } from '../../main/core/search/searchAcross.ts';
import { terms } from '../../main/core/search/textProcessing.ts';

type Op = Record<string, unknown>;
const op = (operationId: string, summary: string): Op => ({ operationId, summary, responses: { 200: { description: 'ok' } } });

function source(name: string, paths: Record<string, Record<string, Op>>) {
  const catalogue = buildCatalogue({ openapi: '3.1.0', info: { title: name, version: '1' }, paths });
  return { name, names: [name], search: new OperationSearch(catalogue) };
}

const agenda = source('agenda', {
  '/events': { get: op('events.list', 'List events'), post: op('events.create', 'Create an event') },
  '/events/{id}': { get: op('events.get', 'Get an event'), delete: op('events.delete', 'Delete an event') },
});
/** A big API about other things, whose many operations share a word or two with requests about events. */
const forge = source(
  'forge',
  Object.fromEntries(
    Array.from({ length: 120 }, (_, i) => [
      `/repos/{owner}/{repo}/thing${i}`,
      { get: op(`repos.thing${i}.list`, `List thing ${i} of a repository`), post: op(`repos.thing${i}.create`, `Create a thing ${i} for a repository`) },
    ]),
  ),
);
const billing = source('billing', {
  '/accounts/{id}': { get: op('accounts.get', 'Retrieve an account') },
  '/customers': { get: op('customers.list', 'List customers') },
});
const people = source('people', {
  '/accounts/{id}': { get: op('accounts.show', 'Show an account') },
  '/users': { get: op('users.list', 'List users') },
});

test('a strong match in a small API is not buried under weak matches from a big one', () => {
  const hits = searchAcross([forge, agenda], 'list events', 8);
  assert.equal(hits[0]?.from, agenda);
  assert.equal(hits[0]?.op.id, 'events.list');
  // Each hit says which API it belongs to.
  assert.ok(hits.every((h) => h.from === agenda || h.from === forge));
});

test('the API a request names comes first when two APIs have an operation of the same kind', () => {
  for (const [named, expected] of [
    [billing, 'accounts.get'],
    [people, 'accounts.show'],
  ] as const) {
    const hits = searchAcross([billing, people], `get my ${named.name} account`, 3);
    assert.equal(hits[0]?.from, named, `asked about ${named.name}`);
    assert.equal(hits[0]?.op.id, expected);
  }
});

test('one API in scope: its own ranking and scores, unchanged', () => {
  for (const q of ['delete an event', 'list events', 'create event']) {
    assert.deepEqual(
      searchAcross([agenda], q, 5).map((h) => [h.op.id, h.score]),
      agenda.search.search(q, 5).map((h) => [h.op.id, h.score]),
    );
  }
});

test('the merged list is best first and holds at most the limit', () => {
  const hits = searchAcross([forge, agenda, billing, people], 'list', 5);
  assert.equal(hits.length, 5);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
});

test("an API knows the words of its operations' names and parameters, not others", () => {
  const term = (word: string) => terms(word)[0]!;
  assert.equal(agenda.search.knows(term('events')), true);
  assert.equal(agenda.search.knows(term('delete')), true);
  assert.equal(agenda.search.knows(term('repository')), false);
  assert.equal(forge.search.knows(term('repository')), true);
});

test('a word every API in reach knows does not favour any; one only an API knows favours it', () => {
  // "thing" is only forge's word, "event" only agenda's: each request goes to the API that speaks it.
  assert.equal(searchAcross([agenda, forge], 'list the things', 3)[0]?.from, forge);
  assert.equal(searchAcross([agenda, forge], 'list the events', 3)[0]?.from, agenda);
});

test("a name that is also another API's word is no name: a profile called 'events' is not favoured for every request about events", () => {
  const events = source('events', { '/events': { get: op('events.list', 'List events') } });
  const other = source('calendar', { '/events': { get: op('events.list', 'List events') } });
  // The same operation in both: the request names neither ("events" is calendar's word too), so neither gains.
  const hits = searchAcross([other, events], 'list events', 2);
  assert.equal(hits[0]!.score, hits[1]!.score);
  // A name no other API uses as a word is a name.
  assert.equal(searchAcross([other, events], 'list calendar events', 2)[0]?.from, other);
});
