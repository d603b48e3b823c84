// The Clients screen with a temporary home holding a Cursor configuration:
// undo is disabled while there is nothing to undo; add shows the diff first
// (added lines coloured, in light and dark), writes it with a backup,
// verifies the command with a handshake; the other server in the file is
// kept; undo restores it and is disabled again. axe in light and dark.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing } from '../helpers/browser.ts';
import { tempDir } from '../helpers/paths.ts';

const skip = chromiumMissing();
/** The background colour of a diff line, and of the diff itself. */
const colours = (diff: Locator, kind: string) =>
  diff.evaluate((pre, k) => {
    const view = pre.ownerDocument.defaultView!;
    return { line: view.getComputedStyle(pre.querySelector(`.diff-line.${k}`)!).backgroundColor, pre: view.getComputedStyle(pre).backgroundColor };
  }, kind);
async function axe(page: Page): Promise<string[]> {
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page }).analyze();
    problems.push(...results.violations.map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    await page.screenshot({ path: `/tmp/clients-${scheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}
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
  const undo = cursor.getByRole('button', { name: 'Undo the last change to Cursor' });
  assert.equal(await undo.isDisabled(), true, 'nothing to undo yet');
  assert.match(await cursor.innerText(), /Nothing to undo: Airlock has not changed this file/);

  await cursor.getByRole('button', { name: 'Add Airlock to Cursor…' }).click();
  const diff = cursor.getByRole('group', { name: 'The change to Cursor' });
  await diff.waitFor();
  const view = diff.getByLabel(/^Diff: \d+ lines? added, \d+ removed$/);
  assert.match(await view.innerText(), /\+\s+"airlock": \{/);
  // Added lines are coloured (the + stays in the text), in both themes.
  assert.match(await view.locator('.diff-line.add').first().innerText(), /^\+/);
  const light = await colours(view, 'add');
  assert.notEqual(light.line, light.pre);
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours(view, 'add');
  assert.notEqual(dark.line, dark.pre);
  assert.notEqual(dark.line, light.line);
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(await axe(page), []);
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

  assert.equal(await undo.isDisabled(), false, 'the change can be undone');
  assert.match(await cursor.innerText(), /Last change by Airlock: today at/);
  await undo.click();
  await cursor
    .getByRole('status')
    .filter({ hasText: /back as it was before the last change/ })
    .waitFor();
  assert.equal(readFileSync(file, 'utf8'), original);
  await cursor.getByText('Nothing to undo').waitFor();
  assert.equal(await undo.isDisabled(), true, 'nothing left to undo');
  assert.ok(await cursor.getByRole('button', { name: 'Copy the install link for Cursor' }).isVisible());
});
