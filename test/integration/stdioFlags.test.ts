// A client registered with flags joins the running companion: no flag is
// ignored in silence. Its own (log level) are honoured; the companion's are
// honoured when it already runs with them, and otherwise the stdio process
// refuses at start, exit 2, one line per flag saying what the companion uses
// and what to do — before anything is forwarded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve, runCliToEnd } from '../helpers/processes.ts';
import { controlClient } from '../helpers/control.ts';
import { execute } from '../helpers/mcpClients.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';

test('a joining stdio refuses the companion settings it cannot honour, and honours the rest', { timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const { pid } = await controlClient(dir, server.url).call('status', {});

  // Another engine, another API, another cap, and a cap through its environment twin: refused, each named.
  const refused = await runCliToEnd(['stdio', '--data-dir', dir, '--engine', 'deno', '--profile', 'openagenda', '--timeout-ms', '9000'], {
    env: { AIRLOCK_RATE_LIMIT: '3' },
    timeoutMs: 30_000,
  });
  assert.equal(refused.code, 2, refused.stderr);
  const lines = refused.stderr.split('\n').filter((l) => l.startsWith('airlock: '));
  assert.equal(lines.length, 4, refused.stderr);
  assert.ok(
    lines.some((l) => l.startsWith(`airlock: --engine deno: the running companion (pid ${pid}) runs quickjs for every client. Change it on its Engine screen`)),
    refused.stderr,
  );
  assert.ok(
    lines.some(
      (l) =>
        l.includes('--profile openagenda: the running companion') &&
        l.includes("does not serve the API 'openagenda' (it serves demo)") &&
        l.includes('airlock apis enable openagenda'),
    ),
    refused.stderr,
  );
  assert.ok(
    lines.some((l) => l.includes('--timeout-ms 9000: the running companion') && l.includes('uses 5000') && l.includes('--in-process')),
    refused.stderr,
  );
  assert.ok(
    lines.some((l) => l.startsWith('airlock: AIRLOCK_RATE_LIMIT 3:')),
    refused.stderr,
  );
  assert.equal(refused.stdout, '', 'nothing reached the client as protocol');

  // An API of its own (--spec): refused with the line that adds it for every client.
  const spec = await runCliToEnd(['stdio', '--data-dir', dir, '--spec', '/srv/other.yaml'], { timeoutMs: 30_000 });
  assert.equal(spec.code, 2, spec.stderr);
  assert.match(
    spec.stderr,
    /airlock: --spec \/srv\/other\.yaml: a joining client does not bring its own API .*`airlock apis add <name> --spec \/srv\/other\.yaml`/,
  );

  // Its own log level, and the companion's own engine and a profile it serves: honoured, and the client works.
  const client = new Client({ name: 'flagged', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, 'stdio', '--data-dir', dir, '--log-level', 'debug', '--engine', 'quickjs', '--profile', 'demo'],
    cwd: ROOT,
    stderr: 'pipe',
    env: process.env as Record<string, string>,
  });
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal((await execute(client, 'return 6 * 7')).text, '42');
});
