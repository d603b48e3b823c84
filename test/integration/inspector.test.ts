// An outside client: the MCP Inspector CLI drives `airlock stdio` (serving
// the built-in demo API, the default profile), in each revision it speaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const bin = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
    const child = spawn(bin, ['--cli', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: join(ROOT, 'node_modules', '.cache', 'inspector-home') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

for (const era of ['legacy', 'modern'] as const)
  test(`the MCP Inspector CLI (${era === 'modern' ? 'MCP 2026-07-28' : 'MCP 2025'}) lists the tools and calls search_docs`, async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    // The server's stderr, at debug, says which revision the Inspector opened with.
    const said = join(dir, 'stderr.log');
    const server = ['--protocol-era', era, 'bash', '-c', `'${NODE}' '${CLI}' stdio --in-process --data-dir '${dir}' --log-level debug 2>>'${said}'`];
    const list = await inspector([...server, '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    const tools = JSON.parse(list.stdout).tools as { name: string; annotations?: { readOnlyHint?: boolean } }[];
    assert.equal(tools[0]!.name, 'search_docs');
    assert.equal(tools[0]!.annotations?.readOnlyHint, true);
    const call = await inspector([...server, '--method', 'tools/call', '--tool-name', 'search_docs', '--tool-arg', 'query=supprimer un événement']);
    assert.equal(call.code, 0, call.stderr);
    const result = JSON.parse(call.stdout);
    assert.equal(result.structuredContent.results[0].operationId, 'events.delete');
    const opened = readFileSync(said, 'utf8').match(/opened with [^\n]*/g) ?? [];
    assert.deepEqual(opened, Array(2).fill(era === 'modern' ? 'opened with server/discover: MCP 2026-07-28' : 'opened with initialize: MCP 2025'));
  });

test('search_docs related: an outside client gets the operations that go with one', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = [NODE, CLI, 'stdio', '--in-process', '--data-dir', dir];
  const call = await inspector([...server, '--method', 'tools/call', '--tool-name', 'search_docs', '--tool-arg', 'related=events.delete']);
  assert.equal(call.code, 0, call.stderr);
  const ids = (JSON.parse(call.stdout) as { structuredContent: { results: { operationId: string }[] } }).structuredContent.results.map((r) => r.operationId);
  assert.equal(ids[0], 'events.list');
  assert.ok(ids.includes('events.get'));
  const neither = await inspector([...server, '--method', 'tools/call', '--tool-name', 'search_docs']);
  assert.match(neither.stdout + neither.stderr, /Give a query \(what you want to do\), related: an operationId, or api: an API for its outline/);
});
