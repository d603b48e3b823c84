// The command line as a person meets it: help, version, one-line errors with
// exit 2 for bad flags and env values, doctor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliToEnd } from '../helpers/processes.ts';
import { DEMO_SPEC, ROOT, tempDir } from '../helpers/paths.ts';
import { requireOpenAgenda } from '../helpers/openAgenda.ts';

const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

test('--version and --help', async () => {
  const v = await runCliToEnd(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), version);
  const h = await runCliToEnd(['--help']);
  assert.equal(h.code, 0);
  for (const cmd of ['serve', 'stdio', 'doctor']) assert.match(h.stdout, new RegExp(`\\b${cmd}\\b`));
  const serveHelp = await runCliToEnd(['serve', '--help']);
  assert.match(serveHelp.stdout, /--port <n>.*\[env AIRLOCK_PORT\] \(default: 7339\)/s);
});

test('a bad flag value is one line naming the flag and the allowed values, exit 2', async () => {
  const r = await runCliToEnd(['serve', '--port', 'abc']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /--port <n>.*'abc' is not a whole number \(expected 0–65535\)/);
  const level = await runCliToEnd(['stdio', '--log-level', 'loud']);
  assert.equal(level.code, 2);
  assert.match(level.stderr, /--log-level.*expected one of debug, info, warn, error/);
});

test('an unknown flag or command exits 2 with a suggestion', async () => {
  const r = await runCliToEnd(['serve', '--prot', '1']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--prot'[\s\S]*--port/);
  const c = await runCliToEnd(['serv']);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /unknown command 'serv'[\s\S]*serve/);
});

test('a bad env twin names the variable, exit 2; the flag wins over the env', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['doctor', '--data-dir', dir], { env: { AIRLOCK_PORT: 'abc' } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /AIRLOCK_PORT: 'abc' is not a whole number/);
  const ok = await runCliToEnd(['doctor', '--json', '--data-dir', dir, '--port', '7777'], { env: { AIRLOCK_PORT: '8888' } });
  assert.equal(ok.code, 0, ok.stderr);
  const server = JSON.parse(ok.stdout).checks.find((c: { name: string }) => c.name === 'server');
  assert.equal(server.data.port, 7777);
});

test('secrets are never flags', async () => {
  const r = await runCliToEnd(['serve', '--api-key', 'sk_123']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--api-key'/);
});

test('doctor shows the data dir, profile, spec status and port; --json for scripts', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  // The openagenda preset (its base URL and auth), its document replaced by --spec: any document does.
  const human = await runCliToEnd(['doctor', '--data-dir', dir, '--profile', 'openagenda', '--spec', DEMO_SPEC]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`data dir +${dir.replace(/[/\\]/g, '.')}`));
  assert.match(human.stdout, /profile +openagenda \(preset\)/);
  assert.match(human.stdout, /spec +.*openapi\.yaml: Airlock Demo Events API .*7 operations/);
  assert.match(human.stdout, /base URL +https:\/\/api\.openagenda\.com\/v3/);
  assert.match(human.stdout, /server +not running \(configured port 7339\)/);
  const json = await runCliToEnd(['doctor', '--json', '--data-dir', dir]);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.ok, true);
  assert.equal(parsed.checks.find((c: { name: string }) => c.name === 'profile').data.name, 'demo');
});

test('doctor reads the OpenAgenda contract under its preset', async (t) => {
  const spec = requireOpenAgenda(t);
  if (!spec) return;
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['doctor', '--data-dir', dir, '--profile', 'openagenda', '--spec', spec]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /spec +.*: OpenAgenda API .*24 operations/);
  assert.match(r.stdout, /base URL +https:\/\/api\.openagenda\.com\/v3/);
});

test('doctor fails (exit 1) and says why when the spec cannot be loaded', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['doctor', '--data-dir', dir, '--spec', join(dir, 'nope.yaml')]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /✗ spec .*nope\.yaml.*ENOENT/);
});

test('serve with a spec that cannot load exits 1 with one clear line', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['serve', '--port', '0', '--data-dir', dir, '--spec', join(dir, 'nope.yaml')]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /airlock: cannot read OpenAPI document .*nope\.yaml: ENOENT \(check the path of the document \(the APIs screen's "OpenAPI document" field, or --spec\)\)/,
  );
});

test('doctor reports where each setting came from, and its text and --json agree on every check', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ timeoutMs: 7000 }));
  const args = ['doctor', '--data-dir', dir, '--profile', 'openagenda', '--spec', DEMO_SPEC, '--port', '7777'];
  const env = { AIRLOCK_MAX_CONCURRENT: '3' };
  const [text, json] = await Promise.all([runCliToEnd(args, { env }), runCliToEnd([...args, '--json'], { env })]);
  const report = JSON.parse(json.stdout) as { checks: { name: string; status: string }[]; settings: { key: string; value: unknown; source: string }[] };
  const source = (key: string) => report.settings.find((s) => s.key === key)!;
  assert.deepEqual(source('port'), { key: 'port', flag: '--port', value: 7777, source: 'flag' });
  assert.equal(source('maxConcurrent').source, 'env');
  assert.equal(source('timeoutMs').source, 'settings.json');
  assert.equal(source('timeoutMs').value, 7000);
  assert.equal(source('engine').source, 'default');
  assert.equal(source('baseUrl').source, 'profile openagenda (preset)');
  assert.equal(source('baseUrl').value, 'https://api.openagenda.com/v3');
  assert.equal(source('auth').source, 'profile openagenda (preset)');
  assert.match(text.stdout, /--port +7777 +\(flag\)/);
  assert.match(text.stdout, /--max-concurrent +3 +\(env\)/);
  assert.match(text.stdout, /--timeout-ms +7000 +\(settings\.json\)/);
  // Same verdict per check in both outputs (✓ ok, ! warn, ✗ fail).
  const marks: Record<string, string> = { ok: '✓', warn: '!', fail: '✗' };
  for (const check of report.checks) {
    assert.match(text.stdout, new RegExp(`^${marks[check.status]} ${check.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'), check.name);
  }
});
