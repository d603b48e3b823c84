// A run waiting for a person (inside whilePaused) must not hold up other runs,
// even when the engine allows a single worker to run code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQuickJsEngine } from '../../main/core/sandbox/quickjs/quickjsEngine.ts';
import type { ApiCallResult, RunRequest } from '../../main/core/sandbox/engine.ts';

const limits = { timeoutMs: 2000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024 };
const client = { operations: [{ operationId: 'items.create', callPath: ['items', 'create'] }], globals: ['api'] };

test('a paused run frees its worker slot for other runs', async (t) => {
  const engine = createQuickJsEngine({ maxWorkers: 1, poolSize: 1 });
  t.after(() => engine.close());
  let decide!: () => void;
  const decided = new Promise<void>((r) => (decide = r));
  let asked!: () => void;
  const askedForApproval = new Promise<void>((r) => (asked = r));
  const waiting: RunRequest = {
    runId: 'waits',
    code: 'const r = await api.items.create({ body: {} }); return r.status;',
    client,
    limits,
    callApi: (_req, control) =>
      control.whilePaused(async (): Promise<ApiCallResult> => {
        asked();
        await decided;
        return { data: null, error: null, status: 201 };
      }),
  };
  const first = engine.run(waiting);
  await askedForApproval;
  // While the first run waits for a person, others still run.
  for (let i = 0; i < 3; i++) {
    const other = await engine.run({
      runId: `other-${i}`,
      code: `return ${i} + 1`,
      client,
      limits,
      callApi: async () => ({ data: null, error: null, status: 0 }),
    });
    assert.deepEqual(other.ok && other.value, i + 1);
  }
  decide();
  const outcome = await first;
  assert.equal(outcome.ok && outcome.value, 201);
});
