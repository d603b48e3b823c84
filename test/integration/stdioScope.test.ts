// `airlock stdio --api NAME` (issue 36 §10): a name the companion does not
// serve is refused at start — the client's initialize is answered with the
// reason, the process says it on stderr and exits 2: the names it serves, and
// the exact name meant when only the case differs — joined (the lean path
// client registrations run, and the full CLI's) and in process; a served name
// joins and works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve, runCliToEnd } from '../helpers/processes.ts';
import { controlClient } from '../helpers/control.ts';
import { execute } from '../helpers/mcpClients.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';

test('a joining stdio refuses an --api the companion does not serve, and joins with one it serves', { timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const { pid } = await controlClient(dir, server.url).call('status', {});

  const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
  // The lean path (what registrations run), and the full CLI's (any other flag: here --log-level debug… is lean too, so --timeout-ms as the companion has it).
  for (const extra of [[], ['--timeout-ms', '5000']]) {
    const unknown = await runCliToEnd(['stdio', '--data-dir', dir, ...extra, '--api', 'nosuch'], { input: initialize, timeoutMs: 30_000 });
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, new RegExp(`airlock: --api nosuch: the running companion \\(pid ${pid}\\) serves no API 'nosuch' \\(it serves demo\\)`));
    const answer = JSON.parse(unknown.stdout) as { id: number; error: { message: string } };
    assert.equal(answer.id, 1, 'the initialize is answered under its id');
    assert.match(answer.error.message, /serves no API 'nosuch'/);
  }

  const cased = await runCliToEnd(['stdio', '--data-dir', dir, '--api', 'Demo'], { input: initialize, timeoutMs: 30_000 });
  assert.equal(cased.code, 2, cased.stderr);
  assert.match(cased.stderr, /airlock: --api Demo: .*names are exact: did you mean --api demo\?/);

  const client = new Client({ name: 'scoped', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, 'stdio', '--data-dir', dir, '--api', 'demo'],
    cwd: ROOT,
    stderr: 'pipe',
    env: process.env as Record<string, string>,
  });
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal((await execute(client, 'return 6 * 7')).text, '42');
});

test('stdio --in-process refuses an --api its companion does not serve', { timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const run = await runCliToEnd(['stdio', '--in-process', '--data-dir', dir, '--api', 'demo', '--api', 'GitHub'], { timeoutMs: 60_000 });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /airlock: --api GitHub: this companion serves no API 'GitHub' \(it serves demo\)/);
  assert.doesNotMatch(run.stderr, /--api demo:/, 'a served name is not refused');
});
