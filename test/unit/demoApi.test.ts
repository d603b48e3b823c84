import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startDemoServer, demoSpecPath, type DemoServer, type DemoServerOptions, type DemoRequestInfo } from '../../main/core/demo/demoServer.ts';
import { CATEGORIES, SORTS, STATUSES, type DemoEvent } from '../../main/core/demo/demoModel.ts';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue, type ApiOperation } from '../../main/core/openapi/catalogue.ts';
import { tempDir } from '../helpers/paths.ts';

const FIRST_RUN = new Date('2030-01-15T10:00:00Z');
const DAY = 86_400_000;

const servers: DemoServer[] = [];
const cleanups: (() => void)[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const c of cleanups) c();
});

function newDataDir(): string {
  const { dir, cleanup } = tempDir('airlock-demo-');
  cleanups.push(cleanup);
  return dir;
}

async function start(options: Partial<DemoServerOptions> = {}): Promise<DemoServer> {
  const server = await startDemoServer({ dataDir: newDataDir(), now: () => FIRST_RUN, ...options });
  servers.push(server);
  return server;
}

interface CallOptions {
  query?: Record<string, string | number | boolean | (string | number)[]>;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

interface Result {
  status: number;
  headers: Headers;
  body: any;
}

async function call(server: DemoServer, method: string, path: string, options: CallOptions = {}): Promise<Result> {
  const url = new URL(path, server.url);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
  }
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, headers: response.headers, body: text && isJson ? JSON.parse(text) : text };
}

/** Every page of a list query, following `pagination.after`. */
async function walk(server: DemoServer, query: CallOptions['query'] = {}, limit = 7): Promise<{ events: DemoEvent[]; totals: number[]; pages: number }> {
  const events: DemoEvent[] = [];
  const totals: number[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const r = await call(server, 'GET', '/events', { query: { ...query, limit, ...(after ? { after } : {}) } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.data.length <= limit);
    events.push(...r.body.data);
    totals.push(r.body.pagination.total);
    after = r.body.pagination.after;
    pages++;
    assert.ok(pages < 100, 'pagination does not end');
  } while (after);
  return { events, totals, pages };
}

const sampleInput = {
  title: 'Sunset jazz on the quay',
  description: 'A free concert by the river.',
  category: 'music',
  city: 'Bordeaux',
  venue: 'Quai des Chartrons',
  start: '2030-02-01T19:00:00+01:00',
  end: '2030-02-01T22:00:00+01:00',
  price: 0,
  tags: ['jazz', 'outdoor'],
};

/** Problems found checking `value` against a dereferenced JSON Schema (the subset the demo document uses). */
function schemaProblems(value: unknown, schema: any, at = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives)) {
    return alternatives.some((s: any) => schemaProblems(value, s, at).length === 0) ? [] : [`${at}: matches none of the alternatives`];
  }
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  const typeOk = (t: string) =>
    t === 'null'
      ? value === null
      : t === 'integer'
        ? Number.isInteger(value)
        : t === 'array'
          ? Array.isArray(value)
          : t === 'object'
            ? typeof value === 'object' && value !== null && !Array.isArray(value)
            : typeof value === t;
  if (types.length > 0 && !types.some(typeOk)) return [`${at}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not in the enum`];
  if (schema.format === 'date-time' && typeof value === 'string' && Number.isNaN(Date.parse(value))) return [`${at}: not a date-time`];
  const problems: string[] = [];
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => problems.push(...schemaProblems(item, schema.items, `${at}[${i}]`)));
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) problems.push(`${at}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in record) problems.push(...schemaProblems(record[key], sub, `${at}.${key}`));
    if (schema.additionalProperties === false) {
      for (const key of Object.keys(record)) if (!(key in (schema.properties ?? {}))) problems.push(`${at}.${key}: not in the schema`);
    }
  }
  return problems;
}

async function loadDemoCatalogue() {
  const loaded = await loadApiDocument(demoSpecPath(), { cacheDir: newDataDir() });
  return { document: loaded.document, catalogue: buildCatalogue(loaded.document, loaded.refNames) };
}

test('the demo OpenAPI document parses, and its enums are the ones the server enforces', async () => {
  assert.ok(existsSync(demoSpecPath()), demoSpecPath());
  const { document, catalogue } = await loadDemoCatalogue();
  assert.match(document.openapi, /^3\.1\./);
  assert.equal(catalogue.title, 'Airlock Demo Events API');
  assert.deepEqual(catalogue.operations.map((o) => o.call).sort(), [
    'api.categories.list',
    'api.events.create',
    'api.events.delete',
    'api.events.get',
    'api.events.list',
    'api.events.replace',
    'api.events.update',
  ]);
  for (const op of catalogue.operations) {
    assert.ok(op.summary && op.description, `${op.id} has a summary and a description`);
    assert.ok(op.synonyms.length >= 3, `${op.id} has x-synonyms`);
    const sample = op.codeSamples.find((s) => s.lang === 'JavaScript');
    assert.ok(sample, `${op.id} has a JavaScript code sample`);
    assert.ok(sample.source.includes(`await ${op.call}(`), `${op.id}'s sample calls ${op.call}`);
    assert.match(sample.source, /if \((\w+\.)?error\) throw new Error\((\w+\.)?error\.message\)/);
  }
  const schemas = document.components.schemas;
  assert.deepEqual(schemas.Category.enum, [...CATEGORIES]);
  assert.deepEqual(schemas.EventStatus.enum, [...STATUSES]);
  const list = catalogue.byId('events.list')!;
  assert.deepEqual(list.parameters.find((p) => p.name === 'sort')!.schema!.enum, [...SORTS]);
  assert.deepEqual(list.parameters.map((p) => p.name).sort(), ['after', 'category', 'city', 'free', 'from', 'limit', 'q', 'sort', 'status', 'to']);
  assert.equal(document.security, undefined, 'the demo API declares no security scheme');
});

test('every operation in the document is served, with the documented status and response shape', async () => {
  const server = await start();
  const { catalogue } = await loadDemoCatalogue();
  const bodyFor = (op: ApiOperation) => (op.id === 'events.update' ? { status: 'postponed' } : sampleInput);
  for (const op of catalogue.operations) {
    let path = op.path;
    if (path.includes('{eventId}')) {
      const created = await call(server, 'POST', '/events', { body: sampleInput });
      path = path.replace('{eventId}', encodeURIComponent(created.body.id));
    }
    const r = await call(server, op.method, path, op.requestBody ? { body: bodyFor(op) } : {});
    const success = op.responses[0]!;
    assert.equal(String(r.status), success.status, `${op.id}: ${JSON.stringify(r.body)}`);
    if (success.schema) {
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(schemaProblems(r.body, success.schema), [], `${op.id} response matches the document`);
    } else {
      assert.equal(r.body, '', `${op.id} answers with no body`);
    }
  }
});

test('GET /openapi.yaml serves the document with this server as its base URL', async () => {
  const server = await start();
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(server.url, `http://127.0.0.1:${server.port}`);
  const r = await call(server, 'GET', '/openapi.yaml');
  assert.equal(r.status, 200);
  const served = parseYaml(r.body);
  assert.deepEqual(
    served.servers.map((s: { url: string }) => s.url),
    [server.url],
  );
  assert.deepEqual(Object.keys(served.paths), Object.keys(parseYaml(await (await import('node:fs/promises')).readFile(demoSpecPath(), 'utf8')).paths));
});

test('the sample events are varied and spread from two weeks before the first run to three months after', async () => {
  const server = await start();
  const { events, totals } = await walk(server, {}, 100);
  assert.ok(events.length >= 20 && events.length <= 30, `${events.length} sample events`);
  assert.equal(totals[0], events.length);
  const starts = events.map((e) => Date.parse(e.start));
  assert.ok(Math.min(...starts) >= FIRST_RUN.getTime() - 15 * DAY);
  assert.ok(Math.min(...starts) < FIRST_RUN.getTime() - 7 * DAY);
  assert.ok(Math.max(...starts) <= FIRST_RUN.getTime() + 92 * DAY);
  assert.ok(Math.max(...starts) > FIRST_RUN.getTime() + 60 * DAY);
  assert.ok(new Set(events.map((e) => e.city)).size >= 10);
  assert.ok(new Set(events.map((e) => e.category)).size >= 8);
  assert.ok(events.some((e) => e.city === 'Paris') && events.some((e) => e.city === 'Tokyo'));
  assert.ok(events.some((e) => e.free) && events.some((e) => !e.free));
  assert.ok(events.some((e) => e.status === 'cancelled'));
  for (const e of events) {
    assert.match(e.id, /^evt_[a-z0-9]{10}$/);
    assert.equal(e.free, e.price === 0);
    assert.ok(Date.parse(e.end) >= Date.parse(e.start), e.title);
  }
  const categories = await call(server, 'GET', '/categories');
  assert.equal(categories.status, 200);
  assert.deepEqual(
    categories.body.data.map((c: { id: string }) => c.id),
    [...CATEGORIES],
  );
  for (const c of categories.body.data) {
    const inCategory = events.filter((e) => e.category === c.id);
    assert.equal(c.eventCount, inCategory.length, c.id);
    assert.equal(c.upcomingCount, inCategory.filter((e) => Date.parse(e.start) > FIRST_RUN.getTime()).length, c.id);
  }
});

test('paging with the cursor returns every event exactly once, in order, with a stable total', async () => {
  const server = await start();
  const { events: all } = await walk(server, {}, 100);
  const { events, totals, pages } = await walk(server, {}, 4);
  assert.equal(pages, Math.ceil(all.length / 4));
  assert.deepEqual(
    events.map((e) => e.id),
    all.map((e) => e.id),
  );
  assert.equal(new Set(events.map((e) => e.id)).size, all.length);
  assert.ok(totals.every((t) => t === all.length));
  const starts = events.map((e) => Date.parse(e.start));
  assert.deepEqual(
    starts,
    [...starts].sort((a, b) => a - b),
  );

  for (const sort of ['start.desc', 'createdAt.desc', 'price.asc', 'title.asc'] as const) {
    const walked = await walk(server, { sort }, 5);
    assert.equal(walked.events.length, all.length, sort);
    assert.equal(new Set(walked.events.map((e) => e.id)).size, all.length, sort);
    const [key, dir] = sort.split('.') as [keyof DemoEvent, string];
    const keys = walked.events.map((e) => (key === 'start' || key === 'createdAt' ? Date.parse(e[key] as string) : e[key]) as number | string);
    for (let i = 1; i < keys.length; i++) {
      assert.ok(dir === 'asc' ? keys[i - 1]! <= keys[i]! : keys[i - 1]! >= keys[i]!, `${sort} is ordered`);
    }
  }

  // A cursor only makes sense with the sort it came from.
  const first = await call(server, 'GET', '/events', { query: { limit: 2 } });
  const mixed = await call(server, 'GET', '/events', { query: { limit: 2, sort: 'price.desc', after: first.body.pagination.after } });
  assert.equal(mixed.status, 400);
  assert.equal(mixed.body.error.details[0].field, 'after');
  const forged = await call(server, 'GET', '/events', { query: { after: 'not-a-cursor' } });
  assert.equal(forged.status, 400);
  assert.equal(forged.body.error.details[0].field, 'after');
});

test('filters and full-text search select the right events and stay applied on every page', async () => {
  const server = await start();
  const { events: all } = await walk(server, {}, 100);
  const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const at = (days: number) => new Date(FIRST_RUN.getTime() + days * DAY).toISOString();
  const cases: { query: NonNullable<CallOptions['query']>; expect: (e: DemoEvent) => boolean }[] = [
    { query: { city: ['Paris', 'Lyon'] }, expect: (e) => e.city === 'Paris' || e.city === 'Lyon' },
    { query: { city: 'paris,LYON' }, expect: (e) => e.city === 'Paris' || e.city === 'Lyon' },
    { query: { category: ['music', 'festival'] }, expect: (e) => e.category === 'music' || e.category === 'festival' },
    { query: { status: 'cancelled' }, expect: (e) => e.status === 'cancelled' },
    { query: { free: true }, expect: (e) => e.price === 0 },
    { query: { free: false, city: 'Paris' }, expect: (e) => e.price > 0 && e.city === 'Paris' },
    { query: { from: at(0) }, expect: (e) => Date.parse(e.start) >= FIRST_RUN.getTime() },
    { query: { from: at(0), to: at(30) }, expect: (e) => Date.parse(e.start) >= FIRST_RUN.getTime() && Date.parse(e.start) <= FIRST_RUN.getTime() + 30 * DAY },
    { query: { q: 'jazz' }, expect: (e) => /jazz/i.test([e.title, e.description, e.city, e.venue].join(' ')) },
    // Case and accents are ignored, and every word must match somewhere.
    { query: { q: 'EBENE beethoven' }, expect: (e) => fold(e.title).includes('ebene') && fold(e.title + e.description).includes('beethoven') },
    { query: { q: 'philharmonie' }, expect: (e) => e.venue === 'Philharmonie de Paris' },
    {
      query: { q: 'paris', category: 'family', from: at(0) },
      expect: (e) => e.city === 'Paris' && e.category === 'family' && Date.parse(e.start) >= FIRST_RUN.getTime(),
    },
    { query: { q: '100%_' }, expect: () => false },
  ];
  for (const { query, expect } of cases) {
    const expected = all.filter(expect).map((e) => e.id);
    const label = JSON.stringify(query);
    if (!label.includes('100%')) assert.ok(expected.length > 0, `${label} selects some sample events`);
    const { events, totals } = await walk(server, query, 2);
    assert.deepEqual(events.map((e) => e.id).sort(), [...expected].sort(), label);
    assert.ok(
      totals.every((t) => t === expected.length),
      `${label}: total on every page`,
    );
  }
});

test('bad query parameters are refused with 400 naming the parameter', async () => {
  const server = await start();
  const cases: [NonNullable<CallOptions['query']>, string][] = [
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ category: ['music', 'jazz'] }, 'category'],
    [{ status: 'done' }, 'status'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2030-01-01T10:00:00' }, 'from'],
    [{ from: '2030-02-01T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 'to'],
    [{ free: 'maybe' }, 'free'],
    [{ sort: 'random' }, 'sort'],
    [{ q: ['a', 'b'] }, 'q'],
    [{ page: 2 }, 'page'],
  ];
  const { catalogue } = await loadDemoCatalogue();
  const errorSchema = catalogue.byId('events.list')!.responses.find((r) => r.status === '400')!.schema;
  for (const [query, field] of cases) {
    const r = await call(server, 'GET', '/events', { query });
    assert.equal(r.status, 400, JSON.stringify(query));
    assert.equal(r.body.error.code, 'invalid_parameter');
    assert.deepEqual(
      r.body.error.details.map((d: { field: string }) => d.field),
      [field],
      JSON.stringify(r.body),
    );
    assert.equal(r.body.error.details[0].in, 'query');
    assert.ok(r.body.error.message.includes(field));
    assert.deepEqual(schemaProblems(r.body, errorSchema), []);
  }
  const unknownOnGet = await call(server, 'GET', '/categories', { query: { verbose: 'true' } });
  assert.equal(unknownOnGet.status, 400);
  assert.equal(unknownOnGet.body.error.details[0].field, 'verbose');
});

test('create, get, replace, update and delete an event, with the documented status codes', async () => {
  let clock = FIRST_RUN;
  const server = await start({ now: () => clock });

  const created = await call(server, 'POST', '/events', { body: sampleInput });
  assert.equal(created.status, 201);
  const id: string = created.body.id;
  assert.match(id, /^evt_[a-z0-9]{10}$/);
  assert.equal(created.headers.get('location'), `/events/${id}`);
  assert.equal(created.body.start, '2030-02-01T18:00:00Z', 'dates come back in UTC');
  assert.equal(created.body.free, true);
  assert.equal(created.body.currency, 'EUR');
  assert.equal(created.body.status, 'scheduled');
  assert.equal(created.body.createdAt, FIRST_RUN.toISOString().replace('.000Z', 'Z'));

  const got = await call(server, 'GET', `/events/${id}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, created.body);
  const listed = await call(server, 'GET', '/events', { query: { q: 'chartrons' } });
  assert.deepEqual(
    listed.body.data.map((e: DemoEvent) => e.id),
    [id],
  );

  clock = new Date(FIRST_RUN.getTime() + 60_000);
  const replaced = await call(server, 'PUT', `/events/${id}`, {
    body: {
      title: 'Jazz at the docks',
      category: 'music',
      city: 'Nantes',
      venue: 'Les Machines',
      start: '2030-03-01T20:00:00Z',
      end: '2030-03-01T23:00:00Z',
      price: 12.5,
    },
  });
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.id, id);
  assert.equal(replaced.body.city, 'Nantes');
  assert.equal(replaced.body.price, 12.5);
  assert.equal(replaced.body.free, false);
  assert.equal(replaced.body.description, '', 'fields left out of a replacement go back to their defaults');
  assert.deepEqual(replaced.body.tags, []);
  assert.equal(replaced.body.createdAt, created.body.createdAt);
  assert.equal(replaced.body.updatedAt, clock.toISOString().replace('.000Z', 'Z'));

  // What was read can be written back as is: read-only fields are ignored.
  const roundTrip = await call(server, 'PUT', `/events/${id}`, { body: { ...replaced.body, id: 'evt_other00000', createdAt: '2000-01-01T00:00:00Z' } });
  assert.equal(roundTrip.status, 200);
  assert.equal(roundTrip.body.id, id);
  assert.equal(roundTrip.body.createdAt, created.body.createdAt);

  const patched = await call(server, 'PATCH', `/events/${id}`, { body: { status: 'postponed', tags: ['jazz'], price: null } });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.status, 'postponed');
  assert.deepEqual(patched.body.tags, ['jazz']);
  assert.equal(patched.body.price, 0, 'null resets an optional field to its default');
  assert.equal(patched.body.title, 'Jazz at the docks', 'fields not in the patch are kept');
  const mergePatch = await call(server, 'PATCH', `/events/${id}`, { body: { venue: 'Hangar 32' }, contentType: 'application/merge-patch+json' });
  assert.equal(mergePatch.status, 200);
  assert.equal(mergePatch.body.venue, 'Hangar 32');
  assert.equal((await call(server, 'GET', `/events/${id}`)).body.venue, 'Hangar 32');

  const deleted = await call(server, 'DELETE', `/events/${id}`);
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, '');
  const gone = await call(server, 'GET', `/events/${id}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, 'not_found');
  assert.equal((await call(server, 'DELETE', `/events/${id}`)).status, 404);
  assert.equal((await call(server, 'PATCH', `/events/${id}`, { body: { title: 'x' } })).status, 404);
  assert.equal((await call(server, 'PUT', `/events/${id}`, { body: sampleInput })).status, 404);
});

test('invalid bodies are refused: 422 naming each field, 400 for broken JSON, 415 for non-JSON, 413 over 1 MB', async () => {
  const server = await start();
  const fields = (r: Result) => r.body.error.details.map((d: { field: string }) => d.field).sort();

  const empty = await call(server, 'POST', '/events', { body: {} });
  assert.equal(empty.status, 422);
  assert.equal(empty.body.error.code, 'validation_failed');
  assert.deepEqual(fields(empty), ['category', 'city', 'end', 'start', 'title', 'venue']);
  assert.ok(empty.body.error.details.every((d: { in: string; message: string }) => d.in === 'body' && d.message === 'is required'));

  const wrong = await call(server, 'POST', '/events', { body: { ...sampleInput, category: 'jazz', price: -5, start: 'tomorrow', titel: 'typo' } });
  assert.equal(wrong.status, 422);
  assert.deepEqual(fields(wrong), ['category', 'price', 'start', 'titel']);
  assert.match(wrong.body.error.details.find((d: { field: string }) => d.field === 'category').message, /music/);

  const backwards = await call(server, 'POST', '/events', { body: { ...sampleInput, end: '2030-02-01T10:00:00Z' } });
  assert.equal(backwards.status, 422);
  assert.deepEqual(fields(backwards), ['end']);

  const badTag = await call(server, 'POST', '/events', { body: { ...sampleInput, tags: ['ok', 42] } });
  assert.deepEqual(fields(badTag), ['tags.1']);

  const notObject = await call(server, 'POST', '/events', { body: [sampleInput] });
  assert.equal(notObject.status, 422);

  const { body: existing } = await call(server, 'POST', '/events', { body: sampleInput });
  const nullTitle = await call(server, 'PATCH', `/events/${existing.id}`, { body: { title: null } });
  assert.equal(nullTitle.status, 422);
  assert.deepEqual(fields(nullTitle), ['title']);
  const patchBackwards = await call(server, 'PATCH', `/events/${existing.id}`, { body: { start: '2031-01-01T00:00:00Z' } });
  assert.equal(patchBackwards.status, 422);
  assert.deepEqual(fields(patchBackwards), ['end']);
  assert.equal((await call(server, 'GET', `/events/${existing.id}`)).body.start, existing.start, 'a refused patch changes nothing');

  const broken = await call(server, 'POST', '/events', { body: '{"title": ', contentType: 'application/json' });
  assert.equal(broken.status, 400);
  assert.equal(broken.body.error.code, 'invalid_json');

  const missing = await call(server, 'POST', '/events');
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'missing_body');

  const text = await call(server, 'POST', '/events', { body: JSON.stringify(sampleInput), contentType: 'text/plain' });
  assert.equal(text.status, 415);
  assert.equal(text.body.error.code, 'unsupported_media_type');
  const form = await call(server, 'PUT', `/events/${existing.id}`, { body: 'title=x', contentType: 'application/x-www-form-urlencoded' });
  assert.equal(form.status, 415);

  const huge = await call(server, 'POST', '/events', { body: { ...sampleInput, description: 'x'.repeat(1_100_000) } });
  assert.equal(huge.status, 413);
  assert.equal(huge.body.error.code, 'payload_too_large');

  const total = (await call(server, 'GET', '/events', { query: { q: 'chartrons' } })).body.pagination.total;
  assert.equal(total, 1, 'none of the refused requests created an event');
});

test('wrong methods get 405 with Allow, unknown paths and ids get 404', async () => {
  const server = await start();
  const put = await call(server, 'PUT', '/events', { body: sampleInput });
  assert.equal(put.status, 405);
  assert.equal(put.body.error.code, 'method_not_allowed');
  assert.deepEqual(put.headers.get('allow')!.split(', ').sort(), ['GET', 'POST']);
  const post = await call(server, 'POST', '/events/evt_0000000000', { body: sampleInput });
  assert.equal(post.status, 405);
  assert.deepEqual(post.headers.get('allow')!.split(', ').sort(), ['DELETE', 'GET', 'PATCH', 'PUT']);
  assert.equal((await call(server, 'DELETE', '/categories')).headers.get('allow'), 'GET');

  const unknownId = await call(server, 'GET', '/events/evt_0000000000');
  assert.equal(unknownId.status, 404);
  assert.equal(unknownId.body.error.details[0].field, 'eventId');
  assert.equal((await call(server, 'GET', '/nope')).status, 404);
  assert.equal((await call(server, 'GET', '/events/a/b')).status, 404);
});

test('events survive closing and reopening on the same data dir, and the samples are not written again', async () => {
  const dataDir = newDataDir();
  const first = await startDemoServer({ dataDir, now: () => FIRST_RUN });
  let firstClosed = false;
  try {
    assert.ok(existsSync(join(dataDir, 'events.sqlite')));
    const { events: samples } = await walk(first, {}, 100);
    const created = await call(first, 'POST', '/events', { body: sampleInput });
    const removed = samples[0]!;
    assert.equal((await call(first, 'DELETE', `/events/${removed.id}`)).status, 204);
    await call(first, 'PATCH', `/events/${samples[1]!.id}`, { body: { status: 'cancelled' } });
    await first.close();
    firstClosed = true;

    const later = new Date(FIRST_RUN.getTime() + 200 * DAY);
    const second = await startDemoServer({ dataDir, now: () => later });
    try {
      const { events } = await walk(second, {}, 100);
      assert.equal(events.length, samples.length, 'one deleted, one created, nothing re-seeded');
      const ids = new Set(events.map((e) => e.id));
      assert.ok(ids.has(created.body.id));
      assert.ok(!ids.has(removed.id));
      assert.equal(events.find((e) => e.id === samples[1]!.id)!.status, 'cancelled');
      const before = new Map(samples.map((e) => [e.id, e.start] as const));
      for (const e of events) if (before.has(e.id)) assert.equal(e.start, before.get(e.id), 'sample dates stay those of the first run');
    } finally {
      await second.close();
    }

    // Even an emptied calendar is not filled again.
    const third = await startDemoServer({ dataDir, now: () => later });
    try {
      for (const e of (await walk(third, {}, 100)).events) await call(third, 'DELETE', `/events/${e.id}`);
    } finally {
      await third.close();
    }
    const fourth = await startDemoServer({ dataDir, now: () => later });
    try {
      assert.equal((await call(fourth, 'GET', '/events')).body.pagination.total, 0);
    } finally {
      await fourth.close();
    }
  } finally {
    if (!firstClosed) await first.close();
  }
});

test('with expectedKey, requests need the bearer key', async () => {
  const server = await start({ expectedKey: 'demo-secret-key' });
  const none = await call(server, 'GET', '/events');
  assert.equal(none.status, 401);
  assert.equal(none.body.error.code, 'unauthorized');
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.ok(!JSON.stringify(none.body).includes('demo-secret-key'));
  assert.equal((await call(server, 'GET', '/events', { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await call(server, 'GET', '/events', { headers: { authorization: 'Basic demo-secret-key' } })).status, 401);
  assert.equal((await call(server, 'DELETE', '/events/evt_0000000000', { headers: { authorization: 'Bearer wrong' } })).status, 401);
  const ok = await call(server, 'GET', '/events', { headers: { authorization: 'Bearer demo-secret-key' } });
  assert.equal(ok.status, 200);
  const open = await start();
  assert.equal((await call(open, 'GET', '/events')).status, 200, 'without expectedKey the API is open');
});

test('onRequest sees every request, refused ones included, with its headers', async () => {
  const seen: DemoRequestInfo[] = [];
  const server = await start({ expectedKey: 'k', onRequest: (info) => seen.push(info) });
  const auth = { authorization: 'Bearer k' };
  await call(server, 'GET', '/events', { query: { city: ['Paris', 'Lyon'], limit: 2 }, headers: auth });
  await call(server, 'POST', '/events', { body: sampleInput, headers: auth });
  await call(server, 'GET', '/categories');
  assert.deepEqual(
    seen.map((s) => `${s.method} ${s.path}`),
    ['GET /events?city=Paris&city=Lyon&limit=2', 'POST /events', 'GET /categories'],
  );
  assert.equal(seen[0]!.headers.authorization, 'Bearer k');
  assert.equal(seen[1]!.headers['content-type'], 'application/json');
  assert.equal(seen[2]!.headers.authorization, undefined);
});

test('requests addressed to another host name are refused (no DNS rebinding)', async () => {
  const server = await start();
  const status = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/events', headers: { host } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  assert.equal(await status('evil.example:80'), 403);
  assert.equal(await status(`evil.example:${server.port}`), 403);
  assert.equal(await status(`localhost:${server.port}`), 200);
  assert.equal(await status(`127.0.0.1:${server.port}`), 200);
});

test('a port already in use is a clear error', async () => {
  const server = await start();
  await assert.rejects(startDemoServer({ dataDir: newDataDir(), port: server.port }), /port \d+ on 127\.0\.0\.1 is in use/);
});
