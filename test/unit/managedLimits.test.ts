// The organisation's limits on what the person still chooses (issue 40 §1): a floor or a maximum on a number, the
// choices allowed; checked against the settings table when the file is read (a wrong one is a broken file), applied
// to whatever the person set (brought within), narrowed on the form, and followed live when the file changes. Also
// the Windows registry's form of the policy, and a refusal reaching the audit from the control API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { managedSettings, readManagedPolicy, refusedByOrganisation, registryPolicy } from '../../main/core/config/managedPolicy.ts';
import { clampToLimit, limitText, withinLimit } from '../../main/core/config/managedLimits.ts';
import { resolveSettings } from '../../main/core/config/resolveSettings.ts';
import { settingsMeta } from '../../main/core/config/settingsMeta.ts';
import { createLiveSettings } from '../../main/core/runtime/liveSettings.ts';
import { parseRegQuery, readRegistryPolicy, REGISTRY_SOURCE } from '../../main/core/config/windowsPolicy.ts';
import { createDispatcher } from '../../main/core/control/dispatch.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { tempDir } from '../helpers/paths.ts';

function policyFile(t: { after(fn: () => void): void }, content: unknown): string {
  const { dir, cleanup } = tempDir('airlock-limits-');
  t.after(cleanup);
  const file = join(dir, 'managed.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

test('limits are checked against the settings table: a wrong one makes the file broken, saying which and why', (t) => {
  const cases: [unknown, RegExp][] = [
    [{ nope: { max: 1 } }, /limits\.nope: not a setting a person chooses/],
    [{ timeoutMs: { oneOf: ['1'] } }, /limits\.timeoutMs: a number is limited with min and max/],
    [{ timeoutMs: { max: 5 } }, /limits\.timeoutMs: 5 is outside 100–600000/],
    [{ timeoutMs: { min: 9000, max: 1000 } }, /min 9000 is above max 1000/],
    [{ engine: { oneOf: ['v8'] } }, /limits\.engine: "v8" is not one of quickjs, deno, node/],
    [{ engine: { max: 1 } }, /a choice is limited with oneOf/],
    [{ killSwitch: { oneOf: ['true'] } }, /only numbers and choices take limits/],
    [{ timeoutMs: { most: 1 } }, /limits\.timeoutMs/],
  ];
  for (const [limits, message] of cases) {
    const read = readManagedPolicy(policyFile(t, { limits }));
    assert.equal(read.state, 'broken', JSON.stringify(limits));
    assert.match(read.state === 'broken' ? read.error : '', message);
    assert.deepEqual(managedSettings(read), { killSwitch: true }, 'fails closed');
  }
});

test('a value outside a bound, from any source, is brought within it as the organisation’s; one within stays the person’s', (t) => {
  const read = readManagedPolicy(
    policyFile(t, {
      limits: {
        timeoutMs: { max: 10_000 },
        auditRetentionDays: { min: 30 },
        rateLimit: { max: 50 },
        engine: { oneOf: ['quickjs', 'deno'] },
        egress: { oneOf: ['wrapper'] },
      },
    }),
  );
  assert.equal(read.state, 'ok', JSON.stringify(read));
  const limits = read.state === 'ok' ? read.policy.limits : {};
  const resolve = (file: Record<string, unknown>, flags: Record<string, unknown> = {}) =>
    resolveSettings({ flags, env: {}, file, defaultDataDir: '/tmp/d', managed: managedSettings(read), limits });
  const over = resolve({ timeoutMs: 60_000, auditRetentionDays: 7, rateLimit: 0 }, { engine: 'node' });
  assert.equal(over.settings.timeoutMs, 10_000);
  assert.equal(over.settings.auditRetentionDays, 30);
  assert.equal(over.settings.rateLimit, 50, 'unlimited (0) is over every maximum');
  assert.equal(over.settings.engine, 'quickjs', 'the first allowed choice');
  assert.equal(over.settings.egress, 'wrapper', "the engine's default boundary is read as the value it stands for");
  for (const key of ['timeoutMs', 'auditRetentionDays', 'rateLimit', 'engine', 'egress']) assert.equal(over.sources[key], 'managed', key);
  const within = resolve({ timeoutMs: 5_000, auditRetentionDays: 0, rateLimit: 20, engine: 'deno', egress: 'wrapper' });
  assert.equal(within.settings.timeoutMs, 5_000);
  assert.equal(within.settings.auditRetentionDays, 0, 'keep everything (0) meets every floor');
  assert.equal(within.settings.engine, 'deno');
  for (const key of ['timeoutMs', 'auditRetentionDays', 'rateLimit', 'engine', 'egress']) assert.equal(within.sources[key], 'file', key);
});

test('the form sees a bound: its range or choices narrowed (on the step grid), and the bound in words', () => {
  const meta = settingsMeta({ timeoutMs: { min: 150, max: 10_050 }, auditRetentionDays: { min: 30 }, engine: { oneOf: ['deno'] } });
  const timeout = meta.find((m) => m.key === 'timeoutMs')!;
  assert.equal(timeout.limit, 'at least 150 ms and at most 10050 ms');
  assert.deepEqual(timeout.type === 'duration' ? [timeout.min, timeout.max] : [], [150, 10_050]);
  const retention = meta.find((m) => m.key === 'auditRetentionDays')!;
  assert.equal(retention.type === 'duration' ? retention.min : undefined, 0, 'keep everything stays on offer under a floor');
  const engine = meta.find((m) => m.key === 'engine')!;
  assert.deepEqual(engine.type === 'choice' ? engine.choices.map((c) => c.value) : [], ['deno']);
  assert.equal(meta.find((m) => m.key === 'memoryMb')!.limit, undefined, 'an unbounded setting is as it was');
  assert.equal(limitText('engine', { oneOf: ['quickjs', 'deno'] }), 'one of quickjs, deno');
  assert.equal(withinLimit('memoryMb', { max: 64 }, 65), false);
  assert.equal(clampToLimit('memoryMb', { max: 64 }, 65), 64);
});

test('a bound that arrives while the companion runs applies at once to a live setting; a start-up one is named for the next start', (t) => {
  const live = createLiveSettings(resolveSettings({ flags: {}, env: {}, file: { timeoutMs: 60_000, auditRetentionDays: 7 }, defaultDataDir: '/tmp/d' }));
  const heard: string[][] = [];
  live.onApplied((keys) => void heard.push([...keys]));
  const read = readManagedPolicy(policyFile(t, { limits: { timeoutMs: { max: 10_000 }, auditRetentionDays: { min: 30 } } }));
  const { applied, atRestart } = live.applyManaged(managedSettings(read), read);
  assert.deepEqual(applied, ['timeoutMs']);
  assert.deepEqual(atRestart, ['auditRetentionDays']);
  assert.equal(live.values.timeoutMs, 10_000);
  assert.equal(live.sources.timeoutMs, 'managed');
  assert.deepEqual(heard, [['timeoutMs']]);
  // Within the bound the person still chooses (only what the organisation fixes is kept from set()).
  live.set({ timeoutMs: 8_000 });
  assert.equal(live.values.timeoutMs, 8_000);
  assert.equal(live.sources.timeoutMs, 'file');
});

test('Windows: the policy as a registry value, read with reg query when the file is not there', (t) => {
  const output = ['', 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock', '    Policy    REG_SZ    {"approvals":{"ask":"mutations"}}', ''].join('\r\n');
  assert.equal(parseRegQuery(output), '{"approvals":{"ask":"mutations"}}');
  assert.equal(parseRegQuery('    Other    REG_SZ    {}'), undefined);
  assert.equal(parseRegQuery('    Policy    REG_MULTI_SZ    {"approvals":\\0{"ask":"every-call"}}'), '{"approvals":\n{"ask":"every-call"}}');
  const asked: string[][] = [];
  assert.equal(
    readRegistryPolicy((args) => (asked.push(args), output)),
    '{"approvals":{"ask":"mutations"}}',
  );
  assert.deepEqual(asked, [['HKLM\\SOFTWARE\\Policies\\Airlock', '/v', 'Policy']]);
  assert.equal(
    readRegistryPolicy(() => {
      throw new Error('ERROR: The system was unable to find the specified registry key or value.');
    }),
    undefined,
  );
  // Read only on Windows, and not when AIRLOCK_MANAGED_FILE points elsewhere.
  assert.equal(registryPolicy('linux', {}), undefined);
  assert.equal(registryPolicy('win32', { AIRLOCK_MANAGED_FILE: 'C:\\p.json' }), undefined);
  assert.equal(typeof registryPolicy('win32', {}), 'function');
  const { dir, cleanup } = tempDir('airlock-registry-');
  t.after(cleanup);
  const fromRegistry = readManagedPolicy(join(dir, 'absent.json'), () => '{"approvals":{"ask":"mutations"}}');
  assert.equal(fromRegistry.state, 'ok');
  assert.equal(fromRegistry.file, REGISTRY_SOURCE);
  assert.equal(fromRegistry.state === 'ok' ? fromRegistry.policy.approvals.ask : undefined, 'mutations');
  const broken = readManagedPolicy(join(dir, 'absent.json'), () => '{"approvals":{"ask":"sometimes"}}');
  assert.equal(broken.state, 'broken', 'a broken registry value fails closed as a broken file does');
  // A file there wins over the registry.
  writeFileSync(join(dir, 'managed.json'), '{}');
  assert.equal(readManagedPolicy(join(dir, 'managed.json'), () => '{"approvals":{"ask":"mutations"}}').file, join(dir, 'managed.json'));
});

test('the control API reports each refusal by the organisation to be audited, and no other error', async () => {
  const heard: string[] = [];
  const dispatch = createDispatcher(
    {
      'settings.update': () => {
        throw refusedByOrganisation('timeoutMs 20000 is not allowed (set by your organisation: /etc/airlock/managed.json)');
      },
      'profiles.remove': () => {
        throw new AirlockError('denied', 'a person said no');
      },
    } as never,
    silentLogger,
    (method, by, error) => void heard.push(`${method} ${by} ${error.message}`),
  );
  const refused = await dispatch('settings.update', { values: { timeoutMs: 20_000 } }, { by: 'ui' } as never);
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.error.message, /set by your organisation/);
  await dispatch('profiles.remove', { name: 'x' }, { by: 'ui' } as never);
  assert.deepEqual(heard, ['settings.update ui timeoutMs 20000 is not allowed (set by your organisation: /etc/airlock/managed.json)']);
});
