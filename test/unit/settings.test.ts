import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveSettings, SETTINGS, SettingError } from '../../main/core/config/settings.ts';
import { readSettingsFile } from '../../main/core/config/settingsFile.ts';
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
