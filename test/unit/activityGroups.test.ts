// Activity's order and words for runs and their calls (renderer/src/features/activity/groupRecords.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditRecord } from '../../contract/audit.ts';
import { groupByRun, stoppedCalls } from '../../renderer/src/features/activity/groupRecords.ts';

const run = (seq: number, runId: string): AuditRecord => ({ kind: 'tool', seq, runId, tool: 'execute', outcome: 'ok' }) as unknown as AuditRecord;
const call = (seq: number, runId: string, decision = 'read'): AuditRecord =>
  ({ kind: 'api', seq, runId, decision, outcome: decision === 'denied' || decision === 'refused' ? decision : 'ok' }) as unknown as AuditRecord;
const seqs = (records: AuditRecord[]) => records.map((r) => r.seq);

test('each call sits under its run, oldest call first, even one recorded after a later run', () => {
  // Newest first, as the store lists them: #10 is run A's held call, decided after run B (#9) answered.
  const listed = [call(10, 'A', 'denied'), run(9, 'B'), call(8, 'B'), run(7, 'A'), call(6, 'A'), call(5, 'A')];
  assert.deepEqual(seqs(groupByRun(listed)), [9, 8, 7, 5, 6, 10]);
});

test('a call whose run is not loaded (still running, or on an older page) stays where its number puts it', () => {
  const listed = [call(12, 'C'), run(11, 'B'), call(10, 'B'), call(9, 'D')];
  assert.deepEqual(seqs(groupByRun(listed)), [12, 11, 10, 9]);
  assert.equal(groupByRun(listed).length, listed.length, 'nothing lost, nothing twice');
});

test("a run's row names the calls the gate did not let through, and nothing when it let all through", () => {
  const listed = [call(4, 'A', 'denied'), call(3, 'A', 'refused'), call(2, 'A', 'denied'), call(1, 'B', 'refused'), call(0, 'C')];
  assert.equal(stoppedCalls(listed, 'A'), '2 calls denied, 1 refused');
  assert.equal(stoppedCalls(listed, 'B'), '1 call refused');
  assert.equal(stoppedCalls(listed, 'C'), '');
  assert.equal(stoppedCalls(listed, undefined), '');
});
