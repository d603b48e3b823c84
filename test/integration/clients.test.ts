// `airlock clients` end to end with the real Claude Code CLI (HOME in a
// temporary directory, offline): add registers through `claude mcp add`,
// then `claude mcp list` connects to the command written and reports it
// connected; list shows it registered; remove and undo leave no trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { runCliToEnd } from '../helpers/processes.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';
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
