// The Engine screen's methods, built from info, settings, engines and logs
// only: a flag or env var that chose the engine locks it; an invalid
// combination or an unacknowledged unbounded network is refused before
// anything switches; a valid one switches the running engine and is saved for
// later starts, an acknowledged unbounded one is not. The machine's real
// inventory is read (QuickJS with egress executor needs nothing installed);
// only the Deno cases need Deno, and are skipped without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createEngineHandlers, type EngineHandlerServices } from '../../../main/core/runtime/engineHandlers.ts';
import { readSettingsFile } from '../../../main/core/config/settingsFile.ts';
import { findDeno } from '../../../main/core/sandbox/deno/findDeno.ts';
import { ENGINES, NETWORK_MODES } from '../../../contract/engine.ts';
import { tempDir } from '../../helpers/paths.ts';
import { airlockError, companionInfo, fakeEngines, invoke, liveSettings, logged, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 30_000 };
const NO_DENO = findDeno().found ? false : 'Deno is not installed here (the deno cells need it)';

function setup(inputs: Parameters<typeof liveSettings>[1] = {}, current: Parameters<typeof fakeEngines>[0] = { engine: 'node', network: 'wrapper' }) {
  const { dir, cleanup } = tempDir('airlock-engine-handlers-');
  const info = companionInfo(dir);
  const engines = fakeEngines(current);
  const services: EngineHandlerServices = { info, settings: liveSettings(dir, inputs), engines, logs: testLogs() };
  return { cleanup, info, engines, services, handlers: createEngineHandlers(services) };
}

test('engine.apply is refused with a conflict naming the flag when --engine chose the engine, and nothing switches', T, async (t) => {
  const s = setup({ flags: { engine: 'quickjs' } });
  t.after(s.cleanup);
  await assert.rejects(invoke(s.handlers, 'engine.apply', { engine: 'quickjs', egress: 'executor' }), (error: unknown) => {
    airlockError('conflict', /set by --engine/)(error);
    assert.match((error as { hint: string }).hint, /remove --engine/);
    return true;
  });
  assert.deepEqual(s.engines.switches, []);
  assert.equal(existsSync(s.info.paths.settings), false);
});

test('engine.apply is refused naming the env var when AIRLOCK_EGRESS chose the egress', T, async (t) => {
  const s = setup({ env: { AIRLOCK_EGRESS: 'wrapper' } });
  t.after(s.cleanup);
  await assert.rejects(invoke(s.handlers, 'engine.apply', { engine: 'quickjs', egress: 'executor' }), airlockError('conflict', /AIRLOCK_EGRESS/));
  assert.deepEqual(s.engines.switches, []);
});

test('an invalid combination is a usage error saying why, and nothing switches or is saved', T, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  await assert.rejects(invoke(s.handlers, 'engine.apply', { engine: 'quickjs', egress: 'wrapper' }), airlockError('usage', /not a valid combination/));
  await assert.rejects(invoke(s.handlers, 'engine.apply', { engine: 'node', egress: 'executor' }), airlockError('usage', /not a valid combination/));
  assert.deepEqual(s.engines.switches, []);
  assert.equal(existsSync(s.info.paths.settings), false);
});

test('a valid combination switches the running engine and is saved to settings.json beside what it held', T, async (t) => {
  const s = setup({}, { engine: 'node', network: 'wrapper' });
  t.after(s.cleanup);
  writeFileSync(s.info.paths.settings, JSON.stringify({ port: 7400 }));
  const result = await invoke(s.handlers, 'engine.apply', { engine: 'quickjs', egress: 'executor' }, { by: 'carol via desktop', channel: 'ipc' });
  assert.deepEqual(s.engines.switches, [{ engine: 'quickjs', network: 'executor' }]);
  assert.equal(result.saved, true);
  assert.equal(result.engine, 'quickjs');
  assert.equal(result.egress, 'executor');
  assert.equal(result.boundary, s.engines.state().boundary, 'the boundary of the engine now in effect');
  assert.equal(result.banner, undefined);
  assert.match(result.policy.fingerprint, /^[0-9a-f]{16}$/);
  assert.deepEqual(readSettingsFile(s.info.paths.settings), { port: 7400, engine: 'quickjs', egress: 'executor' });
  assert.deepEqual(logged(s.services.logs, 'warn'), ['engine quickjs, egress executor chosen (carol via desktop)']);
});

test('deno with egress none is refused without acknowledgeUnrestricted, naming how to accept it', { ...T, skip: NO_DENO }, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const input of [
    { engine: 'deno', egress: 'none' },
    { engine: 'deno', egress: 'none', acknowledgeUnrestricted: false },
  ] as const) {
    await assert.rejects(invoke(s.handlers, 'engine.apply', input), (error: unknown) => {
      airlockError('usage', /deno with egress none: sandboxed code could reach any host/)(error);
      assert.match((error as { hint: string }).hint, /acknowledgeUnrestricted: true/);
      return true;
    });
  }
  assert.deepEqual(s.engines.switches, []);
});

test('an acknowledged unbounded network switches for this run only: passed on to the engine, not saved', { ...T, skip: NO_DENO }, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  writeFileSync(s.info.paths.settings, JSON.stringify({ engine: 'quickjs' }));
  const result = await invoke(s.handlers, 'engine.apply', { engine: 'deno', egress: 'none', acknowledgeUnrestricted: true });
  assert.deepEqual(s.engines.switches, [{ engine: 'deno', network: 'none', acknowledgeUnrestricted: true }]);
  assert.equal(result.saved, false);
  assert.ok(result.banner, 'the unbounded network is shown with its banner');
  assert.deepEqual(readSettingsFile(s.info.paths.settings), { engine: 'quickjs' }, 'settings.json is left as it was');
  assert.match(logged(s.services.logs, 'warn')[0]!, /not saved: it needs --allow-unrestricted-egress at each start/);
});

test('engine.matrix has every engine × egress cell, marks the current one, and says what locks it', T, async (t) => {
  const s = setup({ flags: { egress: 'wrapper' } }, { engine: 'node', network: 'wrapper' });
  t.after(s.cleanup);
  const matrix = await invoke(s.handlers, 'engine.matrix', {});
  assert.equal(matrix.lockedBy, '--egress');
  assert.deepEqual(matrix.current, { engine: 'node', egress: 'wrapper' });
  assert.deepEqual(
    matrix.cells.map((c) => `${c.engine}/${c.egress}`),
    ENGINES.flatMap((e) => NETWORK_MODES.map((n) => `${e}/${n}`)),
  );
  assert.deepEqual(
    matrix.cells.filter((c) => c.current).map((c) => `${c.engine}/${c.egress}`),
    ['node/wrapper'],
  );
  const cell = (engine: string, egress: string) => matrix.cells.find((c) => c.engine === engine && c.egress === egress)!;
  assert.equal(cell('quickjs', 'executor').state, 'valid');
  assert.equal(cell('quickjs', 'wrapper').state, 'invalid');
  assert.equal(cell('node', 'executor').state, 'invalid');

  const unlocked = setup();
  t.after(unlocked.cleanup);
  assert.equal((await invoke(unlocked.handlers, 'engine.matrix', {})).lockedBy, undefined);
});

test('when settings.json cannot be updated, the reply and the running engine agree', T, async (t) => {
  // Either the apply is refused before the engine switches, or it switches and says it was not saved; a refusal
  // after the switch tells the person nothing changed while the next run uses the new engine.
  const s = setup({}, { engine: 'node', network: 'wrapper' });
  t.after(s.cleanup);
  writeFileSync(s.info.paths.settings, '{ damaged');
  const outcome = await invoke(s.handlers, 'engine.apply', { engine: 'quickjs', egress: 'executor' }).then(
    (result) => ({ refused: false as const, result }),
    (error: unknown) => ({ refused: true as const, error }),
  );
  if (outcome.refused) {
    assert.deepEqual(s.engines.switches, [], `refused (${String(outcome.error)}): the engine must not have switched`);
  } else {
    assert.equal(outcome.result.saved, false, 'it could not have been saved');
    assert.equal(s.engines.switches.length, 1);
  }
});
