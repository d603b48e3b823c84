// A companion no client can find any more exits, saying why in one line:
// its data dir removed, or its server.json removed or taken by another
// process. Otherwise a background companion would linger unseen. And from
// the moment its data dir is gone it answers no call: the call's audit record
// has nowhere to be kept (issue 36 §15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { tempDir } from '../helpers/paths.ts';

const cases: { name: string; act(dir: string): void; line: RegExp }[] = [
  {
    name: 'its data dir is removed',
    act: (dir) => rmSync(dir, { recursive: true, force: true }),
    line: /the data dir .* no longer exists: no client can find/,
  },
  {
    name: 'its server.json now names another process',
    act: (dir) => writeFileSync(join(dir, 'server.json'), JSON.stringify({ pid: 1, port: 1, url: 'http://127.0.0.1:1' })),
    line: /server\.json now names process 1, not this one/,
  },
  { name: 'its server.json is removed', act: (dir) => rmSync(join(dir, 'server.json')), line: /server\.json was removed/ },
];

for (const c of cases) {
  test(`a companion exits with one line when ${c.name}`, { timeout: 60_000 }, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const server = await serve(dir);
    t.after(() => server.stop());
    c.act(dir);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`still running 20 s later; stderr:\n${server.stderr()}`)), 20_000)),
    );
    const { code } = await Promise.race([server.exited, deadline]).finally(() => clearTimeout(timer));
    assert.equal(code, 1);
    const why = server
      .stderr()
      .split('\n')
      .filter((l) => c.line.test(l));
    assert.equal(why.length, 1, server.stderr());
  });
}

test('once its data dir is removed, the next call is refused, not answered: its audit record could not be kept', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const client = await httpClient(server.mcpUrl, server.token);
  t.after(() => client.close().catch(() => undefined));
  assert.deepEqual(await execute(client, 'return 1 + 1'), { text: '2', isError: false });
  rmSync(dir, { recursive: true, force: true });
  // Asked at once: the companion still runs (it stops at its next check), and its answer is an error naming the
  // audit log; or it has already gone, and no answer comes. Either way, never the run's result.
  const after = await execute(client, 'return 2 + 2').then(
    (answer) => ({ ...answer, answered: true }),
    (error: unknown) => ({ text: String(error), isError: true, answered: false }),
  );
  t.diagnostic(after.text);
  assert.equal(after.isError, true, after.text);
  if (after.answered) assert.match(after.text, /The audit log could not record this call .*cannot keep this record: its file no longer exists/);
});
