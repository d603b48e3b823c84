import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS, settingByKey } from '../../main/core/config/settings.ts';
import { SettingError, type SettingDef } from '../../main/core/config/settingDef.ts';
import { resolveSettings } from '../../main/core/config/resolveSettings.ts';
import { readSettingsFile, validateSettingsObject } from '../../main/core/config/settingsFile.ts';
import { LIVE_SETTINGS, settingsMeta } from '../../main/core/config/settingsMeta.ts';
import {
  checkSettingValue,
  isNumericSpec,
  schemaForSetting,
  settingSpecSchema,
  settingsViewSchema,
  type SettingMeta,
  type SettingSpec,
} from '../../contract/settings.ts';
import { defaultDataDir } from '../../main/core/config/dataDir.ts';
import { parseAuthScheme, inferAuthScheme, unsupportedSecurity } from '../../main/core/config/auth.ts';
import { tempDir } from '../helpers/paths.ts';

const base = { flags: {}, env: {}, file: {}, defaultDataDir: '/data' };

test('every setting has an AIRLOCK_* env twin derived from its flag', () => {
  for (const s of SETTINGS) {
    assert.equal(s.env, 'AIRLOCK_' + s.flag.slice(2).replace(/-/g, '_').toUpperCase());
  }
});

test('precedence is flag, then env, then settings.json, then default', () => {
  assert.equal(resolveSettings(base).settings.port, 7339);
  assert.equal(resolveSettings({ ...base, file: { port: 9000 } }).settings.port, 9000);
  const env = resolveSettings({ ...base, file: { port: 9000 }, env: { AIRLOCK_PORT: '9100' } });
  assert.equal(env.settings.port, 9100);
  assert.equal(env.sources.port, 'env');
  const flag = resolveSettings({ ...base, flags: { port: 9200 }, env: { AIRLOCK_PORT: '9100' } });
  assert.equal(flag.settings.port, 9200);
  assert.equal(flag.sources.port, 'flag');
});

test('a bad env value names the variable and the allowed values', () => {
  assert.throws(
    () => resolveSettings({ ...base, env: { AIRLOCK_PORT: 'abc' } }),
    (e: unknown) => e instanceof SettingError && /^AIRLOCK_PORT: 'abc' is not a whole number \(expected 0–65535\)/.test(e.message),
  );
  assert.throws(
    () => resolveSettings({ ...base, env: { AIRLOCK_LOG_LEVEL: 'loud' } }),
    /AIRLOCK_LOG_LEVEL: 'loud' is not allowed \(expected one of debug, info, warn, error\)/,
  );
  assert.throws(
    () => resolveSettings({ ...base, env: { AIRLOCK_AUTH: 'digest' } }),
    /AIRLOCK_AUTH: 'digest' is not an auth scheme \(expected bearer, basic, header:NAME, query:NAME, cookie:NAME, none\)/,
  );
  assert.throws(() => resolveSettings({ ...base, env: { AIRLOCK_BASE_URL: 'https://user:pw@x.test' } }), /carries credentials/);
});

test('settings.json is validated: unknown keys, non-persisted keys and bad values name the file and key', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'settings.json');
  assert.deepEqual(readSettingsFile(file), {});
  writeFileSync(file, JSON.stringify({ port: 8080, logLevel: 'debug' }));
  assert.deepEqual(readSettingsFile(file), { port: 8080, logLevel: 'debug' });
  writeFileSync(file, JSON.stringify({ prot: 1 }));
  assert.throws(
    () => readSettingsFile(file),
    (e: Error) => e.message.includes(file) && e.message.includes('unknown setting "prot"'),
  );
  writeFileSync(file, JSON.stringify({ port: 70000 }));
  assert.throws(() => readSettingsFile(file), /"port": 70000 is out of range/);
  writeFileSync(file, JSON.stringify({ dataDir: '/elsewhere' }));
  assert.throws(() => readSettingsFile(file), /"dataDir" cannot be saved in settings \(use --data-dir or AIRLOCK_DATA_DIR\)/);
  writeFileSync(file, '{ nope');
  assert.throws(() => readSettingsFile(file), /is not valid JSON/);
});

test('the default data dir is where Electron keeps userData for an app named Airlock', () => {
  assert.equal(defaultDataDir({ platform: 'linux', env: {}, home: '/home/ada' }), '/home/ada/.config/Airlock');
  assert.equal(defaultDataDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/x' }, home: '/home/ada' }), '/x/Airlock');
  assert.equal(defaultDataDir({ platform: 'darwin', env: {}, home: '/Users/ada' }), '/Users/ada/Library/Application Support/Airlock');
  assert.match(defaultDataDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, home: 'C:\\Users\\ada' }), /AppData.Roaming.Airlock$/);
});

test('auth schemes parse from one string and are inferred from the document', () => {
  assert.deepEqual(parseAuthScheme('bearer'), { type: 'bearer' });
  assert.deepEqual(parseAuthScheme('header:X-Api-Key'), { type: 'header', name: 'X-Api-Key' });
  assert.deepEqual(parseAuthScheme('query:api_key'), { type: 'query', name: 'api_key' });
  assert.match(parseAuthScheme('header:') as string, /invalid header name/);
  assert.match(parseAuthScheme('header:bad name') as string, /invalid header name/);
  assert.deepEqual(inferAuthScheme({ k: { type: 'apiKey', in: 'header', name: 'X-Key' } }, [{ k: [] }]), { type: 'header', name: 'X-Key' });
  assert.deepEqual(inferAuthScheme({ b: { type: 'http', scheme: 'bearer' } }, undefined), { type: 'bearer' });
  assert.deepEqual(inferAuthScheme({}, undefined), { type: 'none' });
});

test('every security scheme a document declares is sent, or refused at start with what to do', () => {
  assert.deepEqual(parseAuthScheme('basic'), { type: 'basic' });
  assert.deepEqual(parseAuthScheme('cookie:sid'), { type: 'cookie', name: 'sid' });
  assert.deepEqual(inferAuthScheme({ b: { type: 'http', scheme: 'Basic' } }, [{ b: [] }]), { type: 'basic' });
  assert.deepEqual(inferAuthScheme({ c: { type: 'apiKey', in: 'cookie', name: 'session' } }, [{ c: [] }]), { type: 'cookie', name: 'session' });
  assert.equal(unsupportedSecurity({ b: { type: 'http', scheme: 'basic' } }, [{ b: [] }]), undefined);
  assert.equal(unsupportedSecurity({}, undefined), undefined, 'no security required');
  assert.match(
    unsupportedSecurity({ d: { type: 'http', scheme: 'digest' }, m: { type: 'mutualTLS' } }, [{ d: [] }, { m: [] }])!,
    /requires d \(http digest\), m \(mutualTLS\), which Airlock cannot send \(it sends bearer, basic, header:NAME, query:NAME, cookie:NAME, none\)/,
  );
  assert.equal(
    unsupportedSecurity({ d: { type: 'http', scheme: 'digest' }, k: { type: 'apiKey', in: 'header', name: 'X' } }, [{ d: [] }, { k: [] }]),
    undefined,
    'one it can send is enough',
  );
});

// ---- The table is the one source of each setting's type, limits, choices and liveness ----

const TABLE = SETTINGS as readonly SettingDef<unknown>[];
const accepts = (d: SettingDef<unknown>, raw: string) => {
  try {
    d.parse(raw);
    return true;
  } catch (error) {
    assert.ok(error instanceof SettingError, `${d.key}: ${String(error)}`);
    return false;
  }
};
/** What the control API and settings.json accept for a persisted setting. */
const saves = (key: string, value: string | number | boolean) => {
  try {
    validateSettingsObject({ [key]: value }, 'settings');
    return true;
  } catch {
    return false;
  }
};
/** What the settings form accepts, from the metadata it receives (the renderer calls the same contract check). */
const formAccepts = (m: SettingMeta, raw: string) => checkSettingValue(m, raw).ok;

test('every setting declares a label, a type, whether it applies live, and limits or choices as its type needs', () => {
  // Settings are added over time (never silently dropped): at least these 34, each key once.
  assert.ok(TABLE.length >= 34, `${TABLE.length} settings`);
  assert.equal(new Set(TABLE.map((d) => d.key)).size, TABLE.length);
  for (const d of TABLE) {
    assert.ok(d.label && /^[A-Z]/.test(d.label), `${d.key} lacks a label`);
    assert.equal(typeof d.live, 'boolean', `${d.key} does not say whether it applies live`);
    if (d.live) assert.ok(d.persist, `${d.key} is live but cannot be saved`);
    const spec = settingSpecSchema.parse(d.spec, { reportInput: true }) as SettingSpec;
    assert.ok(spec.type, `${d.key} lacks a type`);
    if (isNumericSpec(spec)) {
      assert.ok(Number.isInteger(spec.min) && Number.isInteger(spec.max) && spec.min < spec.max, `${d.key}: limits ${spec.min}–${spec.max}`);
      assert.ok(spec.step >= 1 && (spec.max - spec.min) % spec.step === 0, `${d.key}: step ${spec.step}`);
      if (spec.type !== 'integer') assert.ok(spec.unit, `${d.key}: a ${spec.type} needs its unit`);
      assert.ok(d.valueName, `${d.key}: a number takes a value on the command line`);
    }
    if (spec.type === 'choice') {
      assert.ok(spec.choices.length >= 2, `${d.key} lacks choices`);
      assert.equal(new Set(spec.choices.map((c) => c.value)).size, spec.choices.length, `${d.key}: duplicate choices`);
      for (const c of spec.choices) assert.ok(c.label.trim(), `${d.key}: choice ${c.value} lacks a label`);
    }
    if (spec.type !== 'boolean') assert.ok(d.valueName, `${d.key}: only switches go without a value`);
    // The default is a value its own validation accepts.
    if (d.defaultValue !== undefined && typeof d.defaultValue !== 'object')
      assert.ok(accepts(d, String(d.defaultValue)), `${d.key}: default ${String(d.defaultValue)}`);
  }
});

test('the metadata the UI gets is the declaration, whole, and survives the contract', () => {
  const meta = settingsMeta();
  assert.deepEqual(
    meta.map((m) => m.key),
    TABLE.map((d) => d.key),
  );
  // What the control API's dispatcher sends is parsed against the contract: nothing declared may be stripped.
  assert.deepEqual(settingsViewSchema.parse({ values: {}, sources: {}, meta }).meta, meta);
  for (const m of meta) {
    const d = settingByKey(m.key)!;
    const { key: _k, label, description, flag, env, group, persist, live, default: _d, defaultText: _t, ...spec } = m;
    assert.deepEqual(spec, d.spec, `${m.key}: the form's limits are the declared ones`);
    assert.deepEqual(
      { label, description, flag, env, group, persist, live },
      { label: d.label, description: d.description, flag: d.flag, env: d.env, group: d.group, persist: d.persist, live: d.live },
    );
    if (typeof d.defaultValue !== 'object') assert.equal(m.default, d.defaultValue, `${m.key}: default`);
  }
  assert.deepEqual(new Set(meta.filter((m) => m.live).map((m) => m.key)), LIVE_SETTINGS);
  assert.ok(['killSwitch', 'timeoutMs', 'maxConcurrent', 'rateLimit'].every((k) => LIVE_SETTINGS.has(k)));
  assert.ok(!LIVE_SETTINGS.has('port') && !LIVE_SETTINGS.has('engine'));
});

test('every numeric setting: min and max are accepted, min-1, max+1 and fractions refused, by the core and by the form alike', () => {
  const numeric = settingsMeta().filter((m) => isNumericSpec(m));
  assert.ok(numeric.length >= 15);
  for (const m of numeric) {
    if (!isNumericSpec(m)) continue;
    const d = settingByKey(m.key)!;
    const cases: [string, boolean][] = [
      [String(m.min - 1), false],
      [String(m.min), true],
      [String(m.min + m.step), true],
      [String(m.max), true],
      [String(m.max + 1), false],
      [`${m.min}.5`, false],
      ['', false],
      ['ten', false],
    ];
    for (const [raw, ok] of cases) {
      assert.equal(accepts(d, raw), ok, `core parse of ${m.key}=${JSON.stringify(raw)}`);
      assert.equal(formAccepts(m, raw), ok, `form check of ${m.key}=${JSON.stringify(raw)}`);
      if (m.persist && raw !== '') assert.equal(saves(m.key, /^-?\d+$/.test(raw) ? Number(raw) : raw), ok, `settings.update of ${m.key}=${raw}`);
    }
    assert.equal(d.parse(String(m.min)), m.min);
    // The refusal names the value and the allowed range, with the unit.
    const refusal = checkSettingValue(m, String(m.max + 1));
    assert.ok(!refusal.ok);
    assert.equal(refusal.message, `${m.max + 1} is out of range (expected ${m.min}–${m.max}${m.unit ? ` ${m.unit}` : ''})`);
    assert.throws(
      () => resolveSettings({ ...base, env: { [m.env]: String(m.min - 1) } }),
      (e: unknown) => e instanceof SettingError && e.message.startsWith(`${m.env}: ${m.min - 1} is out of range`),
    );
  }
});

test('a declared step is enforced as an <input step> enforces it', () => {
  const spec: SettingSpec = { type: 'duration', min: 100, max: 1000, step: 50, unit: 'ms' };
  assert.ok(checkSettingValue(spec, '150').ok);
  assert.equal((checkSettingValue(spec, '175') as { message: string }).message, '175 is not allowed (expected 100–1000 ms in steps of 50)');
});

test('every choice setting: each listed choice is accepted, anything else refused, by the core and by the form alike', () => {
  const choices = settingsMeta().filter((m) => m.type === 'choice');
  assert.deepEqual(
    choices.map((m) => m.key),
    ['logLevel', 'theme', 'engine', 'egress', 'secretStore', 'telemetry', 'metrics'],
  );
  for (const m of choices) {
    if (m.type !== 'choice') continue;
    const d = settingByKey(m.key)!;
    for (const c of m.choices) {
      assert.equal(d.parse(c.value), c.value);
      assert.ok(formAccepts(m, c.value));
      if (m.persist) assert.ok(saves(m.key, c.value), `${m.key}=${c.value}`);
    }
    for (const bad of ['not-a-choice', m.choices[0]!.value.toUpperCase() + 'X', '']) {
      assert.equal(accepts(d, bad), false, `${m.key}=${bad}`);
      assert.equal(formAccepts(m, bad), false);
      if (m.persist) assert.equal(saves(m.key, bad), false);
    }
    const refusal = checkSettingValue(m, 'not-a-choice');
    assert.ok(!refusal.ok);
    assert.equal(refusal.message, `'not-a-choice' is not allowed (expected one of ${m.choices.map((c) => c.value).join(', ')})`);
  }
});

test('every switch takes true/false (and 1/0, yes/no, on/off) and refuses anything else', () => {
  const switches = settingsMeta().filter((m) => m.type === 'boolean');
  assert.ok(switches.length >= 8);
  for (const m of switches) {
    const d = settingByKey(m.key)!;
    for (const [raw, value] of [
      ['true', true],
      ['off', false],
      ['1', true],
      ['no', false],
    ] as const) {
      assert.equal(d.parse(raw), value);
      assert.deepEqual(checkSettingValue(m, raw), { ok: true, value });
    }
    assert.equal(accepts(d, 'maybe'), false);
    assert.equal(formAccepts(m, 'maybe'), false);
    if (m.persist) {
      assert.ok(saves(m.key, true) && saves(m.key, false));
      assert.equal(saves(m.key, 'maybe'), false);
    }
  }
});

test('text settings: what a pattern or a format refuses is refused by the core, and the form refuses the same for the pattern', () => {
  const profile = settingsMeta().find((m) => m.key === 'profile')!;
  assert.equal(profile.type, 'text');
  for (const [raw, ok] of [
    ['oa-local', true],
    ['Bad Name', false],
    ['x'.repeat(41), false],
    ['', false],
  ] as const) {
    assert.equal(accepts(settingByKey('profile')!, raw), ok, raw);
    assert.equal(formAccepts(profile, raw), ok, raw);
  }
  assert.equal(
    (checkSettingValue(profile, 'Bad Name') as { message: string }).message,
    "'Bad Name' is not a profile name (lowercase letters, digits, - and _; at most 40)",
  );
  // Formats the spec cannot express are checked further by the core (these settings are flag or env only).
  assert.equal(accepts(settingByKey('baseUrl')!, 'ftp://x.test'), false);
  assert.equal(accepts(settingByKey('auth')!, 'digest'), false);
  // The text settings the form saves besides the profile are URLs the core checks further: a refusal comes back named.
  assert.equal(accepts(settingByKey('telemetryEndpoint')!, 'ftp://collector.test'), false);
  assert.equal(accepts(settingByKey('syslog')!, 'http://siem.test'), false);
  assert.equal(accepts(settingByKey('syslog')!, 'tls://siem.test:6514'), true);
  for (const m of settingsMeta().filter((x) => x.type === 'text' && !['profile', 'telemetryEndpoint', 'syslog'].includes(x.key)))
    assert.equal(m.persist, false, `${m.key} is text the form would save`);
});

test('the theme applies at once (no restart), as the caps do', () => {
  for (const key of ['theme', 'timeoutMs', 'memoryMb', 'outputKb', 'maxConcurrent', 'queueSize', 'rateLimit', 'killSwitch'])
    assert.ok(LIVE_SETTINGS.has(key), `${key} applies live`);
});

test('the check the command line runs (no zod) and the schema the forms derive agree on every setting', () => {
  for (const m of settingsMeta()) {
    const schema = schemaForSetting(m);
    const samples: (string | number)[] =
      m.type === 'choice'
        ? [...m.choices.map((c) => c.value), 'nope', m.choices[0]!.value.toUpperCase()]
        : m.type === 'text'
          ? ['x', 'local-name_1', 'https://example.com/a', 'a b', 'é', 'x'.repeat((m.maxLength ?? 200) + 1)]
          : m.type === 'boolean'
            ? []
            : [m.min, m.max, m.min + m.step, m.min + 1, m.max + 1, m.min - 1, Math.floor((m.min + m.max) / 2)];
    for (const value of samples) {
      const checked = checkSettingValue(m, String(value));
      assert.equal(checked.ok, schema.safeParse(value).success, `${m.key}=${JSON.stringify(value)}: the check and the schema disagree`);
    }
  }
});
