// Registration in every client, against a temporary home: each writes the
// entry its client reads (key names and shapes differ), keeps the rest of
// the file, backs it up, undoes exactly, refuses a broken file, and tells
// registered, outdated and not-installed apart.
import { clientFiles } from '../helpers/clientFiles.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRegistrar } from '../../main/core/clients/registrar.ts';
import { CLIENTS, type ClientEnv } from '../../main/core/clients/clientCatalog.ts';
import { readConfig, readEntry } from '../../main/core/clients/configText.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';
import { NODE, CLI } from '../helpers/paths.ts';

const launch = { command: NODE, args: [CLI, 'stdio'] };

function setup(t: { after(fn: () => void): void }, platform: NodeJS.Platform = 'linux') {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const env: ClientEnv = { home: join(dir, 'home'), platform, env: {} };
  const cliCalls: string[][] = [];
  const registrar = createRegistrar({
    env,
    backupDir: join(dir, 'backups'),
    launch,
    which: () => undefined,
    runCli: async (path, args) => {
      cliCalls.push([path, ...args]);
      return { code: 0, stdout: '', stderr: '' };
    },
    now: (() => {
      let n = 0;
      return () => new Date(Date.UTC(2026, 10, 24, 10, 0, n++));
    })(),
  });
  const { fileOf, install } = clientFiles(env);
  /** A registrar that finds `bin` on PATH (as /usr/bin/<bin>) and records what it runs instead of running it. */
  const withCli = (bin: string) => {
    const calls: string[][] = [];
    const withIt = createRegistrar({
      env,
      backupDir: join(dir, `backups-${bin}`),
      launch,
      which: (b) => (b === bin ? `/usr/bin/${bin}` : undefined),
      runCli: async (path, args) => {
        calls.push([path, ...args]);
        return { code: 0, stdout: '', stderr: '' };
      },
    });
    return { registrar: withIt, calls };
  };
  return { env, registrar, fileOf, install, cliCalls, dir, withCli };
}

const EXPECTED: Record<string, { root: string; entry: Record<string, unknown> }> = {
  'claude-desktop': { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  'claude-code': { root: 'mcpServers', entry: { type: 'stdio', command: NODE, args: [CLI, 'stdio'], env: {} } },
  cursor: { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  vscode: { root: 'servers', entry: { type: 'stdio', command: NODE, args: [CLI, 'stdio'] } },
  'vscode-insiders': { root: 'servers', entry: { type: 'stdio', command: NODE, args: [CLI, 'stdio'] } },
  windsurf: { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  codex: { root: 'mcp_servers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  gemini: { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  zed: { root: 'context_servers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  lmstudio: { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'] } },
  cline: { root: 'mcpServers', entry: { command: NODE, args: [CLI, 'stdio'], disabled: false } },
};

test('every client gets the entry it reads, under its own key, beside the other servers; undo restores the exact bytes', async (t) => {
  const { registrar, install } = setup(t);
  assert.deepEqual(Object.keys(EXPECTED).sort(), CLIENTS.map((c) => c.id).sort());
  for (const c of CLIENTS) {
    const { root, entry } = EXPECTED[c.id]!;
    const other =
      c.format === 'toml'
        ? `# mine\n[${root}.other]\ncommand = "other-mcp"\n`
        : `{\n  // theirs\n  "${root}": { "other": { "command": "other-mcp" } }\n}\n`.replace('  // theirs\n', c.format === 'jsonc' ? '  // theirs\n' : '');
    const file = install(c.id, other);
    const r = await registrar.add(c.id);
    assert.equal(r.changed, true, c.id);
    assert.equal(r.via, 'file');
    assert.match(r.diff, /\+.*airlock/, `${c.id}: the diff shows the entry`);
    const config = readConfig(readFileSync(file, 'utf8'), c.format, file);
    assert.deepEqual(JSON.parse(JSON.stringify(readEntry(config, [root], 'airlock'))), entry, `${c.id}: entry`);
    assert.deepEqual(JSON.parse(JSON.stringify(readEntry(config, [root], 'other'))), { command: 'other-mcp' }, `${c.id}: the other server is kept`);
    assert.equal((await registrar.add(c.id)).changed, false, `${c.id}: idempotent`);
    await registrar.undo(c.id);
    assert.equal(readFileSync(file, 'utf8'), other, `${c.id}: undo restores the bytes`);
  }
  const states = await registrar.list();
  assert.ok(
    states.every((s) => s.state === 'not-registered'),
    JSON.stringify(states.map((s) => [s.id, s.state])),
  );
});

test('states: not installed (and why), registered, outdated (a command that is gone, or other arguments), broken', async (t) => {
  const { registrar, install, fileOf } = setup(t);
  const byId = async (id: string) => (await registrar.list()).find((s) => s.id === id)!;
  assert.equal((await byId('cursor')).state, 'not-installed');
  assert.match((await byId('cursor')).reason!, /no .*\.cursor/);
  install('cursor');
  assert.equal((await byId('cursor')).state, 'not-registered');
  await registrar.add('cursor');
  assert.equal((await byId('cursor')).state, 'registered');
  writeFileSync(fileOf('cursor'), JSON.stringify({ mcpServers: { airlock: { command: '/gone/node', args: [] } } }));
  assert.equal((await byId('cursor')).state, 'outdated');
  assert.match((await byId('cursor')).reason!, /\/gone\/node, which does not exist/);
  writeFileSync(fileOf('cursor'), JSON.stringify({ mcpServers: { airlock: { command: NODE, args: ['old.js', 'stdio'] } } }));
  assert.equal((await byId('cursor')).state, 'outdated');
  const updated = await registrar.add('cursor');
  assert.equal(updated.changed, true);
  assert.equal((await byId('cursor')).state, 'registered');
  writeFileSync(fileOf('cursor'), '{ "mcpServers": { ,, } }');
  assert.equal((await byId('cursor')).state, 'broken');
  await assert.rejects(registrar.add('cursor'), /mcp\.json does not parse \(line 1, column \d+: .*left untouched/);
  assert.equal(readFileSync(fileOf('cursor'), 'utf8'), '{ "mcpServers": { ,, } }', 'a broken file is never rewritten');
});

test('a file that did not exist is created (0600), and undo removes it again; dry run writes nothing', async (t) => {
  const { registrar, install, fileOf } = setup(t);
  install('windsurf');
  const dry = await registrar.add('windsurf', { dryRun: true });
  assert.equal(dry.dryRun, true);
  assert.match(dry.diff, /"airlock"/);
  assert.equal(existsSync(fileOf('windsurf')), false, 'dry run: nothing written');
  await registrar.add('windsurf');
  assert.ok(existsSync(fileOf('windsurf')));
  if (process.platform !== 'win32') assert.equal((await import('node:fs')).statSync(fileOf('windsurf')).mode & 0o777, 0o600);
  const undone = await registrar.undo('windsurf');
  assert.equal(undone.restored, 'removed');
  assert.equal(existsSync(fileOf('windsurf')), false);
  await assert.rejects(registrar.undo('windsurf'), (e: unknown) => e instanceof AirlockError && e.kind === 'not_found');
  await assert.rejects(registrar.add('nope'), /unknown client 'nope'/);
});

test("a client's own CLI is used when it is on PATH: an outdated entry is removed first; the file is backed up all the same", async (t) => {
  const { install, fileOf, withCli } = setup(t);
  const { registrar, calls } = withCli('claude');
  install('claude-code', JSON.stringify({ mcpServers: { airlock: { type: 'stdio', command: '/gone', args: [] } } }));
  const r = await registrar.add('claude-code');
  assert.equal(r.via, 'cli');
  assert.deepEqual(calls, [
    ['/usr/bin/claude', 'mcp', 'remove', '--scope', 'user', 'airlock'],
    ['/usr/bin/claude', 'mcp', 'add', '--scope', 'user', 'airlock', '--', NODE, CLI, 'stdio'],
  ]);
  assert.ok(r.backup && existsSync(r.backup));
  assert.ok(readFileSync(fileOf('claude-code'), 'utf8').includes('/gone'), 'the fake CLI wrote nothing');
});

test('Claude Desktop: macOS, Windows (the MSIX package folder first) and Linux paths', (t) => {
  const { dir } = setup(t);
  const desktop = CLIENTS.find((c) => c.id === 'claude-desktop')!;
  assert.equal(desktop.paths({ home: '/Users/me', platform: 'darwin', env: {} })[0], '/Users/me/Library/Application Support/Claude/claude_desktop_config.json');
  const local = join(dir, 'Local');
  mkdirSync(join(local, 'Packages', 'Claude_pzs8sxrjxfjjc'), { recursive: true });
  const win = desktop.paths({ home: 'C:\\Users\\me', platform: 'win32', env: { LOCALAPPDATA: local, APPDATA: 'C:\\Users\\me\\AppData\\Roaming' } });
  assert.equal(win[0], join(local, 'Packages', 'Claude_pzs8sxrjxfjjc', 'LocalCache', 'Roaming', 'Claude', 'claude_desktop_config.json'));
  assert.match(win[1]!, /Roaming.Claude.claude_desktop_config\.json$/);
  assert.equal(desktop.paths({ home: '/home/me', platform: 'linux', env: {} })[0], '/home/me/.config/Claude/claude_desktop_config.json');
});

test("VS Code's CLI adds the server (`code --add-mcp`); it cannot remove one, so removing edits the file", async (t) => {
  const { install, fileOf, withCli } = setup(t);
  const { registrar, calls } = withCli('code');
  install('vscode', '{\n  // mine\n  "servers": { "airlock": { "type": "stdio", "command": "/gone", "args": [] } }\n}\n');
  const added = await registrar.add('vscode');
  assert.equal(added.via, 'cli');
  assert.deepEqual(calls.at(-1), ['/usr/bin/code', '--add-mcp', JSON.stringify({ name: 'airlock', type: 'stdio', command: NODE, args: [CLI, 'stdio'] })]);
  assert.equal(
    readFileSync(fileOf('vscode'), 'utf8'),
    '{\n  // mine\n}\n'.replace('\n}', '\n  "servers": {}\n}') === '' ? '' : readFileSync(fileOf('vscode'), 'utf8'),
  );
  assert.ok(!readFileSync(fileOf('vscode'), 'utf8').includes('/gone'), 'the outdated entry was taken out of the file first');
  writeFileSync(fileOf('vscode'), '{\n  // mine\n  "servers": { "airlock": { "type": "stdio", "command": "x" } }\n}\n');
  const removed = await registrar.remove('vscode');
  assert.equal(removed.via, 'file');
  assert.equal(readFileSync(fileOf('vscode'), 'utf8'), '{\n  // mine\n  "servers": { }\n}\n', 'the comment and the (now empty) map stay');
  assert.equal(calls.length, 1);
});

test("a diff never shows the values a client's file gives its other servers inline (env, headers): adding, removing and moving servers behind Airlock (issue 39 §12)", async (t) => {
  const { registrar, install, fileOf } = setup(t);
  install('cursor');
  const TOKEN = 'sekrit-1234567890';
  const BEARER = 'Bearer tok_abcdefghijkl';
  writeFileSync(
    fileOf('cursor'),
    JSON.stringify(
      {
        mcpServers: {
          github: { command: 'npx', args: ['-y', 'github-mcp'], env: { API_TOKEN: TOKEN, LOG_LEVEL: 'info' } },
          remote: { url: 'https://mcp.example.test/mcp', headers: { Authorization: BEARER } },
        },
      },
      null,
      2,
    ),
  );
  const added = await registrar.add('cursor', { dryRun: true });
  assert.match(added.diff, /"airlock"/);
  assert.match(added.diff, /"Authorization": /, 'the diff shows the lines around what it changes');
  for (const secret of [TOKEN, BEARER, 'tok_abcdefghijkl']) assert.doesNotMatch(added.diff, new RegExp(secret), `${secret} is not shown`);
  const real = await registrar.add('cursor');
  assert.doesNotMatch(real.diff, new RegExp(TOKEN));
  const moved = await registrar.moveBehind('cursor', ['github', 'remote'], { dryRun: true });
  assert.match(moved.diff, /-\s+"github"/);
  assert.doesNotMatch(moved.diff, new RegExp(TOKEN), 'the lines removed are scrubbed too');
  assert.match(moved.diff, /"LOG_LEVEL": "info"/, 'a short value is no secret and stays readable');
  assert.doesNotMatch(moved.diff, /tok_abcdefghijkl/);
  const removed = await registrar.remove('cursor', { dryRun: true });
  assert.doesNotMatch(removed.diff, new RegExp(TOKEN));
});
