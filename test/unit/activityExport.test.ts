import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, exportRecords } from '../../renderer/src/features/activity/exportRecords.ts';
import { createFakeControlApi } from '../helpers/fakeControlApi.ts';
import type { AuditRecord } from '../../contract/audit.ts';

const record = (seq: number): AuditRecord => ({
  kind: 'api',
  seq,
  time: '2026-11-24T10:00:00.000Z',
  recordedAt: '2026-11-24T10:00:00.000Z',
  outcome: 'ok',
  prevHash: 'a',
  hash: 'b',
  runId: 'r1',
  callerKey: 'http:s1',
  operationId: 'events.create',
  method: 'POST',
  url: 'https://api.test/events?x=1,2',
  status: 201,
  durationMs: 12,
  bytes: 10,
  decision: 'approved',
  approval: { by: 'alice via web UI', at: '2026-11-24T10:00:00.000Z' },
  startedAt: '2026-11-24T10:00:00.000Z',
});

test('CSV fields are quoted when they must be, and a formula is never written as one', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('line\nbreak'), '"line\nbreak"');
  assert.equal(csvField('=HYPERLINK("http://evil")'), `"'=HYPERLINK(""http://evil"")"`);
  assert.equal(csvField('-2+3'), "'-2+3");
  assert.equal(csvField(undefined), '');
});

test('the export pages through the filtered view oldest first, reporting progress, in either format', async () => {
  const all = Array.from({ length: 2500 }, (_, i) => record(i + 1));
  const asked: unknown[] = [];
  const api = createFakeControlApi({
    'audit.query': (input) => {
      asked.push(input);
      const after = input.after ?? 0;
      const records = all.filter((r) => r.seq > after).slice(0, input.limit ?? 200);
      const last = records.at(-1)?.seq;
      return { records, ...(last !== undefined && last < all.length ? { next: last } : {}) };
    },
  });
  const progress: number[] = [];
  const exported = await exportRecords(api, { decision: 'approved' }, 'csv', (n) => progress.push(n));
  assert.equal(exported.records, 2500);
  const csv = exported.parts.join('');
  assert.deepEqual(progress, [500, 1000, 1500, 2000, 2500]);
  assert.deepEqual(asked[0], { decision: 'approved', order: 'oldest', limit: 500 });
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines.length, 2501);
  assert.equal(lines[0], 'seq,time,kind,client,tool,profile,operation,call,method,url,status,decision,decidedBy,outcome,durationMs,runId,error');
  assert.equal(
    lines[1],
    '1,2026-11-24T10:00:00.000Z,api,http:s1,,,events.create,api-call,POST,"https://api.test/events?x=1,2",201,approved,alice via web UI,ok,12,r1,',
  );
  const jsonl = (await exportRecords(api, {}, 'jsonl', () => {})).parts.join('');
  const parsed = jsonl
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditRecord);
  assert.equal(parsed.length, 2500);
  assert.deepEqual(parsed[41], all[41]);
});
