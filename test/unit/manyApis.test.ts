// The parts of serving several APIs at once that need no process: the name
// each API is reached by in execute, the run's client (its manifest and the
// routing of each call to its own API's gate), and the served set (loading,
// failing, enabling and disabling while runs hold their client).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiIdentifier, identifierClash, isUsableIdentifier } from '../../main/core/profiles/apiIdentifier.ts';
import { runClient, type RunApi } from '../../main/core/execute/runClient.ts';
import { ServedApis, type OpenedApi } from '../../main/core/runtime/servedApis.ts';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { EgressGate } from '../../main/core/egress/egressGate.ts';
import type { ApiCallRequest, ClientShape } from '../../main/core/sandbox/engine.ts';
import { clientShape, clientShapeJson } from '../../main/core/sandbox/guestClient.ts';
import { globalsOf, methods } from '../helpers/clientMethods.ts';
import { openedApi, testProfile } from '../helpers/openedApi.ts';

const T = { timeout: 10_000 };

test('an API is reached by its profile name, or a documented derived identifier that never collides', T, () => {
  assert.equal(apiIdentifier('github'), 'github');
  assert.equal(apiIdentifier('my-api'), 'my_api');
  assert.equal(apiIdentifier('1password'), '_1password');
  for (const reserved of ['api', 'console', 'delete', 'new', 'default', 'eval']) assert.equal(apiIdentifier(reserved), `${reserved}_`);
  for (const name of ['github', 'my-api', '1password', 'delete', 'a-b-c']) assert.ok(isUsableIdentifier(apiIdentifier(name)), name);
  const taken = new Map([['my_api', 'my_api']]);
  assert.match(identifierClash('my-api', undefined, taken)!, /profile 'my-api' would be reached in execute as `my_api`, which profile 'my_api' already uses/);
  assert.equal(identifierClash('other', undefined, taken), undefined);
  assert.match(identifierClash('other', 'my_api', taken)!, /or change the alias/);
});

function catalogue(title: string, ids: string[]) {
  return buildCatalogue({
    openapi: '3.1.0',
    info: { title, version: '1' },
    servers: [{ url: 'https://x.test' }],
    paths: Object.fromEntries(ids.map((id, i) => [`/p${i}`, { get: { operationId: id, responses: { 200: { description: 'ok' } } } }])),
  } as never);
}

/** The client shape of an API with these operation ids, as its prepared store keeps it. */
function shape(title: string, ids: string[]): ClientShape {
  return clientShape(clientShapeJson(catalogue(title, ids).operations));
}

/** A gate that records the operation ids it was asked for, and whose redactor knows one key. */
function recordingGate(key: string, seen: string[]): EgressGate {
  return {
    call: async (request: ApiCallRequest) => {
      seen.push(request.operationId);
      return { data: null, error: null, status: 200 };
    },
    isMutation: () => false,
    redactor: async () => createRedactor([key]),
  };
}

test("one API: the client is `api` as before; several: each under its name; every call reaches its own API's gate only", T, async () => {
  const alphaSeen: string[] = [];
  const betaSeen: string[] = [];
  const alpha: RunApi = {
    id: 'alpha',
    shape: shape('Alpha', ['items.list']),
    gate: recordingGate('KEY-ALPHA-123456', alphaSeen),
    clientNames: ['api', 'alpha'],
  };
  const beta: RunApi = {
    id: 'beta',
    shape: shape('Beta', ['items.list', 'repos.get']),
    gate: recordingGate('KEY-BETA-1234567', betaSeen),
    clientNames: ['api', 'beta', 'b'],
    alias: 'b',
  };

  const single = runClient([alpha]);
  assert.deepEqual(globalsOf(single.manifest), [['api', 'alpha']]);
  assert.deepEqual(methods(single.manifest), ['api.items.list -> alpha:items.list', 'alpha.items.list -> alpha:items.list']);
  // The run is given each API's prepared shape as it is: nothing per operation is built for it.
  assert.equal('roots' in single.manifest && single.manifest.roots[0]!.shape, alpha.shape);

  const both = runClient([alpha, beta]);
  assert.deepEqual(globalsOf(both.manifest), [['alpha'], ['beta', 'b']]);
  assert.deepEqual(methods(both.manifest), [
    'alpha.items.list -> alpha:items.list',
    'beta.items.list -> beta:items.list',
    'beta.repos.get -> beta:repos.get',
    'b.items.list -> beta:items.list',
    'b.repos.get -> beta:repos.get',
  ]);
  const run = {} as never;
  await both.gate.call({ operationId: 'beta:repos.get' }, run);
  await both.gate.call({ operationId: 'alpha:items.list' }, run);
  assert.deepEqual(betaSeen, ['repos.get']);
  assert.deepEqual(alphaSeen, ['items.list']);

  // A forged id naming an API outside the run's reach is never stripped into another API's operation: the first
  // API's gate gets it whole, and refuses it as an unknown operation (audited there).
  await single.gate.call({ operationId: 'beta:repos.get' }, run);
  await single.gate.call({ operationId: 'repos.get' }, run);
  assert.deepEqual(alphaSeen, ['items.list', 'beta:repos.get', 'repos.get']);
  assert.deepEqual(betaSeen, ['repos.get'], 'beta was reached only by the run that had it');

  const redact = await both.gate.redactor();
  assert.equal(redact('a KEY-ALPHA-123456 b KEY-BETA-1234567'), 'a [REDACTED] b [REDACTED]');
  assert.equal(redact.leaks('KEY-BETA-1234567'), true);
});

const profile = testProfile;

function opened(name: string, closed: string[]): OpenedApi {
  return openedApi(name, { gate: recordingGate(`KEY-${name}-000000000`, []), onClose: () => void closed.push(name) });
}

test('served APIs: each loads on its own; one that fails says why and does not stop the others; a scope gets exactly its APIs', T, async () => {
  const closed: string[] = [];
  let changes = 0;
  const apis = new ServedApis({
    open: async (p) => {
      if (p.name === 'broken') throw new Error('spec: unexpected end of the document at line 3, column 1');
      return opened(p.name, closed);
    },
    logger: silentLogger,
    onChange: () => void changes++,
  });
  await apis.start([profile('alpha'), profile('beta'), profile('broken')]);
  assert.deepEqual(
    apis.list().map((a) => `${a.name}:${a.state}`),
    ['alpha:ready', 'beta:ready', 'broken:failed'],
  );
  assert.match(apis.get('broken')!.error!, /line 3, column 1/);
  assert.ok(changes >= 3);

  const every = await apis.clientFor(undefined);
  assert.equal(typeof every, 'object', 'an unscoped run gets every API');
  assert.deepEqual(globalsOf((every as Exclude<typeof every, string>).manifest), [['alpha'], ['beta'], ['broken']]);
  const beta = await apis.clientFor(['beta']);
  assert.deepEqual(typeof beta === 'object' && globalsOf(beta.manifest), [['api', 'beta']]);
  // A failed API in a scope fails only what calls it: its names answer why, and what to do.
  const both = await apis.clientFor(['broken', 'beta']);
  assert.ok(typeof both === 'object' && 'roots' in both.manifest);
  const failed = both.manifest.roots.find((r) => r.globals.includes('broken'))!;
  assert.equal(failed.unavailable?.code, 'airlock_api_failed');
  assert.match(
    failed.unavailable!.message,
    /^could not load broken: spec: unexpected end .*; the person running Airlock can see why .*airlock apis enable broken/,
  );
  assert.equal(both.manifest.roots.find((r) => r.globals.includes('beta'))?.unavailable, undefined);
  assert.match((await apis.clientFor(['gamma'])) as string, /not served: gamma\. The person running Airlock can enable it/);

  // Disabled while a run holds its client: the run keeps it; what it opened is closed with the companion.
  const held = await apis.clientFor(['alpha']);
  assert.equal(apis.disable('alpha'), true);
  assert.match((await apis.clientFor(['alpha'])) as string, /not served: alpha/);
  assert.equal(typeof held, 'object');
  assert.deepEqual(closed, [], 'nothing is closed under a run');
  await apis.close();
  assert.deepEqual(closed.sort(), ['alpha', 'beta']);
});

test('a first call waits for its API being prepared when nothing in its reach is open; once one is, it waits for no document', T, async () => {
  const closed: string[] = [];
  const finish = new Map<string, () => void>();
  const apis = new ServedApis({
    open: (p, o) =>
      new Promise<OpenedApi>((resolve) => {
        o.onProgress?.({ phase: 'parsing', percent: 10 });
        finish.set(p.name, () => resolve(opened(p.name, closed)));
      }),
    logger: silentLogger,
  });
  const starting = apis.start([profile('demo'), profile('huge')]);
  let got: unknown;
  const first = apis.clientFor(['demo']).then((c) => (got = c));
  await new Promise((r) => setImmediate(r));
  assert.equal(got, undefined, 'it waits while nothing it reaches is open');
  finish.get('demo')!();
  const client = await first;
  assert.deepEqual(typeof client === 'object' && globalsOf(client.manifest), [['api', 'demo']], 'it gets the API, not "still loading"');
  // demo is open: a run reaching both does not wait for huge's document, whose calls say it is still loading.
  const both = await apis.clientFor(undefined);
  assert.ok(typeof both === 'object' && 'roots' in both.manifest);
  assert.equal(both.manifest.roots.find((r) => r.globals.includes('huge'))?.unavailable?.code, 'airlock_api_loading');
  // A session reaching only huge waits for it up to the bound, and no longer.
  await apis.usable(['huge'], 5);
  assert.equal(apis.get('huge')?.state, 'loading');
  finish.get('huge')!();
  await starting;
  await apis.close();
});

test('two profiles that would share a name in execute: the second is refused with both names, the first keeps serving', T, async () => {
  const apis = new ServedApis({ open: async (p) => opened(p.name, []), logger: silentLogger });
  await apis.start([profile('my_api'), profile('my-api')]);
  assert.deepEqual(
    apis.list().map((a) => `${a.name}:${a.state}`),
    ['my_api:ready', 'my-api:failed'],
  );
  assert.match(apis.get('my-api')!.error!, /would be reached in execute as `my_api`, which profile 'my_api' already uses/);
  await apis.close();
});

test('a profile file from before APIs were served at once stays off, except the demo: an upgrade starts sending no key anywhere new', T, async () => {
  const { isEnabled, profileToFile } = await import('../../main/core/profiles/profile.ts');
  assert.equal(isEnabled({ name: 'github' }), false);
  assert.equal(isEnabled({ name: 'demo' }), true);
  assert.equal(isEnabled({ name: 'github', enabled: true }), true);
  assert.equal(isEnabled({ name: 'demo', enabled: false }), false);
  assert.equal(profileToFile(profile('github')).enabled, false, 'written explicitly from now on');
});

test("a session's scope: only the `api` parameter, and any other is refused so a typo never widens it", T, async () => {
  const { readScope, withScope } = await import('../../main/core/mcp/sessionScope.ts');
  assert.deepEqual(readScope('/mcp'), { ok: true, scope: undefined });
  assert.deepEqual(readScope('/mcp?api=github&api=openagenda,demo'), { ok: true, scope: ['github', 'openagenda', 'demo'] });
  assert.deepEqual(readScope('/mcp?api='), { ok: true, scope: [''] }, 'an empty name reaches nothing');
  for (const typo of ['/mcp?API=github', '/mcp?apis=github', '/mcp?api[]=github', '/mcp?api=github&x=1']) {
    const read = readScope(typo);
    assert.equal(read.ok, false, typo);
    if (!read.ok) assert.match(read.error, /unknown parameter .* the only one is "api"/);
  }
  assert.equal(withScope('http://127.0.0.1:7339/mcp', ['github', 'demo']), 'http://127.0.0.1:7339/mcp?api=github&api=demo');
  assert.equal(withScope('http://127.0.0.1:7339/mcp', undefined), 'http://127.0.0.1:7339/mcp');
});

test('an API disabled while it loads is not given to a run waiting for it; one opened after the companion closed is closed at once', T, async () => {
  const closed: string[] = [];
  let finish: (() => void) | undefined;
  const apis = new ServedApis({
    open: (p) =>
      p.name === 'slow' ? new Promise<OpenedApi>((resolve) => (finish = () => resolve(opened('slow', closed)))) : Promise.resolve(opened(p.name, closed)),
    logger: silentLogger,
  });
  await apis.start([profile('fast')]);
  const loading = apis.enable(profile('slow'));
  const waiting = apis.clientFor(['slow']);
  apis.disable('slow');
  finish!();
  await loading;
  assert.match((await waiting) as string, /not served: slow/);

  const late = apis.enable(profile('late'));
  await apis.close();
  await late.catch(() => undefined);
  assert.deepEqual(closed.sort(), ['fast', 'late', 'slow'], 'everything opened is closed, also what opened after the close');
});

test("a run reaching several APIs is answered even when one API's key cannot be read (that API's calls are refused by its gate)", T, async () => {
  const ok: RunApi = { id: 'alpha', shape: shape('Alpha', ['a.list']), gate: recordingGate('KEY-ALPHA-123456', []), clientNames: ['api'] };
  const down: RunApi = {
    id: 'beta',
    shape: shape('Beta', ['b.list']),
    gate: { ...recordingGate('x', []), redactor: () => Promise.reject(new Error('keychain unavailable')) },
    clientNames: ['api'],
  };
  const redact = await runClient([ok, down]).gate.redactor();
  assert.equal(redact('KEY-ALPHA-123456'), '[REDACTED]');
});
