// The bundled Electron main must find the modules it starts apart: each built
// as its own entry (out/main/quickjsWorker.js, the QuickJS worker thread;
// out/main/prepareProcess.js, the process that prepares API documents) and
// resolved beside the bundle. Each is driven here as the app drives it: the
// worker by the engine, the process by the preparation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/paths.ts';
import { createQuickJsEngine, defaultWorkerUrl } from '../../main/core/sandbox/quickjs/quickjsEngine.ts';
import { createPreparation, defaultPrepareModuleUrl } from '../../main/core/search/preparation.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';
import { assertFresh, notBuilt as notBuiltYet } from '../helpers/builtOutput.ts';

const worker = join(ROOT, 'out', 'main', 'quickjsWorker.js');
const notBuilt = notBuiltYet(worker);

test('the worker is resolved beside the module: .ts in a checkout, .js in the bundle', () => {
  assert.equal(defaultWorkerUrl('file:///app/out/main/main.js').href, 'file:///app/out/main/quickjsWorker.js');
  assert.equal(defaultWorkerUrl('file:///src/main/core/sandbox/quickjs/quickjsEngine.ts').href, 'file:///src/main/core/sandbox/quickjs/quickjsWorker.ts');
  assert.equal(defaultPrepareModuleUrl('file:///app/out/main/main.js').href, 'file:///app/out/main/prepareProcess.js');
  assert.equal(defaultPrepareModuleUrl('file:///src/main/core/search/preparation.ts').href, 'file:///src/main/core/search/prepareProcess.ts');
});

test('the built main bundle resolves the worker at run time, not a TypeScript file', { skip: notBuilt, timeout: 10_000 }, () => {
  assertFresh(worker);
  // The bundle is split in chunks (the core loads after the companion's port is bound), all beside the worker.
  const dir = join(ROOT, 'out', 'main');
  const chunks = readdirSync(dir)
    .filter((f) => f.endsWith('.js') && f !== 'quickjsWorker.js' && f !== 'prepareProcess.js')
    .map((f) => readFileSync(join(dir, f), 'utf8'));
  for (const name of ['quickjsWorker', 'prepareProcess']) {
    assert.ok(
      chunks.every((c) => !new RegExp(`new URL\\(["']\\./${name}\\.ts["'], import\\.meta\\.url\\)`).test(c)),
      name,
    );
    assert.ok(
      chunks.some((c) => c.includes(`${name}.js`)),
      name,
    );
  }
});

test('the built preparing process prepares a document, and the store it writes opens', { skip: notBuilt, timeout: 60_000 }, async (t) => {
  assertFresh(worker);
  const { dir, cleanup } = tempDir('airlock-bundle-prepare-');
  t.after(cleanup);
  const preparation = createPreparation({ memoryMb: () => 256, moduleUrl: pathToFileURL(join(ROOT, 'out', 'main', 'prepareProcess.js')) });
  t.after(() => preparation.close());
  const phases: string[] = [];
  const api = await preparation.prepare({ spec: DEMO_SPEC, cacheDir: dir, onProgress: (p) => phases.push(p.phase) });
  t.after(() => api.close());
  assert.equal(api.cache, 'miss');
  assert.ok(api.catalogue.operations.length > 0);
  assert.ok(phases.includes('indexing'), phases.join(', '));
  assert.ok(api.search.search('list events', 3).length > 0);
});

test('the built worker runs code and API calls for the engine', { skip: notBuilt, timeout: 30_000 }, async (t) => {
  assertFresh(worker);
  const engine = createQuickJsEngine({ poolSize: 0, workerUrl: pathToFileURL(worker) });
  t.after(() => engine.close());
  const client = { operations: [{ operationId: 'items.list', callPath: ['items', 'list'] }], globals: ['api'] };
  const limits = { timeoutMs: 5000, memoryBytes: 64 * 1024 * 1024, outputBytes: 64 * 1024 };
  const outcome = await engine.run({
    runId: 'bundle',
    code: 'const r = await api.items.list(); console.log("got", r.status); return r.data.n + 1;',
    client,
    limits,
    callApi: async () => ({ data: { n: 41 }, error: null, status: 200, headers: {} }),
  });
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.equal((outcome as { value: unknown }).value, 42);
  assert.deepEqual(outcome.console, [{ level: 'log', text: 'got 200' }]);
});
