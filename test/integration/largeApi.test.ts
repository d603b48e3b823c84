// A large API is prepared apart from serving (issue 35): `airlock serve` on
// the demo API gets a 20,000-operation document; while its preparing process
// is held stopped in the middle of indexing, a client's calls are answered —
// a demo call, and a call of the large API itself, which answers that it is
// still loading — and once the process goes on, the API is served. Stopping
// the process (SIGSTOP) makes "while it loads" certain, whatever the speed of
// the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { companionFixture } from '../helpers/companion.ts';
import { largeDocument } from '../helpers/largeDocument.ts';
import type { ControlEvent } from '../../contract/events.ts';
import { noProc, preparingChild } from '../helpers/preparing.ts';

const T = { timeout: 180_000, skip: noProc };

function text(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text ?? '').trim();
}

test('while a 20,000-operation document is prepared, clients are answered; the API is served when it is done', T, async (t) => {
  const f = await companionFixture(t);
  const spec = join(f.dir, 'large.json');
  writeFileSync(spec, JSON.stringify(largeDocument(20_000)));

  // Its progress, as the screens hear it.
  const phases: string[] = [];
  const indexing = Promise.withResolvers<void>();
  const stop = await f.control.openEvents((events: ControlEvent[]) => {
    for (const e of events) {
      if (e.type !== 'api-progress' || e.name !== 'large') continue;
      phases.push(e.progress.phase);
      if (e.progress.phase === 'indexing') indexing.resolve();
    }
  });
  t.after(stop);

  const saving = f.control.call('profiles.save', { name: 'large', spec, auth: 'none' });
  await indexing.promise;
  const pid = preparingChild(f.server.child.pid!);
  assert.ok(pid, 'a process of its own prepares the document');
  process.kill(pid, 'SIGSTOP');
  try {
    const demo = await f.client.callTool({
      name: 'execute',
      arguments: { code: 'const r = await demo.events.list({ query: { limit: 1 } }); return r.status;' },
    });
    assert.equal(text(demo), '200');
    const large = await f.client.callTool({ name: 'execute', arguments: { code: 'const r = await large.things7.list(); return r.error.code;' } });
    assert.equal(text(large), 'airlock_api_loading');
    const search = await f.client.callTool({ name: 'search_docs', arguments: { query: 'list events' } });
    assert.match(text(search), /events/i, 'search answers too, for the APIs served');
    const view = (await f.control.call('apis.list', {})).find((a) => a.name === 'large');
    assert.equal(view?.state, 'loading');
    assert.equal(view?.progress?.phase, 'indexing');
  } finally {
    process.kill(pid, 'SIGCONT');
  }

  await saving;
  const served = (await f.control.call('apis.list', {})).find((a) => a.name === 'large');
  assert.equal(served?.state, 'ready');
  assert.equal(served?.operations, 20_000);
  assert.deepEqual([...new Set(phases)].slice(-2), ['writing', 'opening']);
  const reached = await f.client.callTool({ name: 'execute', arguments: { code: 'return typeof large.things7.list;' } });
  assert.equal(text(reached), 'function');
});
