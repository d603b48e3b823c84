// What a run's client costs does not depend on the APIs in its reach: each
// API is a root of the client by its prepared shape, built in the sandbox as
// the code reaches it. A run with a 20,000-operation API in reach that calls
// nothing builds nothing of it; one that calls a method builds the
// namespaces on its path; the worker is sent a shape once. An API still
// loading is in the client too: every call of it answers that it is loading.
// And a run never waits for an API whose document is being prepared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQuickJsEngine } from '../../main/core/sandbox/quickjs/quickjsEngine.ts';
import { clientShape, clientShapeJson } from '../../main/core/sandbox/guestClient.ts';
import type { ApiCallRequest, ClientManifest, RunRequest } from '../../main/core/sandbox/engine.ts';
import { ServedApis, type OpenedApi, type OpenOptions } from '../../main/core/runtime/servedApis.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { openedApi, testProfile } from '../helpers/openedApi.ts';
import { runClient } from '../../main/core/execute/runClient.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';

const T = { timeout: 60_000 };
const limits = { timeoutMs: 10_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 256 * 1024 };

/** A shape of `n` operations in 200 groups: `big.group7.op7` is operation `op7`. */
function bigShape(n: number) {
  const operations = Array.from({ length: n }, (_, i) => ({ id: `op${i}`, callPath: [`group${i % 200}`, `op${i}`] }));
  return clientShape(clientShapeJson(operations));
}

function run(code: string, client: ClientManifest, calls: ApiCallRequest[] = []): RunRequest {
  return {
    runId: `shape-${Math.random()}`,
    code,
    client,
    limits,
    callApi: async (request) => (calls.push(request), { data: { ok: true }, error: null, status: 200, headers: {} }),
  };
}

test('a 20,000-operation API in reach costs a run nothing until its code reaches it, then only the namespaces on the path', T, async (t) => {
  const engine = createQuickJsEngine({ poolSize: 1, maxWorkers: 1 });
  t.after(() => engine.close());
  const big = bigShape(20_000);
  const small = clientShape(clientShapeJson([{ id: 'events.list', callPath: ['events', 'list'] }]));
  const client: ClientManifest = {
    roots: [
      { shape: big, idPrefix: 'big:', globals: ['big'] },
      { shape: small, idPrefix: 'demo:', globals: ['demo'] },
    ],
  };
  const one = await engine.run(run('return 1', client));
  assert.equal(one.ok && one.value, 1);
  assert.equal(engine.stats().clientNamespacesBuilt, 0, 'return 1 built nothing of either client');

  const calls: ApiCallRequest[] = [];
  const called = await engine.run(run('const r = await big.group7.op7({ query: { a: 1 } }); return [r.status, typeof big.group8];', client, calls));
  assert.deepEqual(called.ok && called.value, [200, 'object']);
  assert.deepEqual(
    calls.map((c) => c.operationId),
    ['big:op7'],
  );
  // The root, group7 (to reach op7), and group8 (typeof reads it): three of the 201 namespaces.
  assert.equal(engine.stats().clientNamespacesBuilt, 3);

  const listed = await engine.run(run('return Object.keys(big).length', client));
  assert.equal(listed.ok && listed.value, 200);
  assert.equal(engine.stats().clientNamespacesBuilt, 4, 'listing the root builds the root alone');
  assert.equal(engine.stats().shapesSent, 2, 'the worker was sent each shape once, for every run');

  // A method that does not exist is not one: the usual TypeError, from the code's own line.
  const missing = await engine.run(run('return await big.group7.nope()', client));
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error.message : '', /not a function/);
});

test('an API still loading is in the client under its names: every call answers that it is loading, as a value', T, async (t) => {
  const engine = createQuickJsEngine({ poolSize: 0 });
  t.after(() => engine.close());
  const message = 'API graph is still loading (indexing, 45%): call it again once it is served';
  const client: ClientManifest = {
    roots: [
      { shape: { key: 'none', json: '{}', top: [] }, idPrefix: 'graph:', globals: ['graph', 'g'], unavailable: { code: 'airlock_api_loading', message } },
    ],
  };
  const calls: ApiCallRequest[] = [];
  const outcome = await engine.run(run('const r = await graph.users.list({ query: { top: 1 } }); return [r, graph === g];', client, calls));
  assert.deepEqual(outcome.ok && outcome.value, [{ data: null, error: { code: 'airlock_api_loading', message }, status: 0 }, true]);
  assert.deepEqual(calls, [], 'nothing left the sandbox');
});

const profile = testProfile;
const opened = (name: string) => openedApi(name);

test('a run never waits for an API whose document is being prepared; it waits for one being opened', T, async () => {
  const held = new Map<string, { options: OpenOptions; finish: () => void }>();
  const apis = new ServedApis({
    open: (p, options) =>
      p.name === 'demo'
        ? Promise.resolve(opened('demo'))
        : new Promise<OpenedApi>((resolve) => held.set(p.name, { options, finish: () => resolve(opened(p.name)) })),
    logger: silentLogger,
  });
  const started = apis.start([profile('demo'), profile('graph'), profile('stripe')]);
  assert.deepEqual([...held.keys()].sort(), ['graph', 'stripe']);
  await apis.get('demo')!.ready();
  // graph's document is being prepared (apart); stripe's store is being opened.
  held.get('graph')!.options.onProgress({ phase: 'indexing', percent: 45, operations: 10_000 });
  held.get('stripe')!.options.onProgress({ phase: 'opening', percent: 95 });
  assert.equal(apis.get('graph')!.preparing, true);
  assert.equal(apis.get('stripe')!.preparing, false);

  let answered = false;
  const client = apis.clientFor(undefined).then((c) => ((answered = true), c));
  // stripe is being opened: the run waits for it (a turn of the event loop changes nothing)…
  await new Promise((r) => setImmediate(r));
  assert.equal(answered, false);
  held.get('stripe')!.finish();
  // …and not for graph, still being prepared.
  const got = await client;
  assert.ok(typeof got === 'object');
  const roots = 'roots' in got.manifest ? got.manifest.roots : [];
  assert.deepEqual(
    roots.map((r) => [r.globals, r.unavailable?.message ?? 'served']),
    [
      [['demo'], 'served'],
      [['stripe'], 'served'],
      [['graph'], 'API graph is still loading (indexing, 45%): call it again once it is served'],
    ],
  );
  held.get('graph')!.finish();
  await started;
  await apis.close();
});

test("before any server's tools are accepted, `mcp` answers why and what a person does, instead of not being there", T, async (t) => {
  const engine = createQuickJsEngine({ poolSize: 0 });
  t.after(() => engine.close());
  const client = runClient([openedApiRun('demo')], {
    tools: { servers: [], awaiting: ['fs'], call: async () => ({ data: null, error: null, status: 200 }), redactor: async () => createRedactor([]) },
  });
  const outcome = await engine.run(
    run('const r = await mcp.fs.read_file({ path: "a" }); return [r.error.code, r.error.message, typeof demo.things.list];', client.manifest),
  );
  assert.ok(outcome.ok);
  const [code, message, demo] = outcome.value as [string, string, string];
  assert.equal(code, 'airlock_server_not_accepted');
  assert.match(message, /waiting for a person's review: fs\): .*airlock servers accept fs/);
  assert.equal(demo, 'function', 'the rest of the client is there');
});

/** A served API as a run's client takes it. */
function openedApiRun(name: string) {
  const { api, gate } = openedApi(name);
  return { id: api.id, shape: api.shape, gate, clientNames: api.clientNames };
}
