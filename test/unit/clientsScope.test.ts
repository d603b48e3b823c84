// A registration's scope (issue 19 §4): `airlock clients add NAME --api API`
// writes `--api API` after `stdio` (the lean stdio path takes it), an HTTP
// registration gets the URL with `?api=`; the state reads the scope back (a
// scoped registration is registered, with its APIs); adding again with
// another scope updates the entry (a diff; through a client's CLI, the old
// entry goes first); names are checked, naming the flag and the value.
import { clientFiles } from '../helpers/clientFiles.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRegistrar } from '../../main/core/clients/registrar.ts';
import { CLIENTS, type ClientEnv } from '../../main/core/clients/clientCatalog.ts';
import { readConfig, readEntry } from '../../main/core/clients/configText.ts';
import { checkScope, sameScope, scopedLaunch, scopedUrl, scopeOfEntry } from '../../main/core/clients/registrationScope.ts';
import { readScope, unservedScope } from '../../main/core/mcp/sessionScope.ts';
import { leanArgs } from '../../main/cli/stdioJoin.ts';
import { clientChangeInputSchema } from '../../contract/clients.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { CLI, NODE, tempDir } from '../helpers/paths.ts';

const launch = { command: NODE, args: [CLI, 'stdio', '--data-dir', '/data'] };

function setup(t: { after(fn: () => void): void }, options: { bin?: string; scopable?: boolean } = {}) {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const env: ClientEnv = { home: join(dir, 'home'), platform: 'linux', env: {} };
  const calls: string[][] = [];
  const registrar = createRegistrar({
    env,
    backupDir: join(dir, 'backups'),
    launch,
    ...(options.scopable === undefined ? {} : { scopable: options.scopable }),
    which: (b) => (b === options.bin ? `/usr/bin/${b}` : undefined),
    runCli: async (path, args) => {
      calls.push([path, ...args]);
      return { code: 0, stdout: '', stderr: '' };
    },
  });
  const { fileOf, install } = clientFiles(env);
  const stateOf = async (id: string) => (await registrar.list()).find((s) => s.id === id)!;
  return { registrar, install, fileOf, stateOf, calls };
}

test('stdio: the scope is `--api NAME` after the command, once per API, duplicates dropped; the lean stdio path takes it', () => {
  const scoped = scopedLaunch(launch, ['github', 'openagenda', 'github']);
  assert.deepEqual(scoped, { command: NODE, args: [CLI, 'stdio', '--data-dir', '/data', '--api', 'github', '--api', 'openagenda'] });
  assert.deepEqual(scopedLaunch(launch, undefined), launch, 'no scope: as before');
  assert.deepEqual(scopedLaunch(launch, []), launch, 'an empty scope is no scope');
  // What bin/airlock.js hands the lean path: the arguments after `stdio`.
  const flags = leanArgs(scoped.args.slice(2));
  assert.ok(flags, 'the registered command stays on the lean path');
  assert.equal(flags.get('--api'), 'github,openagenda');
  // The desktop app's form (`--stdio`) reads back the same.
  assert.deepEqual(scopeOfEntry({ command: '/Applications/Airlock', args: ['--stdio', '--api', 'demo'] }), ['demo']);
});

test('HTTP: the MCP URL gets `?api=` per API, and the session reads back exactly that scope', () => {
  const url = scopedUrl('http://127.0.0.1:7339/mcp', ['github', 'openagenda']);
  assert.equal(url, 'http://127.0.0.1:7339/mcp?api=github&api=openagenda');
  assert.deepEqual(readScope(new URL(url).pathname + new URL(url).search), { ok: true, scope: ['github', 'openagenda'] });
  assert.equal(scopedUrl('http://127.0.0.1:7339/mcp?api=old', ['demo']), 'http://127.0.0.1:7339/mcp?api=demo', 'a scope replaces the one in the URL');
  assert.equal(scopedUrl('http://127.0.0.1:7339/mcp', undefined), 'http://127.0.0.1:7339/mcp');
  assert.deepEqual(scopeOfEntry({ url: url }), ['github', 'openagenda']);
  assert.equal(scopeOfEntry({ url: 'http://127.0.0.1:7339/mcp' }), undefined);
});

test('a scope naming an API not served: one line each, with the names served, or the exact name when only the case differs', () => {
  const served = [
    { name: 'demo', id: 'demo' },
    { name: 'my-api', id: 'my_api' },
  ];
  assert.deepEqual(unservedScope(['demo', 'my_api', 'my-api'], served, 'c'), [], 'a profile name or its identifier is served');
  assert.deepEqual(unservedScope(undefined, served, 'c'), [], 'no scope: every API');
  const lines = unservedScope(['Demo', 'nosuch', 'MY_API'], served, 'the companion');
  assert.equal(lines.length, 3);
  assert.equal(lines[0], "--api Demo: the companion serves no API 'Demo'; names are exact: did you mean --api demo?");
  assert.match(lines[1]!, /^--api nosuch: the companion serves no API 'nosuch' \(it serves demo, my-api\)\. Add or enable it/);
  assert.match(lines[2]!, /did you mean --api my-api\?$/);
});

test('names are checked: the error names the flag and the value; the contract refuses them too', () => {
  assert.throws(
    () => checkScope(['demo', 'not an api']),
    (e: unknown) => e instanceof AirlockError && e.kind === 'usage' && /--api "not an api" is not an API name/.test(e.message),
  );
  assert.throws(() => checkScope(['x'.repeat(41)]), /is not an API name/);
  assert.throws(() => scopedLaunch(launch, ['a/b']), /--api "a\/b"/);
  assert.deepEqual(checkScope(['Git_hub-2', '$x']), ['Git_hub-2', '$x']);
  assert.equal(clientChangeInputSchema.safeParse({ id: 'cursor', action: 'add', apis: ['demo'] }).success, true);
  assert.equal(clientChangeInputSchema.safeParse({ id: 'cursor', action: 'add', apis: ['no good'] }).success, false);
  assert.ok(sameScope(['a', 'b'], ['b', 'a']));
  assert.ok(sameScope(undefined, []));
  assert.ok(!sameScope(['a'], undefined));
});

test('every client: a scoped add writes `--api` in its entry; the state is registered with that scope; the same scope again changes nothing', async (t) => {
  const { registrar, install, fileOf, stateOf } = setup(t);
  for (const c of CLIENTS) {
    install(c.id);
    const r = await registrar.add(c.id, { apis: ['demo', 'github'] });
    assert.equal(r.changed, true, c.id);
    assert.deepEqual(r.apis, ['demo', 'github']);
    assert.match(r.diff, /\+.*"?--api"?/, `${c.id}: the diff shows the scope`);
    const file = fileOf(c.id);
    const entry = readEntry(readConfig(readFileSync(file, 'utf8'), c.format, file), c.root, 'airlock') as { args: string[] };
    assert.deepEqual(entry.args, [...launch.args, '--api', 'demo', '--api', 'github'], c.id);
    const state = await stateOf(c.id);
    assert.equal(state.state, 'registered', `${c.id}: a scoped registration is registered, not outdated`);
    assert.deepEqual(state.apis, ['demo', 'github']);
    assert.equal((await registrar.add(c.id, { apis: ['github', 'demo'] })).changed, false, `${c.id}: the same APIs in another order`);
  }
});

test('adding again with another scope (or none) updates the entry and shows the diff; remove ignores the scope', async (t) => {
  const { registrar, install, fileOf, stateOf } = setup(t);
  install('cursor');
  await registrar.add('cursor', { apis: ['demo'] });
  const dry = await registrar.add('cursor', { apis: ['github'], dryRun: true });
  assert.equal(dry.changed, true);
  assert.match(dry.diff, /-\s+"demo"/);
  assert.match(dry.diff, /\+\s+"github"/);
  assert.deepEqual((await stateOf('cursor')).apis, ['demo'], 'a dry run writes nothing');
  await registrar.add('cursor', { apis: ['github'] });
  assert.deepEqual((await stateOf('cursor')).apis, ['github']);
  const widened = await registrar.add('cursor');
  assert.equal(widened.changed, true, 'no scope is a change from a scope');
  assert.equal(widened.apis, undefined);
  const entry = JSON.parse(readFileSync(fileOf('cursor'), 'utf8')) as { mcpServers: { airlock: { args: string[] } } };
  assert.deepEqual(entry.mcpServers.airlock.args, launch.args);
  const state = await stateOf('cursor');
  assert.equal(state.state, 'registered');
  assert.equal(state.apis, undefined);
  assert.equal((await registrar.remove('cursor')).changed, true);
  assert.equal((await stateOf('cursor')).state, 'not-registered');
});

test('an entry whose --api names no valid API, or has other flags, is outdated (and says what it runs)', async (t) => {
  const { registrar, install, fileOf, stateOf } = setup(t);
  install('cursor', JSON.stringify({ mcpServers: { airlock: { command: NODE, args: [...launch.args, '--api', 'a b'] } } }));
  assert.equal((await stateOf('cursor')).state, 'outdated');
  writeFileSync(fileOf('cursor'), JSON.stringify({ mcpServers: { airlock: { command: NODE, args: [...launch.args, '--api', 'demo', '--verbose'] } } }));
  const outdated = await stateOf('cursor');
  assert.equal(outdated.state, 'outdated');
  assert.match(outdated.reason!, /--api demo --verbose/);
  const r = await registrar.add('cursor', { apis: ['demo'] });
  assert.equal(r.changed, true);
  assert.equal((await stateOf('cursor')).state, 'registered');
});

test("a client's own CLI: the scope is in the command it runs, and an entry with another scope is removed first", async (t) => {
  const { registrar, install, calls } = setup(t, { bin: 'claude' });
  install('claude-code', JSON.stringify({ mcpServers: { airlock: { type: 'stdio', command: NODE, args: [...launch.args, '--api', 'demo'], env: {} } } }));
  const r = await registrar.add('claude-code', { apis: ['github'] });
  assert.equal(r.via, 'cli');
  assert.deepEqual(calls, [
    ['/usr/bin/claude', 'mcp', 'remove', '--scope', 'user', 'airlock'],
    ['/usr/bin/claude', 'mcp', 'add', '--scope', 'user', 'airlock', '--', NODE, ...launch.args, '--api', 'github'],
  ]);
});

test('a launch command that does not take --api refuses a scope instead of writing one it would ignore', async (t) => {
  const { registrar, install, fileOf } = setup(t, { scopable: false });
  install('cursor');
  await assert.rejects(
    registrar.add('cursor', { apis: ['demo'] }),
    (e: unknown) => e instanceof AirlockError && e.kind === 'unavailable' && /does not take --api/.test(e.message),
  );
  assert.equal((await registrar.add('cursor')).changed, true, 'without a scope it registers as before');
  assert.ok(readFileSync(fileOf('cursor'), 'utf8').includes('"stdio"'));
});
