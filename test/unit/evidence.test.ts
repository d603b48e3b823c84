// Evidence beside a held PATCH, PUT or DELETE, against a fake upstream: which
// read is made (and only that one), the before/after of the fields the body
// touches, the title of what a DELETE removes, and a plain note whenever
// nothing can be shown — within the deadline, whatever the API does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { diffFields, findMatchingRead, gatherEvidence, titleText, type EvidenceRead } from '../../main/core/egress/evidence.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { Hop } from '../../main/core/egress/hop.ts';
import type { Logger } from '../../main/core/log/logger.ts';
import type { UpstreamResponse } from '../../main/core/egress/upstream.ts';

const SECRET = 'sk_live_EVIDENCE_0123456789abcdef';
const redact = createRedactor([SECRET]);
const json = { 'application/json': { schema: { type: 'object' } } };
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

function catalogue(): Catalogue {
  return buildCatalogue({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: {
      '/events': { get: { operationId: 'events.list', responses: { 200: { description: 'ok', content: json } } } },
      '/events/{id}': {
        parameters: [idParam('id')],
        get: {
          operationId: 'events.get',
          responses: {
            200: {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } } },
            },
          },
        },
        patch: { operationId: 'events.update', requestBody: { content: json }, responses: { 200: { description: 'ok' } } },
        put: { operationId: 'events.replace', requestBody: { content: json }, responses: { 200: { description: 'ok' } } },
        delete: { operationId: 'events.delete', responses: { 204: { description: 'gone' } } },
      },
      '/agendas/{agendaUid}/events/{eventUid}': {
        parameters: [idParam('agendaUid'), idParam('eventUid')],
        get: {
          operationId: 'agendaEvents.get',
          responses: {
            200: {
              description: 'ok',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { event: { type: 'object', properties: { uid: { type: 'integer' }, title: { type: 'object' } } } },
                  },
                },
              },
            },
          },
        },
        delete: { operationId: 'agendaEvents.delete', responses: { 200: { description: 'ok' } } },
      },
      '/agendas/{agendaUid}/events/{eventUid}/state': {
        parameters: [idParam('agendaUid'), idParam('eventUid')],
        patch: { operationId: 'agendaEvents.setState', requestBody: { content: json }, responses: { 200: { description: 'ok' } } },
      },
      '/notes/{noteId}': {
        parameters: [idParam('noteId')],
        delete: { operationId: 'notes.delete', responses: { 204: { description: 'gone' } } },
      },
    },
  } as never);
}

function hop(cat: Catalogue, id: string, pathAndQuery: string, bodyValue?: unknown): Hop {
  return { op: cat.byId(id)!, method: cat.byId(id)!.method, pathAndQuery, headers: {}, body: undefined, query: {}, bodyValue };
}

function answer(status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): UpstreamResponse {
  return { status, headers, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), truncated: false };
}

function fake(response: UpstreamResponse | (() => Promise<UpstreamResponse>)) {
  const reads: { pathAndQuery: string; maxBytes: number; timeoutMs: number }[] = [];
  const read: EvidenceRead = async (pathAndQuery, o) => {
    reads.push({ pathAndQuery, maxBytes: o.maxBytes, timeoutMs: o.timeoutMs });
    return typeof response === 'function' ? response() : response;
  };
  return { read, reads };
}

function logger() {
  const lines: string[] = [];
  const runs: (string | undefined)[] = [];
  const push = (m: string, f?: { runId?: string }) => {
    lines.push(m);
    runs.push(f?.runId);
  };
  const log: Logger = { debug: () => {}, info: push, warn: push, error: push, child: () => log };
  return { log, lines, runs };
}

test('a PATCH shows the fields it changes, before and after, as redacted JSON; unchanged fields are left out; the read is logged', async () => {
  const cat = catalogue();
  const { read, reads } = fake(
    answer(200, { id: 'e1', name: 'Jazz night', price: 10, title: { fr: 'Soirée jazz', en: 'Jazz night' }, notes: `key ${SECRET}`, tags: ['a'] }),
  );
  const { log, lines, runs } = logger();
  const evidence = await gatherEvidence(
    hop(cat, 'events.update', '/v2/events/e1', { name: 'Jazz night', price: 12, title: { fr: 'Soirée jazz!' }, notes: 'none', tags: ['a', 'b'], city: 'Lyon' }),
    'PATCH',
    { catalogue: cat, basePath: '/v2', read, redact, log, runId: 'run-12345678-abc' },
  );
  assert.deepEqual(reads, [{ pathAndQuery: '/v2/events/e1', maxBytes: 512 * 1024, timeoutMs: 3000 }]);
  assert.equal(evidence?.kind, 'change');
  assert.equal(evidence?.source, 'GET /events/{id}');
  assert.deepEqual(evidence?.changes, [
    { field: 'price', before: '10', after: '12' },
    { field: 'title.fr', before: '"Soirée jazz"', after: '"Soirée jazz!"' },
    { field: 'notes', before: '"key [REDACTED]"', after: '"none"' },
    { field: 'tags', before: '["a"]', after: '["a","b"]' },
    { field: 'city', after: '"Lyon"' },
  ]);
  assert.ok(!JSON.stringify(evidence).includes(SECRET));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^evidence read GET \/events\/\{id\} for PATCH \/events\/\{id\}: 200, \d+ bytes$/);
  assert.deepEqual(runs, ['run-12345678-abc'], 'the line is about the run');
});

test('a PATCH that sends what is already there says nothing changes; a PUT says it replaces the whole resource', async () => {
  const cat = catalogue();
  const { read } = fake(answer(200, { id: 'e1', name: 'Same' }));
  const { log } = logger();
  const same = await gatherEvidence(hop(cat, 'events.update', '/events/e1', { name: 'Same' }), 'PATCH', { catalogue: cat, basePath: '', read, redact, log });
  assert.deepEqual(same?.changes, []);
  assert.match(same?.note ?? '', /nothing changes/);
  const put = await gatherEvidence(hop(cat, 'events.replace', '/events/e1', { name: 'Other' }), 'PUT', { catalogue: cat, basePath: '', read, redact, log });
  assert.deepEqual(put?.changes, [{ field: 'name', before: '"Same"', after: '"Other"' }]);
  assert.match(put?.note ?? '', /replaces the whole resource/);
});

test('a DELETE names what it deletes from the field the document declares, a multilingual title shown with its languages', async () => {
  const cat = catalogue();
  const { log } = logger();
  const named = await gatherEvidence(hop(cat, 'events.delete', '/events/e1'), 'DELETE', {
    catalogue: cat,
    basePath: '',
    read: fake(answer(200, { id: 'e1', name: 'Jazz night' })).read,
    redact,
    log,
  });
  assert.deepEqual(named, { kind: 'delete', source: 'GET /events/{id}', title: 'Jazz night' });
  const wrapped = await gatherEvidence(hop(cat, 'agendaEvents.delete', '/agendas/12/events/34'), 'DELETE', {
    catalogue: cat,
    basePath: '',
    read: fake(answer(200, { event: { uid: 34, title: { fr: 'Concert de jazz', en: 'Jazz concert' } } })).read,
    redact,
    log,
  });
  assert.deepEqual(wrapped, { kind: 'delete', source: 'GET /agendas/{agendaUid}/events/{eventUid}', title: 'Concert de jazz (fr) · Jazz concert (en)' });
  assert.equal(titleText({ fr: 'Même', en: 'Même' }), 'Même');
  assert.equal(titleText({ fr: '' }), undefined);
});

test('the matching read: the same path, else a related read of the same resource with the request path values; never a list', () => {
  const cat = catalogue();
  assert.equal(findMatchingRead(cat, cat.byId('events.update')!, '/events/a%20b', '/v1')?.pathAndQuery, '/v1/events/a%20b');
  const related = findMatchingRead(cat, cat.byId('agendaEvents.setState')!, '/agendas/12/events/34/state', '');
  assert.equal(related?.op.id, 'agendaEvents.get');
  assert.equal(related?.pathAndQuery, '/agendas/12/events/34');
  assert.equal(findMatchingRead(cat, cat.byId('notes.delete')!, '/notes/n1', ''), undefined);
  // attack: a GET the gate would not let through as a plain read (marked a mutation, or with a policy of its own) is never used.
  assert.equal(
    findMatchingRead(cat, cat.byId('events.update')!, '/events/e1', '', (read) => read.id !== 'events.get'),
    undefined,
  );
});

test('a JSON Patch is applied in order: a value added and then moved shows where it lands, each place once', () => {
  const before = { status: 'scheduled' };
  assert.deepEqual(
    diffFields(before, [
      { op: 'add', path: '/tmp', value: 'cancelled' },
      { op: 'move', from: '/tmp', path: '/status' },
    ]),
    [{ field: 'status', before: 'scheduled', after: 'cancelled' }],
  );
});

test('where nothing can be read, the prompt says why: no read in the document, 404, redirect, too large, not JSON, an error', async () => {
  const cat = catalogue();
  const { log } = logger();
  const run = (id: string, path: string, response: UpstreamResponse | (() => Promise<UpstreamResponse>), method = 'DELETE') =>
    gatherEvidence(hop(cat, id, path, method === 'PATCH' ? { name: 'x' } : undefined), method, {
      catalogue: cat,
      basePath: '',
      read: fake(response).read,
      redact,
      log,
    });
  const noRead = await run('notes.delete', '/notes/n1', answer(200, {}));
  assert.equal(noRead?.kind, 'none');
  assert.match(noRead?.note ?? '', /no read for this resource/);
  assert.match((await run('events.delete', '/events/e1', answer(404, { error: 'nope' })))?.note ?? '', /answered 404: there is nothing at this address/);
  assert.match(
    (await run('events.update', '/events/e1', answer(302, '', { location: 'https://elsewhere.test/' }), 'PATCH'))?.note ?? '',
    /redirect \(302\), which Airlock does not follow/,
  );
  assert.match((await run('events.delete', '/events/e1', { ...answer(200, { name: 'x' }), truncated: true }))?.note ?? '', /more than 512 KB/);
  assert.match((await run('events.delete', '/events/e1', answer(200, '<html>', { 'content-type': 'text/html' })))?.note ?? '', /did not answer with JSON/);
  assert.match(
    (await run('events.delete', '/events/e1', () => Promise.reject(new Error(`connect ECONNREFUSED with ${SECRET}`))))?.note ?? '',
    /could not be read \(connect ECONNREFUSED with \[REDACTED\]\)/,
  );
  // POST creates: there is nothing to compare with, so no read is made.
  const post = fake(answer(200, {}));
  assert.equal(
    await gatherEvidence(hop(cat, 'events.update', '/events/e1', {}), 'POST', { catalogue: cat, basePath: '', read: post.read, redact, log }),
    undefined,
  );
  assert.equal(post.reads.length, 0);
});

test('a read that does not answer in time never holds the prompt past the deadline, even if the transport ignores its signal', async () => {
  const cat = catalogue();
  const { log, lines } = logger();
  const started = performance.now();
  const evidence = await gatherEvidence(hop(cat, 'events.delete', '/events/e1'), 'DELETE', {
    catalogue: cat,
    basePath: '',
    read: () => new Promise<UpstreamResponse>(() => {}),
    redact,
    log,
    timeoutMs: 200,
  });
  assert.ok(performance.now() - started < 2_000);
  assert.equal(evidence?.kind, 'none');
  assert.match(evidence?.note ?? '', /did not answer within 0.2 s/);
  assert.match(lines[0]!, /no answer within 200 ms/);
});

test('a JSON Patch body is read as its operations', () => {
  const before = { title: 'A', tags: ['x', 'y'], old: 1 };
  assert.deepEqual(
    diffFields(before, [
      { op: 'replace', path: '/title', value: 'B' },
      { op: 'add', path: '/tags/1', value: 'z' },
      { op: 'remove', path: '/old' },
      { op: 'test', path: '/title', value: 'A' },
    ]),
    [
      { field: 'title', before: 'A', after: 'B' },
      { field: 'tags[1]', before: 'y', after: 'z' },
      { field: 'old', before: 1 },
    ],
  );
});
