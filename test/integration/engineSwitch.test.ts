// The Engine screen's grid and apply, through the control API of a running
// companion: every engine × egress cell with its state and policy; an
// invalid cell is refused with its reason; a valid one takes effect for the
// next run without a restart and is saved for the next start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../helpers/processes.ts';
import { execute } from '../helpers/mcpClients.ts';
import { controlClient } from '../helpers/control.ts';
import { ControlError } from '../../contract/controlApi.ts';
import { tempDir } from '../helpers/paths.ts';
import { companionFixture } from '../helpers/companion.ts';

test('the grid shows every combination; an invalid one is refused with its reason; a valid one applies to the next run', async (t) => {
  const { client, control } = await companionFixture(t);
  const grid = await control.call('engine.matrix', {});
  assert.equal(grid.cells.length, 9);
  assert.deepEqual(grid.current, { engine: 'quickjs', egress: 'executor' });
  const cell = (engine: string, egress: string) => grid.cells.find((c) => c.engine === engine && c.egress === egress)!;
  assert.equal(cell('quickjs', 'executor').state, 'valid');
  assert.equal(cell('quickjs', 'executor').current, true);
  assert.equal(cell('quickjs', 'wrapper').state, 'invalid');
  assert.match(cell('quickjs', 'wrapper').reason!, /QuickJS has no network at all/);
  assert.equal(cell('node', 'executor').state, 'invalid');
  assert.ok(['needs-acknowledgement', 'needs-install'].includes(cell('deno', 'none').state));
  // Node with no boundary as Deno with none (issue 39 §10): both need the acknowledgement.
  assert.equal(cell('node', 'none').state, 'needs-acknowledgement');
  assert.match(cell('node', 'none').banner!, /cannot scope the network/);
  assert.notEqual(cell('deno', 'executor').policy.fingerprint, cell('node', 'wrapper').policy.fingerprint);

  await assert.rejects(control.call('engine.apply', { engine: 'quickjs', egress: 'none' }), (e: unknown) => {
    assert.ok(e instanceof ControlError);
    assert.equal(e.code, 'bad_input');
    assert.match(e.message, /not a valid combination/);
    return true;
  });
  assert.equal((await control.call('status', {})).engine, 'quickjs', 'a refused cell changes nothing');

  await assert.rejects(
    control.call('engine.apply', { engine: 'node', egress: 'none' }),
    (e: unknown) => e instanceof ControlError && /acknowledge/.test(`${e.message} ${e.hint ?? ''}`),
    'not without the acknowledgement',
  );
  const applied = await control.call('engine.apply', { engine: 'node', egress: 'none', acknowledgeUnrestricted: true });
  assert.equal(applied.engine, 'node');
  assert.match(applied.banner!, /cannot scope the network/);
  const status = await control.call('status', {});
  assert.equal(status.engine, 'node');
  assert.equal(status.egress, 'none');
  assert.equal((await execute(client, 'return typeof setTimeout')).text, 'function', 'the next run is a Node subprocess');
  // Acknowledged for this run of the companion only, as Deno's: not saved (it would need the flag at every start).
  assert.equal(applied.saved, false);

  await control.call('engine.apply', { engine: 'quickjs', egress: 'executor' });
  assert.equal((await execute(client, 'return typeof setTimeout')).text, 'undefined', 'back on QuickJS');
});

test('an engine chosen by a flag cannot be changed from the screen, and says which flag', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir, ['--engine', 'quickjs']);
  try {
    const control = controlClient(dir, server.url);
    assert.equal((await control.call('engine.matrix', {})).lockedBy, '--engine');
    await assert.rejects(
      control.call('engine.apply', { engine: 'node', egress: 'none' }),
      (e: unknown) => e instanceof ControlError && e.code === 'conflict' && /--engine/.test(e.message),
    );
  } finally {
    await server.stop();
  }
});
