// What the web UI's "not answering" banner tells the person to run: the
// command that started this companion, pinned to the port it got (so the open
// page finds it again), and nothing for a process that is not `airlock serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCommandOf } from '../../main/core/runtime/companionViews.ts';

test('the same flags, the port it got (replacing --port 0), quoted for a shell', () => {
  assert.equal(
    startCommandOf(['serve', '--port', '0', '--data-dir', '/tmp/my data', '--ui'], 'http://127.0.0.1:41234/mcp'),
    "airlock serve --data-dir '/tmp/my data' --ui --port 41234",
  );
  assert.equal(startCommandOf(['serve', '--port=0', '--ui'], 'http://127.0.0.1:5000/mcp'), 'airlock serve --ui --port 5000');
  assert.equal(startCommandOf(['serve', '--ui'], 'http://127.0.0.1:5000/mcp'), 'airlock serve --ui --port 5000');
});

test('no HTTP endpoint: the flags as given; not `airlock serve`: nothing', () => {
  assert.equal(startCommandOf(['serve', '--ui'], undefined), 'airlock serve --ui');
  assert.equal(startCommandOf(['stdio'], undefined), undefined);
  assert.equal(startCommandOf([], 'http://127.0.0.1:5000/mcp'), undefined);
});

test('a data dir given in AIRLOCK_DATA_DIR is written out, so the command restarts this companion from any shell (issue 39 §6)', () => {
  assert.equal(
    startCommandOf(['serve', '--ui'], 'http://127.0.0.1:7521/mcp', '/home/me/airlock work'),
    "airlock serve --ui --port 7521 --data-dir '/home/me/airlock work'",
  );
  assert.equal(
    startCommandOf(['serve', '--data-dir', '/a'], 'http://127.0.0.1:7521/mcp', '/b'),
    'airlock serve --data-dir /a --port 7521',
    'a flag wins over the environment, as it did for the start itself',
  );
});
