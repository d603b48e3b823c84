// What Activity reads from the audit store: a run keeps its own outcome (a
// run that finished is "ok", as its log line says) and a call the gate did
// not let through carries its own; an API call names its client and
// profile itself (found by those filters even before its run's tool record
// is written); an execute names its engine; both CSV exports carry them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditStore } from '../../main/core/audit/auditStore.ts';
import type { ToolCallInput } from '../../main/core/audit/types.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import { csvRow, CSV_COLUMNS } from '../../renderer/src/features/activity/exportRecords.ts';
import type { AuditRecord } from '../../contract/audit.ts';
import { withAuditStore } from '../helpers/auditStores.ts';

const T0 = Date.parse('2030-06-01T12:00:00Z');

const withStore = (run: (store: AuditStore) => Promise<void>) => withAuditStore(T0, run);

const api = (runId: string, overrides: Partial<ApiCallRecord> = {}): ApiCallRecord => ({
  runId,
  callerKey: 'http:s1',
  clientName: 'claude-code',
  profile: 'demo',
  operationId: 'events.update',
  method: 'PATCH',
  url: 'http://127.0.0.1:1/events/e1',
  status: 200,
  durationMs: 3,
  bytes: 10,
  decision: 'approved',
  startedAt: new Date(T0).toISOString(),
  ...overrides,
});

const tool = (runId: string, overrides: Partial<ToolCallInput> = {}): ToolCallInput => ({
  transport: 'http',
  clientName: 'claude-code',
  tool: 'execute',
  outcome: 'ok',
  durationMs: 5,
  input: 'return 1',
  bytesOut: 1,
  profile: 'demo',
  engine: 'quickjs',
  runId,
  ...overrides,
});

test(
  'a run keeps its own outcome, as its log line says; a call the gate did not let through carries its own (issue 39 §9)',
  withStore(async (store) => {
    await store.recordApiCall(api('r-denied', { decision: 'read', method: 'GET', operationId: 'events.list' }));
    const denied = await store.recordApiCall(api('r-denied', { decision: 'denied', status: 0, error: 'not approved' }));
    const refused = await store.recordApiCall(api('r-denied', { decision: 'refused', status: 0, error: 'rate limited' }));
    assert.equal((await store.recordToolCall(tool('r-denied'))).outcome, 'ok', 'the run finished');
    assert.deepEqual([denied.outcome, refused.outcome], ['denied', 'refused']);
    await store.recordApiCall(api('r-ok', { status: 404, decision: 'read', method: 'GET' }));
    assert.equal((await store.recordToolCall(tool('r-ok'))).outcome, 'ok', 'an HTTP error the script handled leaves the run ok');
    await store.recordApiCall(api('r-timeout', { decision: 'denied', status: 0 }));
    assert.equal((await store.recordToolCall(tool('r-timeout', { outcome: 'timeout' }))).outcome, 'timeout', 'a failed run keeps its own outcome');
    // The outcome filter finds the calls that were stopped, each with its run.
    assert.deepEqual(
      store.query({ outcome: 'denied' }).records.map((r) => [r.kind, r.kind === 'api' ? r.runId : '']),
      [
        ['api', 'r-timeout'],
        ['api', 'r-denied'],
      ],
    );
    assert.equal(store.query({ outcome: 'denied', kind: 'tool' }).records.length, 0);
    assert.equal(store.verify().ok, true);
  }),
);

test(
  'an API call names its client and profile; the filters find it before its run has a tool record; an execute names its engine',
  withStore(async (store) => {
    const call = await store.recordApiCall(api('r-1'));
    assert.equal(call.clientName, 'claude-code');
    assert.equal(call.profile, 'demo');
    assert.deepEqual(
      store.query({ client: 'claude-code' }).records.map((r) => r.seq),
      [call.seq],
    );
    assert.deepEqual(
      store.query({ profile: 'demo' }).records.map((r) => r.seq),
      [call.seq],
    );
    const run = await store.recordToolCall(tool('r-1'));
    assert.equal(run.engine, 'quickjs');
    assert.deepEqual(
      store.query({ client: 'claude-code', order: 'oldest' }).records.map((r) => r.seq),
      [call.seq, run.seq],
    );

    let csv = '';
    await store.export('csv', { order: 'oldest' }, (chunk) => {
      csv += chunk;
    });
    const [header, apiRow, toolRow] = csv
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const col = (name: string) => header!.indexOf(name);
    assert.equal(apiRow![col('clientName')], 'claude-code');
    assert.equal(apiRow![col('profile')], 'demo');
    assert.equal(toolRow![col('engine')], 'quickjs');

    // The Activity screen's CSV: the client's name (not its session key) and the profile on the API row.
    const row = csvRow(call as unknown as AuditRecord).split(',');
    assert.equal(row[CSV_COLUMNS.indexOf('client')], 'claude-code');
    assert.equal(row[CSV_COLUMNS.indexOf('profile')], 'demo');
    const older = csvRow({ ...(call as unknown as AuditRecord), clientName: undefined, profile: undefined } as AuditRecord).split(',');
    assert.equal(older[CSV_COLUMNS.indexOf('client')], 'http:s1', 'an older record without a name: its session key');
  }),
);
