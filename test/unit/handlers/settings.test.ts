// The Settings screen's methods, built from info, settings and logs only: what
// is in effect and where it came from; saving applies a live setting at once,
// leaves the others for the next start, says which flag or env var overrides a
// value, and keeps settings.json as the record of what was saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createSettingsHandlers, type SettingsHandlerServices } from '../../../main/core/runtime/settingsHandlers.ts';
import { readSettingsFile } from '../../../main/core/config/settingsFile.ts';
import { SETTINGS } from '../../../main/core/config/settings.ts';
import { resolveSettings } from '../../../main/core/config/resolveSettings.ts';
import { AirlockError } from '../../../main/core/util/errors.ts';
import { tempDir } from '../../helpers/paths.ts';
import { airlockError, companionInfo, invoke, liveSettings, logged, testLogs, type TestSettings } from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };

function setup(inputs: Parameters<typeof liveSettings>[1] = {}, onDisk?: Record<string, unknown>) {
  const { dir, cleanup } = tempDir('airlock-settings-handlers-');
  const info = companionInfo(dir);
  if (onDisk) writeFileSync(info.paths.settings, JSON.stringify(onDisk));
  const settings: TestSettings = liveSettings(dir, { ...inputs, ...(onDisk ? { file: readSettingsFile(info.paths.settings) } : {}) });
  const services: SettingsHandlerServices = { info, settings, logs: testLogs() };
  return { dir, cleanup, info, settings, services, handlers: createSettingsHandlers(services) };
}

test('settings.get shows the values in effect, where each came from, what settings.json holds, and every setting', T, async (t) => {
  const s = setup({ flags: { port: 7400 }, env: { AIRLOCK_RATE_LIMIT: '7' } }, { timeoutMs: 9000, theme: 'dark' });
  t.after(s.cleanup);
  const view = await invoke(s.handlers, 'settings.get', {});
  assert.equal(view.values.timeoutMs, 9000);
  assert.equal(view.sources.timeoutMs, 'file');
  assert.equal(view.values.port, 7400);
  assert.equal(view.sources.port, 'flag');
  assert.equal(view.values.rateLimit, 7);
  assert.equal(view.sources.rateLimit, 'env');
  assert.equal(view.sources.memoryMb, 'default');
  assert.deepEqual(view.saved, { timeoutMs: 9000, theme: 'dark' });
  assert.deepEqual(
    view.meta.map((m) => m.key),
    SETTINGS.map((d) => d.key),
  );
});

test('settings.get leaves out a settings.json damaged since the start rather than failing the screen', T, async (t) => {
  const s = setup({}, { timeoutMs: 9000 });
  t.after(s.cleanup);
  writeFileSync(s.info.paths.settings, '{ not json');
  const view = await invoke(s.handlers, 'settings.get', {});
  assert.equal(view.saved, undefined);
  assert.equal(view.values.timeoutMs, 9000);
});

test('a live setting takes effect at once: written into the values, its source becomes file, apply is called with it', T, async (t) => {
  const s = setup({}, { port: 7400 });
  t.after(s.cleanup);
  const result = await invoke(s.handlers, 'settings.update', { values: { timeoutMs: 12000, maxConcurrent: 8 } });
  assert.deepEqual(result, { saved: ['timeoutMs', 'maxConcurrent'], applied: ['timeoutMs', 'maxConcurrent'], restartRequired: [] });
  assert.deepEqual(s.settings.applied, [['timeoutMs', 'maxConcurrent']]);
  assert.equal(s.settings.values.timeoutMs, 12000);
  assert.equal(s.settings.values.maxConcurrent, 8);
  assert.equal(s.settings.sources.timeoutMs, 'file');
  assert.equal(s.settings.sources.maxConcurrent, 'file');
  // settings.json holds what was saved, and keeps what it held before.
  assert.deepEqual(JSON.parse(readFileSync(s.info.paths.settings, 'utf8')), { port: 7400, timeoutMs: 12000, maxConcurrent: 8 });
});

test('a setting that is not live is saved for the next start and reported as needing a restart', T, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  const result = await invoke(s.handlers, 'settings.update', { values: { port: 8080, auditRetentionDays: 30 } });
  assert.deepEqual(result, { saved: ['port', 'auditRetentionDays'], applied: [], restartRequired: ['port', 'auditRetentionDays'] });
  assert.deepEqual(s.settings.applied, [], 'apply is not called when nothing is live');
  assert.equal(s.settings.values.port, 7339, 'the running companion keeps its port');
  assert.equal(s.settings.sources.port, 'default');
  assert.deepEqual(readSettingsFile(s.info.paths.settings), { port: 8080, auditRetentionDays: 30 });
});

test('a value set by a flag or an env var is saved but not applied, and the reply names what overrides it', T, async (t) => {
  const s = setup({ flags: { timeoutMs: 3000 }, env: { AIRLOCK_RATE_LIMIT: '5' } });
  t.after(s.cleanup);
  const result = await invoke(s.handlers, 'settings.update', { values: { timeoutMs: 20000, rateLimit: 50, queueSize: 64 } });
  assert.deepEqual(result.applied, ['queueSize']);
  assert.deepEqual(result.restartRequired, [
    'timeoutMs (overridden by --timeout-ms until that is removed)',
    'rateLimit (overridden by AIRLOCK_RATE_LIMIT until that is removed)',
  ]);
  assert.equal(s.settings.values.timeoutMs, 3000, 'the flag still wins');
  assert.equal(s.settings.values.rateLimit, 5, 'the env var still wins');
  assert.equal(s.settings.sources.timeoutMs, 'flag');
  assert.equal(s.settings.sources.rateLimit, 'env');
  assert.deepEqual(s.settings.applied, [['queueSize']]);
  assert.deepEqual(readSettingsFile(s.info.paths.settings), { timeoutMs: 20000, rateLimit: 50, queueSize: 64 });
});

test('an invalid value is refused naming the setting, and nothing is saved or applied', T, async (t) => {
  const s = setup({}, { port: 7400 });
  t.after(s.cleanup);
  const before = readFileSync(s.info.paths.settings, 'utf8');
  for (const [values, pattern] of [
    [{ timeoutMs: 5 }, /"timeoutMs"/],
    [{ timeoutMs: 'soon' }, /"timeoutMs"/],
    [{ theme: 'purple' }, /"theme"/],
    [{ noSuchSetting: 1 }, /unknown setting "noSuchSetting"/],
    [{ dataDir: '/elsewhere' }, /"dataDir" cannot be saved/],
    // One bad value refuses the whole update, the good one included.
    [{ maxConcurrent: 8, memoryMb: 1 }, /"memoryMb"/],
  ] as const) {
    await assert.rejects(
      invoke(s.handlers, 'settings.update', { values }),
      (error: unknown) => airlockError('config', pattern)(error) && (error as { code: string }).code === 'bad_input',
      JSON.stringify(values),
    );
  }
  assert.equal(readFileSync(s.info.paths.settings, 'utf8'), before);
  assert.deepEqual(s.settings.applied, []);
  assert.equal(s.settings.values.maxConcurrent, 4);
});

test('saving creates settings.json when there is none', T, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  assert.equal(existsSync(s.info.paths.settings), false);
  await invoke(s.handlers, 'settings.update', { values: { theme: 'light' } });
  assert.deepEqual(readSettingsFile(s.info.paths.settings), { theme: 'light' });
});

test('turning the kill switch on is applied at once and logged as a warning naming who did it', T, async (t) => {
  const s = setup();
  t.after(s.cleanup);
  const result = await invoke(s.handlers, 'settings.update', { values: { killSwitch: true } }, { by: 'bob via web UI', channel: 'web' });
  assert.deepEqual(result.applied, ['killSwitch']);
  assert.equal(s.settings.values.killSwitch, true);
  assert.deepEqual(logged(s.services.logs, 'warn'), ['kill switch ON: execute is refused (bob via web UI)']);
  await invoke(s.handlers, 'settings.update', { values: { killSwitch: false } });
  assert.match(logged(s.services.logs, 'warn')[1]!, /^kill switch off: execute serves again/);
});

test('what settings.update saves lets the companion start again (memoryMb above a saved sandboxMemoryMb)', T, async (t) => {
  // The next start refuses a sandbox budget below one run's cap when the budget was set (resolveSettings); an
  // update that saves such a pair leaves a companion that no longer starts. Either refuse it now, or save
  // something that resolves.
  const s = setup({}, { sandboxMemoryMb: 512 });
  t.after(s.cleanup);
  let refused = false;
  try {
    await invoke(s.handlers, 'settings.update', { values: { memoryMb: 1024 } });
  } catch (error) {
    assert.ok(error instanceof AirlockError && error.code === 'bad_input', `refused as a bad input, not ${String(error)}`);
    refused = true;
  }
  if (!refused) {
    const dir = s.dir;
    assert.doesNotThrow(
      () => resolveSettings({ flags: { dataDir: dir }, env: {}, file: readSettingsFile(s.info.paths.settings), defaultDataDir: dir }),
      'settings.json as saved must let the companion start',
    );
  }
});

test('settings.update refuses an engine × network pair the next start would refuse, or allow only with a flag', T, async (t) => {
  const s = setup({}, {});
  t.after(s.cleanup);
  for (const values of [
    { engine: 'quickjs', egress: 'none' },
    { engine: 'deno', egress: 'none' },
    { engine: 'node', egress: 'none' },
  ]) {
    await assert.rejects(invoke(s.handlers, 'settings.update', { values }), (error: unknown) => {
      assert.ok(error instanceof AirlockError && error.code === 'bad_input', String(error));
      return true;
    });
    assert.equal(readSettingsFile(s.info.paths.settings).egress, undefined, `${JSON.stringify(values)} was not saved`);
  }
  const ok = await invoke(s.handlers, 'settings.update', { values: { engine: 'deno', egress: 'executor' } });
  assert.deepEqual(ok.saved.sort(), ['egress', 'engine']);
});
