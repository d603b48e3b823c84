// The Clients screen with a temporary home holding a Cursor configuration:
// add shows the diff first, writes it with a backup, verifies the command
// with a handshake; the other server in the file is kept; undo restores it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing } from '../helpers/browser.ts';
import { tempDir } from '../helpers/paths.ts';

const skip = chromiumMissing();
let fx: UiFixture | undefined;
after(async () => {
  await fx?.close();
});

test('add Airlock to Cursor from the Clients screen: diff first, then written, verified, undone', { skip, timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const home = join(dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  const file = join(home, '.cursor', 'mcp.json');
  const original = '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp" }\n  }\n}\n';
  writeFileSync(file, original);
  fx = await startUiFixture([], 'e2e-clients', { HOME: home });
  const page = await signedInPage(fx.browser, fx.dataDir);
  await nav(page, 'Clients').click();
  const cursor = page.getByRole('region', { name: /^Cursor/ });
  await cursor.waitFor({ timeout: 20_000 });
  assert.match(await cursor.getByRole('heading').innerText(), /Not registered/);

  await cursor.getByRole('button', { name: 'Add Airlock to Cursor…' }).click();
  const diff = cursor.getByRole('group', { name: 'The change to Cursor' });
  await diff.waitFor();
  assert.match(await diff.getByLabel('Diff').innerText(), /\+\s+"airlock": \{/);
  assert.equal(readFileSync(file, 'utf8'), original, 'nothing written before Write it');

  await diff.getByRole('button', { name: 'Write it' }).click();
  await cursor
    .getByRole('status')
    .filter({ hasText: /✔ The command answers: search_docs, execute/ })
    .waitFor({ timeout: 60_000 });
  const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
  assert.deepEqual(written.mcpServers.github, { command: 'gh-mcp' });
  assert.deepEqual(written.mcpServers.airlock!.args.slice(-3), ['stdio', '--data-dir', fx.dataDir]);
  await cursor
    .getByRole('heading')
    .filter({ hasText: /✔ Registered/ })
    .waitFor();

  await cursor.getByRole('button', { name: 'Undo the last change to Cursor' }).click();
  await cursor
    .getByRole('status')
    .filter({ hasText: /back as it was before the last change/ })
    .waitFor();
  assert.equal(readFileSync(file, 'utf8'), original);
  assert.ok(await cursor.getByRole('button', { name: 'Copy the install link for Cursor' }).isVisible());
});
