// Search on documents the repository has: the demo API's (resources/), and
// small ones written here. Search quality on OpenAgenda's own wording needs
// its contract, which is not in the repository (test/helpers/openAgenda.ts):
// those tests skip with one line without it.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import { renderSearchResults } from '../../main/core/search/renderResults.ts';
import { terms } from '../../main/core/search/textProcessing.ts';
import { expandQuery } from '../../main/core/search/synonyms.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';
import { describeWithOpenAgenda } from '../helpers/openAgenda.ts';

/** A document's catalogue and its search index. */
async function indexed(spec: string): Promise<{ catalogue: Catalogue; search: OperationSearch }> {
  const { dir, cleanup } = tempDir();
  try {
    const loaded = await loadApiDocument(spec, { cacheDir: dir });
    const catalogue = buildCatalogue(loaded.document, loaded.refNames);
    return { catalogue, search: new OperationSearch(catalogue) };
  } finally {
    cleanup();
  }
}

let catalogue: Catalogue;
let search: OperationSearch;

before(async () => {
  ({ catalogue, search } = await indexed(DEMO_SPEC));
});

const top = (q: string) => search.search(q, 5)[0]?.op.id;

test('text processing folds case, accents, camelCase and plurals', () => {
  assert.deepEqual(terms('getByExtId'), ['get', 'by', 'ext', 'id']);
  assert.deepEqual(terms('Événements à venir'), ['evenement', 'venir']);
  assert.deepEqual(terms('the categories of agendas'), ['category', 'agenda']);
});

test('built-in synonyms map French and idiomatic wording to API vocabulary', () => {
  assert.ok(expandQuery('combien d’événements').includes('count'));
  assert.ok(expandQuery('how many events').includes('facets'));
  assert.ok(expandQuery('supprimer un lieu').includes('delete'));
  assert.ok(expandQuery('événements à venir').includes('upcoming'));
  assert.ok(expandQuery('créer un événement').includes('create'));
});

test('plain requests find the operation a person means (demo API)', () => {
  assert.equal(top('upcoming events in Paris'), 'events.list');
  assert.equal(top('delete an event'), 'events.delete');
  assert.equal(top('create an event'), 'events.create');
  assert.equal(top('get an event by id'), 'events.get');
  assert.equal(top('change the price of an event'), 'events.update');
});

test('French requests and typos are understood (demo API)', () => {
  assert.equal(top('supprimer un événement'), 'events.delete');
  assert.equal(top('événements à venir à Lyon'), 'events.list');
  assert.equal(top('upcomming evnets'), 'events.list');
  assert.equal(top('catgories'), 'categories.list');
});

test('x-synonyms from the document are searchable', () => {
  // "genres" appears only in categories.list's x-synonyms (and in no built-in synonym).
  assert.equal(top('genres'), 'categories.list');
});

test('an empty or meaningless query returns nothing instead of noise', () => {
  assert.deepEqual(search.search('   '), []);
  assert.deepEqual(search.search('zzzzqqq'), []);
});

test('the answer gives the top hit in full and the tail in one line each, within budget', () => {
  const q = 'upcoming events in Paris';
  const hits = search.search(q, 8);
  const text = renderSearchResults(q, hits, catalogue, { alias: 'demo', budget: 8000 });
  assert.ok(Buffer.byteLength(text) <= 8000);
  assert.match(text, /## 1\. api\.events\.list — GET \/events\n/);
  assert.match(text, /Call: await api\.events\.list\(\{ query: \{ … \} \}\)/);
  assert.match(text, /category: \("music" \| "theatre" \| .*\)\[\]/); // enum values shown
  assert.match(text, /limit: integer, default 20/); // defaults shown
  assert.match(text, /Returns 200 EventList: \{/); // response shape
  assert.match(text, /api\.events\.list\(\{ query: \{ city: \['Paris'\], limit: 10 \} \}\)/); // the document's own example
  assert.match(text, /eventId \(required\): string/); // a $ref'd path-level parameter, on the next hits
  assert.match(text, /Also relevant:\n- api\./);
  const small = renderSearchResults(q, hits, catalogue, { budget: 2500 });
  assert.ok(Buffer.byteLength(small) <= 2500);
});

describeWithOpenAgenda('search on the OpenAgenda v3 contract', (spec) => {
  let oa: { catalogue: Catalogue; search: OperationSearch };
  before(async () => {
    oa = await indexed(spec);
  });
  const oaTop = (q: string) => oa.search.search(q, 5)[0]?.op.id;

  test('plain requests find the operation a person means', () => {
    assert.equal(oaTop('upcoming events in Paris'), 'agendas.events.list');
    assert.equal(oaTop('delete an event'), 'agendas.events.delete');
    assert.equal(oaTop('create an event'), 'agendas.events.create');
    assert.equal(oaTop('how many events per city'), 'agendas.events.facets');
  });

  test('French requests and typos are understood', () => {
    assert.equal(oaTop('supprimer un événement'), 'agendas.events.delete');
    assert.equal(oaTop('événements à venir à Lyon'), 'agendas.events.list');
    assert.equal(oaTop('upcomming evnets'), 'agendas.events.list');
    assert.equal(oaTop('locatoins of an agenda'), 'agendas.locations.list');
  });

  test('x-synonyms from the document are searchable', () => {
    // "kpi" appears only in agendas.overview's x-synonyms.
    assert.equal(oaTop('kpi'), 'agendas.overview');
  });

  test("the answer gives the top hit in full, with the document's example under the alias", () => {
    const q = 'upcoming events in Paris';
    const text = renderSearchResults(q, oa.search.search(q, 8), oa.catalogue, { alias: 'oa', budget: 8000 });
    assert.ok(Buffer.byteLength(text) <= 8000);
    assert.match(text, /## 1\. api\.agendas\.events\.list — GET \/agendas\/\{agendaUid\}\/events/);
    assert.match(text, /Call: await api\.agendas\.events\.list\(\{ path: \{ agendaUid \}, query: \{ … \} \}\)/);
    assert.match(text, /agendaUid \(required\): integer/);
    assert.match(text, /relative: \("passed" \| "upcoming" \| "current"\)\[\]/);
    assert.match(text, /limit: integer, default 20/);
    assert.match(text, /Returns 200 EventList: \{/);
    assert.match(text, /oa\.agendas\.events\.list\(/); // the document's own example
  });

  test('related: the list that yields the ids an operation takes comes first, then its resource’s other verbs', async () => {
    const { relatedOperations } = await import('../../main/core/search/relatedOperations.ts');
    const related = relatedOperations(oa.catalogue, 'agendas.events.create')!.map((h) => h.op.id);
    assert.equal(related[0], 'agendas.list', 'where the agendaUid it needs comes from');
    for (const id of ['agendas.events.list', 'agendas.events.get', 'agendas.events.update', 'agendas.events.delete']) assert.ok(related.includes(id), id);
    assert.ok(!related.includes('agendas.events.create'), 'not itself');
    assert.ok(!related.includes('me.agendas.list'), 'nothing unrelated');
    const text = renderSearchResults('operations related to agendas.events.create', relatedOperations(oa.catalogue, 'agendas.events.create')!, oa.catalogue, {
      alias: 'oa',
    });
    assert.match(text, /## 1\. api\.agendas\.list — GET \/agendas\n/);
  });
});

test('operations without a sample get a generated, runnable skeleton', () => {
  const cat = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'Pets', version: '1' },
    paths: {
      '/pets/{petId}': {
        put: {
          operationId: 'pets.replace',
          summary: 'Replace a pet',
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer', example: 7 } }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, id: { type: 'integer', readOnly: true } } },
              },
            },
          },
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  });
  const s = new OperationSearch(cat);
  const text = renderSearchResults('replace a pet', s.search('replace a pet'), cat);
  assert.match(text, /const \{ data, error \} = await api\.pets\.replace\(\{\n {4}path: \{ petId: 7 \},\n {4}body: \{ name: "…" \},/);
  assert.match(text, /Body \(application\/json, required\): \{ name: string \}/); // readOnly id hidden
});

test('an API whose title already ends in "API" is not named "… API API"', async () => {
  const { apiName } = await import('../../main/core/mcp/apiName.ts');
  const { serverInstructions } = await import('../../main/core/mcp/instructions.ts');
  const { executeDescription } = await import('../../main/core/mcp/executeTool.ts');
  assert.equal(apiName('OpenAgenda API'), 'OpenAgenda API');
  assert.equal(apiName('Petstore'), 'Petstore API');
  assert.equal(apiName('GitHub v3 REST API'), 'GitHub v3 REST API');
  const catalogue = { title: 'OpenAgenda API', operations: [] } as never;
  const apis = [{ name: 'openagenda', id: 'openagenda', catalogue, search: undefined as never, clientNames: ['api'] }];
  const { namedOf } = await import('../../main/core/mcp/apisInReach.ts');
  const texts = [serverInstructions({ apis: apis.map(namedOf), hasExecute: true }), executeDescription({ apis: () => apis, boundary: () => '' })];
  assert.match(texts[0]!, /the OpenAgenda API \(0 operations\)/);
  for (const text of texts) assert.doesNotMatch(text, /API API/);
});

test('the card and its example carry the required header and cookie parameters, never the API key the document also declares', () => {
  const cat = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'Orders', version: '1' },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    security: [{ key: [] }],
    paths: {
      '/orders': {
        get: {
          operationId: 'orders.list',
          summary: 'List orders',
          parameters: [
            { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string', example: 'acme' } },
            { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'region', in: 'cookie', required: true, schema: { type: 'string', enum: ['eu', 'us'] } },
            { name: 'limit', in: 'query', schema: { type: 'integer' } },
          ],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  });
  const s = new OperationSearch(cat);
  const text = renderSearchResults('list orders', s.search('list orders'), cat);
  assert.match(text, /Call: await api\.orders\.list\(\{ query: \{ … \}, headers: \{ "X-Tenant" \}, cookies: \{ region \} \}\)/);
  assert.match(text, /Header parameters:\n {2}X-Tenant \(required\): string/);
  assert.match(text, /Cookie parameters:\n {2}region \(required\): "eu" \| "us"|Cookie parameters:\n {2}region \(required\)/);
  assert.match(text, /headers: \{ "X-Tenant": "acme" \},\n {4}cookies: \{ region: "eu" \},/);
  assert.doesNotMatch(text, /X-Api-Key/, 'Airlock sends the key: the card never asks for it');
  assert.doesNotMatch(text, /Body/, 'a GET shows no body');
});

test('typo correction fixes misspellings but never rewrites a real word into a catalogue word', () => {
  const cat = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'Polls', version: '1' },
    paths: {
      '/votes': { post: { operationId: 'votes.create', summary: 'Cast a vote', responses: { 201: { description: 'ok' } } } },
      '/events': { get: { operationId: 'events.list', summary: 'List events', responses: { 200: { description: 'ok' } } } },
      '/saves': { post: { operationId: 'saves.create', summary: 'Save a draft', responses: { 201: { description: 'ok' } } } },
    },
  });
  const s = new OperationSearch(cat);
  assert.deepEqual(s.corrected('add a note'), {}, '"note" is English: not read as "vote"');
  assert.deepEqual(s.corrected('what do I have'), {}, '"have" is not "save"');
  assert.deepEqual(s.corrected('list evnets'), { evnet: 'event' }, 'a misspelling is still fixed');
});

test('related: the list that yields the ids an operation takes comes first, then its resource’s other verbs (demo API)', async () => {
  const { relatedOperations } = await import('../../main/core/search/relatedOperations.ts');
  const related = relatedOperations(catalogue, 'events.delete')!.map((h) => h.op.id);
  assert.equal(related[0], 'events.list', 'where the eventId it needs comes from');
  for (const id of ['events.get', 'events.update', 'events.replace', 'events.create']) assert.ok(related.includes(id), id);
  assert.ok(!related.includes('events.delete'), 'not itself');
  assert.ok(!related.includes('categories.list'), 'nothing unrelated');
  assert.equal(relatedOperations(catalogue, 'no.such'), undefined);
  const text = renderSearchResults('operations related to events.delete', relatedOperations(catalogue, 'events.delete')!, catalogue, { alias: 'demo' });
  assert.match(text, /## 1\. api\.events\.list — GET \/events\n/);
});

test("the example uses the document's own request example when it has one", () => {
  const cat = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'Notes', version: '1' },
    paths: {
      '/notes': {
        post: {
          operationId: 'notes.create',
          summary: 'Create a note',
          requestBody: {
            content: {
              'application/json': {
                schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' }, pinned: { type: 'boolean' } } },
                examples: { simple: { value: { text: 'Buy milk', pinned: true } } },
              },
            },
          },
          responses: { 201: { description: 'ok' } },
        },
      },
    },
  });
  const text = renderSearchResults('create a note', new OperationSearch(cat).search('create a note'), cat);
  assert.match(text, /body: \{"text":"Buy milk","pinned":true\},/);
});

test('deprecated and admin operations make way for the everyday ones unless the query asks for them', () => {
  const op = (id: string, summary: string, extra: Record<string, unknown> = {}) => ({
    operationId: id,
    summary,
    responses: { 200: { description: 'ok' } },
    ...extra,
  });
  const cat = buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'Users', version: '1' },
    paths: {
      '/users/list': { get: op('users.listOld', 'List users', { deprecated: true }) },
      '/admin/users': { get: op('admin.users.list', 'List users') },
      '/users': { get: op('users.list', 'List users') },
    },
  });
  const s = new OperationSearch(cat);
  assert.equal(s.search('list users')[0]!.op.id, 'users.list');
  assert.equal(s.search('list users as an admin')[0]!.op.id, 'admin.users.list');
  assert.equal(s.search('list users, the deprecated way')[0]!.op.id, 'users.listOld');
  assert.match(renderSearchResults('list users', s.search('list users'), cat), /users\.listOld — GET \/users\/list \(deprecated\)/);
});

test('the instructions a client reads at initialize name the APIs in reach still loading, not "none is served"', async () => {
  const { serverInstructions } = await import('../../main/core/mcp/instructions.ts');
  const loading = (id: string) => ({ id, clientNames: ['api', id] });
  const several = serverInstructions({ apis: [loading('demo'), { ...loading('github'), title: 'GitHub v3 REST API', operations: 1223 }], hasExecute: true });
  assert.match(several, /2 APIs \(demo, github\)/);
  assert.match(several, /`demo` \(loading\), `github` \(GitHub v3 REST API, 1223 operations\)/);
  assert.doesNotMatch(several, /none is served/);
  const one = serverInstructions({ apis: [loading('demo')], hasExecute: true });
  assert.match(one, /the demo API \(loading\)/);
  assert.match(one, /the client is `api` \(or `demo`\)/);
  assert.match(serverInstructions({ apis: [], hasExecute: true }), /none is served to this session yet/);
});
