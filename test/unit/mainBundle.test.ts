// The bundled Electron main must find the QuickJS worker it ships: built as
// its own entry (out/main/quickjsWorker.js) and resolved beside the bundle.
// The built worker is driven here by the engine, as the app drives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/paths.ts';
import { createQuickJsEngine, defaultWorkerUrl } from '../../main/core/sandbox/quickjs/quickjsEngine.ts';

const worker = join(ROOT, 'out', 'main', 'quickjsWorker.js');
const notBuilt = existsSync(worker) ? false : 'not built (npm run build)';

test('the worker is resolved beside the module: .ts in a checkout, .js in the bundle', () => {
  assert.equal(defaultWorkerUrl('file:///app/out/main/main.js').href, 'file:///app/out/main/quickjsWorker.js');
  assert.equal(defaultWorkerUrl('file:///src/main/core/sandbox/quickjs/quickjsEngine.ts').href, 'file:///src/main/core/sandbox/quickjs/quickjsWorker.ts');
});

test('the built main bundle resolves the worker at run time, not a TypeScript file', { skip: notBuilt, timeout: 10_000 }, () => {
  // The bundle is split in chunks (the core loads after the companion's port is bound), all beside the worker.
  const dir = join(ROOT, 'out', 'main');
  const chunks = readdirSync(dir)
    .filter((f) => f.endsWith('.js') && f !== 'quickjsWorker.js')
    .map((f) => readFileSync(join(dir, f), 'utf8'));
  assert.ok(chunks.every((c) => !/new URL\(["']\.\/quickjsWorker\.ts["'], import\.meta\.url\)/.test(c)));
  assert.ok(chunks.some((c) => /quickjsWorker\.js/.test(c)));
});

test('the built worker runs code and API calls for the engine', { skip: notBuilt, timeout: 30_000 }, async (t) => {
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
