import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import { DEMO_SPEC, GITHUB_SPEC, tempDir } from '../helpers/paths.ts';
import { requireOpenAgenda } from '../helpers/openAgenda.ts';

async function catalogueOf(spec: string): Promise<Catalogue> {
  const { dir, cleanup } = tempDir();
  try {
    const loaded = await loadApiDocument(spec, { cacheDir: dir });
    return buildCatalogue(loaded.document, loaded.refNames);
  } finally {
    cleanup();
  }
}

test("the demo API's document becomes its 7 operations with call paths from their operationIds", async () => {
  const cat = await catalogueOf(DEMO_SPEC);
  assert.equal(cat.operations.length, 7);
  const list = cat.byId('events.list')!;
  assert.equal(list.call, 'api.events.list');
  assert.equal(list.method, 'GET');
  assert.equal(list.path, '/events');
  // A path-level $ref to components/parameters is resolved and inherited.
  const eventId = cat.byId('events.delete')!.parameters.find((p) => p.name === 'eventId')!;
  assert.equal(eventId.in, 'path');
  assert.equal(eventId.required, true);
  assert.equal(eventId.schema?.type, 'string');
  assert.ok(list.synonyms.includes('upcoming'));
  assert.ok(list.codeSamples.length > 0);
  assert.equal(cat.byCall('api.events.create')?.mutation, true);
  assert.equal(cat.byCall('api.events.delete')?.mutation, true);
  assert.equal(list.mutation, false);
  assert.deepEqual(cat.servers[0], 'http://127.0.0.1');
  // The success response schema and the request body keep their component names.
  assert.equal(cat.refNames.get(list.responses[0]!.schema!), 'EventList');
  assert.equal(cat.refNames.get(cat.byId('events.create')!.requestBody!.schema!), 'EventInput');
});

test('the OpenAgenda contract becomes 24 operations with call paths from their operationIds', async (t) => {
  const spec = requireOpenAgenda(t);
  if (!spec) return;
  const cat = await catalogueOf(spec);
  assert.equal(cat.operations.length, 24);
  const list = cat.byId('agendas.events.list')!;
  assert.equal(list.call, 'api.agendas.events.list');
  assert.equal(list.method, 'GET');
  assert.equal(list.path, '/agendas/{agendaUid}/events');
  // $refs to components/parameters are resolved.
  const agendaUid = list.parameters.find((p) => p.name === 'agendaUid')!;
  assert.equal(agendaUid.in, 'path');
  assert.equal(agendaUid.required, true);
  assert.equal(agendaUid.schema?.type, 'integer');
  assert.ok(list.synonyms.includes('upcoming'));
  assert.ok(list.codeSamples.length > 0);
  assert.equal(cat.byCall('api.agendas.events.create')?.mutation, true);
  assert.equal(list.mutation, false);
  assert.deepEqual(cat.servers[0], 'https://api.openagenda.com/v3');
  // The success response schema keeps its component name.
  assert.equal(cat.refNames.get(list.responses[0]!.schema!), 'EventList');
  // A literal segment wins over a parameter at the same place.
  assert.equal(cat.match('POST', '/agendas/1/events/validate')?.id, 'agendas.events.validate');
  assert.equal(cat.match('GET', '/agendas/1/events/42')?.id, 'agendas.events.get');
});

let github: Promise<Catalogue> | undefined;
/** GitHub's document, loaded once for the tests that read it. */
const githubCatalogue = () => (github ??= catalogueOf(GITHUB_SPEC));

test('requests are matched to operations, literal segments first', async () => {
  const demo = await catalogueOf(DEMO_SPEC);
  assert.equal(demo.match('GET', '/events/evt_a1b2c3d4e5')?.id, 'events.get');
  assert.equal(demo.match('delete', '/events/evt_a1b2c3d4e5/')?.id, 'events.delete');
  assert.equal(demo.match('GET', '/events')?.id, 'events.list');
  assert.equal(demo.match('GET', '/nowhere'), undefined);
  // GitHub's /repos/{owner}/{repo}/issues/comments beside /repos/{owner}/{repo}/issues/{issue_number}.
  const cat = await githubCatalogue();
  assert.equal(cat.match('GET', '/repos/o/r/issues/comments')?.id, 'issues/list-comments-for-repo');
  assert.equal(cat.match('GET', '/repos/o/r/issues/42')?.id, 'issues/get');
  assert.equal(cat.match('POST', '/repos/o/r/issues/42/comments')?.id, 'issues/create-comment');
});

test("GitHub's document (1,223 operations, OpenAPI 3.0) loads with unique call paths", async () => {
  const cat = await githubCatalogue();
  assert.equal(cat.operations.length, 1223);
  assert.equal(cat.byId('issues/list-for-repo')?.call, 'api.issues.listForRepo');
  assert.equal(new Set(cat.operations.map((o) => o.call)).size, 1223);
});

test('operations without operationId get a route-derived call path', () => {
  const cat = buildCatalogue({
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1' },
    paths: {
      '/pets': { get: { tags: ['pets'], responses: {} }, post: { tags: ['pets'], 'x-airlock-mutation': true, responses: {} } },
      '/pets/{petId}': { parameters: [{ name: 'petId', in: 'path', schema: { type: 'string' } }], get: { tags: ['pets'], responses: {} } },
      '/search': {
        post: { operationId: 'search', 'x-airlock-mutation': false, responses: {} },
        get: { operationId: 'lookup', 'x-airlock-mutation': true, responses: {} },
      },
    },
  });
  assert.deepEqual(
    cat.operations.map((o) => o.call),
    ['api.pets.getPets', 'api.pets.postPets', 'api.pets.getPetsByPetId', 'api.lookup', 'api.search'],
  );
  // Path-level parameters are inherited.
  assert.equal(cat.operations[2]!.parameters[0]!.name, 'petId');
  // x-airlock-mutation turns a read into a mutation; it cannot turn a write into a read.
  assert.equal(cat.byId('lookup')!.mutation, true);
  assert.equal(cat.byId('search')!.mutation, true);
});

test('attack: two operations sharing an operationId get distinct, stable names, and search and execute agree on each', () => {
  const ok = { 200: { description: 'ok' } };
  const doc = {
    openapi: '3.1.0',
    info: { title: 'Dup', version: '1' },
    paths: {
      '/notes': { get: { operationId: 'notes.handle', summary: 'List the notes', responses: ok } },
      '/notes/{id}': {
        delete: { operationId: 'notes.handle', summary: 'Delete a note for good', parameters: [{ name: 'id', in: 'path', required: true }], responses: ok },
      },
    },
  };
  const catalogue = buildCatalogue(doc as never);
  const [list, del] = catalogue.operations;
  assert.equal(list!.id, 'notes.handle');
  assert.equal(del!.id, 'notes.handle#2');
  assert.equal(del!.operationId, 'notes.handle');
  assert.notEqual(list!.call, del!.call);
  assert.equal(catalogue.warnings.length, 1);
  assert.match(catalogue.warnings[0]!, /'notes\.handle' is used by 2 operations; the later ones are called 'notes\.handle#2' \(DELETE \/notes\/\{id\}\)/);
  // What search_docs shows for "delete a note" is the call that execute runs: same operation, same method and path.
  const search = new OperationSearch(catalogue);
  const hit = search.search('delete a note', 1)[0]!;
  assert.equal(hit.op.method, 'DELETE');
  const manifest = catalogue.operations.map((o) => ({ operationId: o.id, callPath: o.callPath }));
  const entry = manifest.find((m) => ['api', ...m.callPath].join('.') === hit.op.call)!;
  const ran = catalogue.byId(entry.operationId)!;
  assert.equal(`${ran.method} ${ran.path}`, 'DELETE /notes/{id}');
  // Stable: building again gives the same names.
  assert.deepEqual(
    buildCatalogue(doc as never).operations.map((o) => [o.id, o.call]),
    catalogue.operations.map((o) => [o.id, o.call]),
  );
});
