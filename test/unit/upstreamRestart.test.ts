// A crashed MCP server is started again after a delay that doubles, and a
// crash loop stops it with the reason until a person starts it again; a run
// that stayed up long enough counts as recovered (issue 20). A fake clock:
// no waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy } from '../../main/core/upstream/restartPolicy.ts';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('each crash in a row doubles the delay, up to its ceiling', () => {
  const c = clock();
  const p = new RestartPolicy({ baseDelayMs: 1000, maxDelayMs: 5000, maxCrashes: 10, windowMs: 600_000, now: c.now });
  const delays = [1, 2, 3, 4, 5].map(() => {
    const d = p.crashed('code 1');
    c.advance(100);
    return d.restart ? d.afterMs : -1;
  });
  assert.deepEqual(delays, [1000, 2000, 4000, 5000, 5000]);
});

test('a crash loop stops the server with the reason, until a person starts it again', () => {
  const c = clock();
  const p = new RestartPolicy({ maxCrashes: 3, windowMs: 60_000, now: c.now });
  assert.equal(p.crashed('code 1').restart, true);
  assert.equal(p.crashed('code 1').restart, true);
  const third = p.crashed('SIGSEGV');
  assert.equal(third.restart, false);
  assert.match(third.restart ? '' : third.reason, /crashed 3 times in 1 min \(last: SIGSEGV\); stopped until started again/);
  assert.equal(p.crashed('code 1').restart, false, 'stays stopped');
  assert.match(p.stopped!, /crashed 3 times/);
  p.reset();
  assert.equal(p.stopped, undefined);
  assert.deepEqual(p.crashed('code 1'), { restart: true, afterMs: 1000 }, 'the count starts over');
});

test('crashes far apart are no loop: a run that stayed up past the window counts as recovered', () => {
  const c = clock();
  const p = new RestartPolicy({ maxCrashes: 3, windowMs: 60_000, now: c.now });
  for (let i = 0; i < 10; i++) {
    assert.deepEqual(p.crashed('code 1'), { restart: true, afterMs: 1000 }, `crash ${i + 1}`);
    c.advance(61_000);
  }
});
