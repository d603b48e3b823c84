import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';

const tiny = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Tiny', version: '1' },
  paths: { '/x': { get: { operationId: 'x.get', responses: { 200: { description: 'ok' } } } } },
});

test('a URL document is fetched once, cached in the data dir, then used offline', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  let calls = 0;
  const fakeFetch = (async () => {
    calls++;
    return new Response(tiny, { status: 200 });
  }) as typeof fetch;
  const first = await loadApiDocument('https://example.test/openapi.json', { cacheDir: dir, fetch: fakeFetch });
  assert.equal(first.origin.fromCache, false);
  const offline = (async () => {
    throw new Error('offline');
  }) as typeof fetch;
  const second = await loadApiDocument('https://example.test/openapi.json', { cacheDir: dir, fetch: offline });
  assert.equal(second.origin.fromCache, true);
  assert.equal(second.document.info.title, 'Tiny');
  // refresh refetches; when that fails the cached copy is still used.
  const refreshed = await loadApiDocument('https://example.test/openapi.json', { cacheDir: dir, fetch: offline, refresh: true });
  assert.equal(refreshed.origin.fromCache, true);
  assert.equal(calls, 1);
  assert.equal(readFileSync(first.origin.cacheFile!, 'utf8'), tiny);
});

test('a URL that cannot be fetched and is not cached is a clear network error', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const failing = (async () => new Response('nope', { status: 503 })) as typeof fetch;
  await assert.rejects(loadApiDocument('https://example.test/spec.yaml', { cacheDir: dir, fetch: failing }), (e: unknown) => {
    assert.ok(e instanceof AirlockError);
    assert.equal(e.kind, 'network');
    assert.match(e.message, /https:\/\/example\.test\/spec\.yaml.*HTTP 503/);
    return true;
  });
});

test('bad inputs name the file and the problem', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const swagger = join(dir, 'swagger.json');
  writeFileSync(swagger, JSON.stringify({ swagger: '2.0', info: {}, paths: {} }));
  await assert.rejects(loadApiDocument(swagger, { cacheDir: dir }), /Swagger 2\.0; Airlock reads OpenAPI 3\.0 and 3\.1/);
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'openapi: 3.1.0\n  paths: [\n');
  await assert.rejects(loadApiDocument(broken, { cacheDir: dir }), (e: Error) => e.message.includes(broken) && /not valid JSON or YAML/.test(e.message));
  await assert.rejects(loadApiDocument(join(dir, 'missing.yaml'), { cacheDir: dir }), /cannot read OpenAPI document .*missing\.yaml: ENOENT/);
  const notOpenApi = join(dir, 'x.json');
  writeFileSync(notOpenApi, '{"hello": 1}');
  await assert.rejects(loadApiDocument(notOpenApi, { cacheDir: dir }), /not an OpenAPI 3\.x document/);
});

test('external $refs relative to the file are resolved when the profile allows their directory', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  writeFileSync(join(dir, 'pet.yaml'), 'type: object\nproperties:\n  name: { type: string }\n');
  writeFileSync(
    join(dir, 'api.yaml'),
    'openapi: 3.0.3\ninfo: { title: Pets, version: "1" }\npaths:\n  /pets:\n    get:\n      operationId: pets.list\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: "./pet.yaml" }\n',
  );
  await assert.rejects(loadApiDocument(join(dir, 'api.yaml'), { cacheDir: dir }), /\$ref "\.\/pet\.yaml" points outside the document/);
  const loaded = await loadApiDocument(join(dir, 'api.yaml'), { cacheDir: dir, allowExternalRefs: [dir] });
  assert.equal(loaded.document.paths!['/pets'].get.responses['200'].content['application/json'].schema.properties.name.type, 'string');
});

test("YAML with $refs to components resolves (the demo API's document, OpenAPI 3.1)", async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const loaded = await loadApiDocument(DEMO_SPEC, { cacheDir: dir });
  assert.equal(loaded.origin.kind, 'file');
  assert.equal(loaded.document.openapi, '3.1.0');
  const byId = loaded.document.paths!['/events/{eventId}'];
  assert.equal(byId.parameters[0].name, 'eventId'); // was { $ref: '#/components/parameters/EventId' }
  assert.equal(byId.parameters[0].in, 'path');
  assert.equal(byId.get.responses['200'].content['application/json'].schema.properties.id.type, 'string'); // #/components/schemas/Event
});

test('a YAML document is parsed once; later loads read the cached parse, and an edit is never served stale', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'api.yaml');
  writeFileSync(file, 'openapi: 3.1.0\ninfo: { title: First, version: "1" }\npaths: {}\n');
  assert.equal((await loadApiDocument(file, { cacheDir: join(dir, 'cache') })).document.info.title, 'First');
  const cached = readdirSync(join(dir, 'cache')).filter((f) => f.startsWith('parsed-'));
  assert.equal(cached.length, 1);
  assert.equal((await loadApiDocument(file, { cacheDir: join(dir, 'cache') })).document.info.title, 'First');
  writeFileSync(file, 'openapi: 3.1.0\ninfo: { title: Second, version: "1" }\npaths: {}\n');
  assert.equal((await loadApiDocument(file, { cacheDir: join(dir, 'cache') })).document.info.title, 'Second');
});
