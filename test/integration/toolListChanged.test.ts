// One notifications/tools/list_changed per change (issue 36 §11): an API
// enabled, another MCP server's tools offered directly or withdrawn, each
// tell a connected client once — not once per tool or per step. Counted on a
// joined stdio session, where the companion's messages arrive in order: an
// answer to a request sent after the change has settled comes after every
// notification the change caused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { serve, runCliToEnd } from '../helpers/processes.ts';
import { controlClient } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';

const SERVER = join(ROOT, 'test', 'fixtures', 'upstream', 'testServer.ts');

test('an API enabled, and a server offered directly and withdrawn, each send one tools/list_changed', { timeout: 180_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const echo = await startEchoApi();
  t.after(() => echo.close());
  mkdirSync(join(dir, 'beta-spec'), { recursive: true });
  mkdirSync(join(dir, 'profiles'), { recursive: true });
  writeFileSync(join(dir, 'profiles', 'beta.json'), JSON.stringify({ spec: writeEchoSpec(join(dir, 'beta-spec'), echo.url), auth: 'none', enabled: false }));
  const added = await runCliToEnd(['servers', 'add', 'tools', '--data-dir', dir, '--', NODE, SERVER], { timeoutMs: 30_000 });
  assert.equal(added.code, 0, added.stderr);
  const server = await serve(dir);
  t.after(() => server.stop());
  const control = controlClient(dir, server.url);
  const accepted = await runCliToEnd(['servers', 'accept', 'tools', '--yes', '--data-dir', dir], { timeoutMs: 60_000 });
  assert.equal(accepted.code, 0, accepted.stderr);

  const client = new Client({ name: 'counting', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--data-dir', dir], cwd: ROOT, stderr: 'pipe', env: process.env as Record<string, string> }),
  );
  t.after(() => client.close());
  let told = 0;
  let next: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    told++;
    next?.();
  });
  const names = async () => (await client.listTools()).tools.map((x) => `${x.name}: ${x.description}`);
  /**
   * Waits for the change to be told (to the test's deadline), then — notification by notification — until the
   * tools show `done`; then how many notifications came. Nothing is listed before the first: a listing
   * describes the tools again itself, and the change would have nothing left to tell.
   */
  const toldUntil = async (before: number, done: (tools: string[]) => boolean): Promise<number> => {
    if (told === before) await new Promise<void>((resolve) => (next = resolve));
    for (;;) {
      const seen = told;
      const tools = await names();
      // This answer was sent after every notification the change has caused so far.
      if (done(tools)) return told - before;
      if (told === seen) await new Promise<void>((resolve) => (next = resolve));
    }
  };
  await names();

  let before = told;
  await control.call('apis.enable', { name: 'beta' });
  assert.equal(
    await toldUntil(before, (tools) => tools.some((x) => /^execute: .*`beta` \(Echo, 19 operations\)/s.test(x))),
    1,
    'one notification for an API enabled',
  );

  before = told;
  const direct = await runCliToEnd(['servers', 'direct', 'tools', 'on', '--data-dir', dir], { timeoutMs: 30_000 });
  assert.equal(direct.code, 0, direct.stderr);
  const offered = await toldUntil(before, (tools) => tools.filter((x) => x.startsWith('tools__')).length >= 5);
  assert.equal(offered, 1, 'one notification for a server offered directly, not one per tool');

  before = told;
  const off = await runCliToEnd(['servers', 'direct', 'tools', 'off', '--data-dir', dir], { timeoutMs: 30_000 });
  assert.equal(off.code, 0, off.stderr);
  assert.equal(await toldUntil(before, (tools) => !tools.some((x) => x.startsWith('tools__'))), 1, 'one notification for it withdrawn');
});
