// A call that waits for a person tells its client so at once, then every
// PROGRESS_EVERY_MS, and stops the moment the wait is over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepTelling, PROGRESS_EVERY_MS } from '../../main/core/mcp/executeTool.ts';

test('progress while waiting: at once, every 10 s, and no more once the wait is over', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const sent: string[] = [];
  const done = keepTelling((m) => sent.push(m), 'Waiting for your approval in Airlock: DELETE /events/{eventId}', PROGRESS_EVERY_MS);
  assert.equal(sent.length, 1, 'told at once');
  t.mock.timers.tick(PROGRESS_EVERY_MS - 1);
  assert.equal(sent.length, 1);
  t.mock.timers.tick(1);
  assert.equal(sent.length, 2);
  t.mock.timers.tick(2 * PROGRESS_EVERY_MS);
  assert.equal(sent.length, 4);
  done();
  t.mock.timers.tick(5 * PROGRESS_EVERY_MS);
  assert.equal(sent.length, 4, 'nothing after the decision');
  assert.ok(sent.every((m) => m === 'Waiting for your approval in Airlock: DELETE /events/{eventId}'));
});
