// `airlock clients` end to end with the real Claude Code CLI (HOME in a
// temporary directory, offline): add registers through `claude mcp add`,
// then `claude mcp list` connects to the command written and reports it
// connected; list shows it registered; remove and undo leave no trace. With
// `--api`, the registration carries the scope and the command it runs
// reaches only those APIs. Over HTTP, Claude Code speaks MCP 2026-07-28 with
// the companion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCliToEnd, serve } from '../helpers/processes.ts';
import { execute } from '../helpers/mcpClients.ts';
import { writeEchoSpec } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { controlClient } from '../helpers/control.ts';
import { CLAUDE_CLI, requireTools } from '../helpers/systemTools.ts';

const CLAUDE = join(ROOT, 'node_modules', '.bin', 'claude');

function claude(home: string, args: string[], timeoutMs = 90_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(CLAUDE, args, { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test('claude-code: add through its CLI, `claude mcp list` connects, remove and undo', { timeout: 180_000 }, async (t) => {
  if (!requireTools(t, CLAUDE_CLI)) return;
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const home = join(dir, 'home');
  mkdirSync(home);
  // A companion the registered command starts in the background exits 2 s after its last client.
  const env = { HOME: home, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, AIRLOCK_EXIT_WHEN_IDLE: '2' };
  const dataDir = join(dir, 'data');
  const add = await runCliToEnd(['clients', 'add', 'claude-code', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
  assert.equal(add.code, 0, add.stderr + add.stdout);
  assert.match(add.stdout, /Done with `.*claude mcp add --scope user airlock -- /);
  assert.match(add.stdout, /✔ the registered command answers: search_docs, execute/);
  assert.doesNotMatch(readFileSync(join(home, '.claude.json'), 'utf8'), /token|Bearer/i, 'no secret in the file');

  const listed = await claude(home, ['mcp', 'list']);
  assert.match(listed.out, /airlock: .*stdio --data-dir .* - ✔ Connected/);
  const ours = await runCliToEnd(['clients', 'list', '--json', '--data-dir', dataDir], { env });
  assert.equal((JSON.parse(ours.stdout) as { id: string; state: string }[]).find((c) => c.id === 'claude-code')!.state, 'registered');

  const removed = await runCliToEnd(['clients', 'remove', 'claude-code', '--data-dir', dataDir], { env, timeoutMs: 60_000 });
  assert.equal(removed.code, 0, removed.stderr);
  assert.match((await claude(home, ['mcp', 'list'])).out, /No MCP servers configured/);
  const undone = await runCliToEnd(['clients', 'undo', 'claude-code', '--data-dir', dataDir], { env });
  assert.equal(undone.code, 0, undone.stderr);
  assert.match((await claude(home, ['mcp', 'list'])).out, /airlock: .* - ✔ Connected/, 'undo brought the entry back');
});

/** A HOME of its own for the `claude` CLI, and a companion serving the demo API in a data dir of its own. */
async function claudeBesideCompanion(t: { after(fn: () => unknown): void }) {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const home = join(dir, 'home');
  mkdirSync(home);
  const data = join(dir, 'data');
  const server = await serve(data, []);
  t.after(() => server.stop());
  return { home, data, server };
}

test(
  'claude-code over HTTP speaks MCP 2026-07-28 with the companion: `claude mcp list` connects through server/discover, with no 2025 session',
  { timeout: 180_000 },
  async (t) => {
    if (!requireTools(t, CLAUDE_CLI)) return;
    const { home, data, server } = await claudeBesideCompanion(t);
    const added = await claude(home, [
      'mcp',
      'add',
      '--scope',
      'user',
      '--transport',
      'http',
      'airlock-http',
      server.mcpUrl,
      '--header',
      `Authorization: Bearer ${server.token}`,
    ]);
    assert.equal(added.code, 0, added.out);
    const listed = await claude(home, ['mcp', 'list']);
    assert.match(listed.out, /airlock-http: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/, listed.out);
    const control = controlClient(data, server.url);
    const discover = await control.call('logs.query', { grep: 'server/discover from' });
    assert.ok(
      discover.some((e) => /server\/discover from claude-code/i.test(e.message)),
      `it chose 2026-07-28: ${discover.map((e) => e.message).join(' | ') || 'no server/discover'}`,
    );
    assert.deepEqual(
      (await control.call('logs.query', { grep: 'mcp session' })).map((e) => e.message),
      [],
      'no 2025 session was opened',
    );
  },
);

test(
  'claude-code over joined stdio speaks MCP 2026-07-28 too: `claude mcp list` connects, and the pipe opened with server/discover',
  { timeout: 180_000 },
  async (t) => {
    if (!requireTools(t, CLAUDE_CLI)) return;
    const { home, data, server } = await claudeBesideCompanion(t);
    const added = await claude(home, ['mcp', 'add', '--scope', 'user', 'airlock-stdio', '--', NODE, CLI, 'stdio', '--data-dir', data]);
    assert.equal(added.code, 0, added.out);
    const listed = await claude(home, ['mcp', 'list']);
    assert.match(listed.out, /airlock-stdio: .* - ✔ Connected/, listed.out);
    const control = controlClient(data, server.url);
    const opened = await control.call('logs.query', { grep: 'opened with server/discover' });
    assert.ok(opened.length > 0, 'the joined pipe was opened with server/discover (2026-07-28)');
    assert.deepEqual(
      (await control.call('logs.query', { grep: 'opened with initialize' })).map((e) => e.message),
      [],
      'and it did not fall back to 2025',
    );
  },
);

test('a broken client file is named with its line and column, and left as it was', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const home = join(dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  writeFileSync(join(home, '.cursor', 'mcp.json'), '{\n  "mcpServers": {\n    "x": { "command": "y" },,\n  }\n}\n');
  const r = await runCliToEnd(['clients', 'add', 'cursor', '--data-dir', join(dir, 'data')], { env: { HOME: home } });
  assert.equal(r.code, 1, r.stdout);
  assert.doesNotMatch(r.stderr, /unexpected error|\n\s+at /, 'one line, no stack');
  assert.match(r.stderr, /\.cursor\/mcp\.json does not parse \(line 3, column \d+: .*\); it was left untouched/);
  assert.equal(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8'), '{\n  "mcpServers": {\n    "x": { "command": "y" },,\n  }\n}\n');
});

test('cursor --api demo: the registration carries the scope, and the command it runs reaches demo alone', { timeout: 180_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  const home = join(dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  // A second API beside the demo, so the scope has something to leave out.
  const dataDir = join(dir, 'data');
  mkdirSync(join(dataDir, 'profiles'), { recursive: true });
  const spec = writeEchoSpec(dir, 'http://127.0.0.1:9/v1');
  writeFileSync(join(dataDir, 'profiles', 'alpha.json'), JSON.stringify({ spec, enabled: true }));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const server = await serve(dataDir, [], env);
  const client = new McpClient({ name: 'cursor-scoped', version: '1.0.0' });
  t.after(async () => {
    await client.close();
    await server.stop();
    cleanup();
  });

  const bad = await runCliToEnd(['clients', 'add', 'cursor', '--api', 'not an api', '--data-dir', dataDir], { env });
  assert.equal(bad.code, 2, bad.stdout);
  assert.match(bad.stderr, /--api .*'not an api' is not an API name/);

  const add = await runCliToEnd(['clients', 'add', 'cursor', '--api', 'demo', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
  assert.equal(add.code, 0, add.stderr + add.stdout);
  assert.match(add.stdout, /\+\s+"--api",\n\+\s+"demo"/);
  assert.match(add.stdout, /cursor reaches only demo\./);
  assert.match(add.stdout, /✔ the registered command answers: search_docs, execute/);
  const file = join(home, '.cursor', 'mcp.json');
  const entry = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.airlock!;
  assert.deepEqual(entry.args.slice(-2), ['--api', 'demo']);
  const listed = await runCliToEnd(['clients', 'list', '--json', '--data-dir', dataDir], { env });
  const cursor = (JSON.parse(listed.stdout) as { id: string; state: string; apis?: string[] }[]).find((c) => c.id === 'cursor')!;
  assert.deepEqual([cursor.state, cursor.apis], ['registered', ['demo']]);
  assert.match((await runCliToEnd(['clients', 'list', '--data-dir', dataDir], { env })).stdout, /cursor .*registered.*\n\s+reaches only: demo/);

  // Exactly what Cursor would run: its session sees the demo, not alpha.
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...(process.env as Record<string, string>), ...env } }));
  const search = (await client.listTools()).tools.find((x) => x.name === 'search_docs')!.description!;
  assert.match(search, /Demo Events API/);
  assert.doesNotMatch(search, /Echo API/);
  const reach = await execute(client, 'return [typeof api, typeof demo, typeof alpha];');
  assert.deepEqual(JSON.parse(reach.text), ['object', 'object', 'undefined']);

  // Another scope updates the registration, with its diff; the same one again changes nothing.
  const wider = await runCliToEnd(['clients', 'add', 'cursor', '--api', 'demo', '--api', 'alpha', '--data-dir', dataDir, '--no-verify'], { env });
  assert.equal(wider.code, 0, wider.stderr);
  assert.match(wider.stdout, /\+\s+"alpha"/);
  const again = await runCliToEnd(['clients', 'add', 'cursor', '--api', 'alpha,demo', '--data-dir', dataDir, '--no-verify'], { env });
  assert.match(again.stdout, /nothing to do \(already registered, reaching only alpha, demo,/);
});
