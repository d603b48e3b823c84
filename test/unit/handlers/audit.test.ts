// The Activity screen's audit methods, built from the audit store only (the
// real one, on a temp file): every filter reaches the store, a page is capped
// at 500 records, the records are the contract's, and paging and
// verification come back as the store gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openAuditStore, type AuditStore } from '../../../main/core/audit/auditStore.ts';
import type { ApiCallRecord, AuditQuery, ToolCallInput } from '../../../main/core/audit/types.ts';
import { createAuditHandlers, type AuditHandlerServices } from '../../../main/core/runtime/auditHandlers.ts';
import { auditRecordSchema } from '../../../contract/audit.ts';
import { tempDir } from '../../helpers/paths.ts';
import { invoke, shopApiCall } from '../../helpers/handlerServices.ts';

const T = { timeout: 20_000 };
const T0 = Date.parse('2030-06-01T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function tool(runId: string, clientName: string, minutes: number, overrides: Partial<ToolCallInput> = {}): ToolCallInput {
  return {
    time: at(minutes),
    clientName,
    transport: 'http',
    tool: 'execute',
    outcome: 'ok',
    durationMs: 12,
    input: 'return await api.orders.list()',
    bytesOut: 40,
    runId,
    profile: 'shop',
    ...overrides,
  };
}

function apiCall(runId: string, minutes: number, overrides: Partial<ApiCallRecord> = {}): ApiCallRecord {
  return shopApiCall({ runId, startedAt: at(minutes), ...overrides });
}

/** The real store, whose queries are also recorded as the handler passed them. */
async function setup(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-audit-handlers-');
  const store = openAuditStore({ file: join(dir, 'audit.sqlite'), synchronous: 'normal', now: () => new Date(T0) });
  t.after(() => {
    store.close();
    cleanup();
  });
  await store.recordToolCall(tool('run-1', 'claude-code', 0));
  await store.recordApiCall(apiCall('run-1', 0));
  await store.recordToolCall(tool('run-2', 'cursor', 10));
  await store.recordApiCall(
    apiCall('run-2', 10, {
      operationId: 'orders.create',
      method: 'POST',
      status: 201,
      decision: 'approved',
      approval: { by: 'alice', at: at(11), scope: 'once' },
    }),
  );
  await store.recordApiCall(
    apiCall('run-2', 12, {
      operationId: 'orders.delete',
      method: 'DELETE',
      status: 0,
      decision: 'denied',
      approval: { by: 'alice', at: at(12), reason: 'no', code: 'denied' },
    }),
  );
  const queries: AuditQuery[] = [];
  const audit: AuditStore = {
    ...store,
    query: (q) => {
      queries.push(q ?? {});
      return store.query(q);
    },
  };
  const services: AuditHandlerServices = { audit };
  return { store, queries, handlers: createAuditHandlers(services) };
}

test('audit.query passes every filter to the store and returns the matching records, shaped as the contract', T, async (t) => {
  const s = await setup(t);
  const run2 = await invoke(s.handlers, 'audit.query', { runId: 'run-2' });
  assert.deepEqual(
    run2.records.map((r) => [r.kind, r.kind === 'prune' ? undefined : r.runId]),
    [
      ['api', 'run-2'],
      ['api', 'run-2'],
      ['tool', 'run-2'],
    ],
  );
  for (const r of run2.records) assert.ok(auditRecordSchema.safeParse(r).success);

  const denied = await invoke(s.handlers, 'audit.query', { kind: 'api', decision: 'denied' });
  assert.deepEqual(
    denied.records.map((r) => r.kind === 'api' && r.operationId),
    ['orders.delete'],
  );
  const cursor = await invoke(s.handlers, 'audit.query', { client: 'cursor', kind: 'tool' });
  assert.deepEqual(
    cursor.records.map((r) => r.kind === 'tool' && r.clientName),
    ['cursor'],
  );
  const oldestFirst = await invoke(s.handlers, 'audit.query', { order: 'oldest', method: 'POST', operation: 'orders.create', profile: 'shop', text: 'orders' });
  assert.deepEqual(
    oldestFirst.records.map((r) => r.seq),
    [4],
  );

  const all = {
    from: at(-1),
    to: at(60),
    client: 'cursor',
    tool: 'execute',
    outcome: 'ok',
    text: 'orders',
    kind: 'api',
    runId: 'run-2',
    profile: 'shop',
    operation: 'orders.create',
    method: 'POST',
    decision: 'approved',
    order: 'oldest',
    after: 0,
    limit: 20,
  } as const;
  s.queries.length = 0;
  const page = await invoke(s.handlers, 'audit.query', all);
  assert.deepEqual(s.queries, [all], 'every filter reaches the store as given');
  assert.deepEqual(
    page.records.map((r) => r.seq),
    [4],
  );
});

test('a page is at most 500 records, whatever limit is asked; 50 when none is', T, async (t) => {
  const s = await setup(t);
  // The store itself refuses a limit over 500: without the cap this would throw.
  const page = await invoke(s.handlers, 'audit.query', { limit: 1000 });
  assert.equal(page.records.length, 5);
  await invoke(s.handlers, 'audit.query', { limit: 501 });
  await invoke(s.handlers, 'audit.query', { limit: 500 });
  await invoke(s.handlers, 'audit.query', {});
  await invoke(s.handlers, 'audit.query', { limit: 3 });
  assert.deepEqual(
    s.queries.map((q) => q.limit),
    [500, 500, 500, 50, 3],
  );
});

test('paging: next is given while records remain, and before takes the following page', T, async (t) => {
  const s = await setup(t);
  const first = await invoke(s.handlers, 'audit.query', { limit: 3 });
  assert.deepEqual(
    first.records.map((r) => r.seq),
    [5, 4, 3],
  );
  assert.equal(first.next, 3);
  const second = await invoke(s.handlers, 'audit.query', { limit: 3, before: first.next! });
  assert.deepEqual(
    second.records.map((r) => r.seq),
    [2, 1],
  );
  assert.equal(second.next, undefined, 'the last page has no next');
  assert.ok(!('next' in second));
});

test('audit.verify reports the chain as the store verifies it', T, async (t) => {
  const s = await setup(t);
  assert.deepEqual(await invoke(s.handlers, 'audit.verify', {}), { ok: true, records: 5 });
});
