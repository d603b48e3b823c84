// The Clients screen with a temporary home holding a Cursor configuration:
// undo is disabled while there is nothing to undo; add shows the diff first
// (added lines coloured, in light and dark), writes it with a backup,
// verifies the command with a handshake; the other server in the file is
// kept; undo restores it and is disabled again. axe in light and dark.
// Then the APIs it reaches, with the keyboard alone: "Every API served" is
// the default (no scope); unchecking it and checking demo writes
// `--api demo` (the diff follows each choice); the registration then shows
// its scope, and changing it back to every API shows the diff that drops it.
// HTTP clients' own tokens: made with the keyboard, shown once, used by an MCP
// client, revoked (its next request refused).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axeLightAndDark } from '../helpers/browser.ts';
import { tempDir } from '../helpers/paths.ts';
import { httpClient } from '../helpers/mcpClients.ts';

const skip = chromiumMissing();
/** The background colour of a diff line, and of the diff itself. */
const colours = (diff: Locator, kind: string) =>
  diff.evaluate((pre, k) => {
    const view = pre.ownerDocument.defaultView!;
    return { line: view.getComputedStyle(pre.querySelector(`.diff-line.${k}`)!).backgroundColor, pre: view.getComputedStyle(pre).backgroundColor };
  }, kind);
const axeProblems = (page: Page) => axeLightAndDark(page, (scheme) => page.screenshot({ path: `/tmp/clients-${scheme}.png` }));
let fx: UiFixture;
let home: string;
const homeDir = tempDir();
before(async () => {
  if (skip) return;
  home = join(homeDir.dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  fx = await startUiFixture([], 'e2e-clients', { HOME: home });
});
after(async () => {
  await fx?.close();
  homeDir.cleanup();
});

test('add Airlock to Cursor from the Clients screen: diff first, then written, verified, undone', { skip, timeout: 120_000 }, async () => {
  const file = join(home, '.cursor', 'mcp.json');
  // The other server in the file has a value written inline: the diff shows its line, never its value (issue 39 §12).
  const original = '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp", "env": { "API_TOKEN": "sekrit-123" } }\n  }\n}\n';
  writeFileSync(file, original);
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
  assert.match(await view.innerText(), /"API_TOKEN"/, 'the line of the inline value is in the diff');
  assert.doesNotMatch(await view.innerText(), /sekrit-123/, 'its value is not');
  // Added lines are coloured (the + stays in the text), in both themes.
  assert.match(await view.locator('.diff-line.add').first().innerText(), /^\+/);
  const light = await colours(view, 'add');
  assert.notEqual(light.line, light.pre);
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await colours(view, 'add');
  assert.notEqual(dark.line, dark.pre);
  assert.notEqual(dark.line, light.line);
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(await axeProblems(page), []);
  assert.equal(readFileSync(file, 'utf8'), original, 'nothing written before Write it');

  await diff.getByRole('button', { name: 'Write it' }).click();
  await cursor
    .getByRole('status')
    .filter({ hasText: /✔ The command answers: search_docs, execute/ })
    .waitFor({ timeout: 60_000 });
  const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
  assert.deepEqual(written.mcpServers.github, { command: 'gh-mcp', env: { API_TOKEN: 'sekrit-123' } });
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

  // The APIs Cursor reaches, keyboard only: the picker opens on "Every API served" (the default: no scope).
  await cursor.getByRole('button', { name: 'Add Airlock to Cursor…' }).focus();
  await page.keyboard.press('Enter');
  const picker = cursor.getByRole('group', { name: 'The APIs Cursor reaches' });
  await picker.waitFor();
  const every = picker.getByRole('checkbox', { name: 'Every API served' });
  const demo = picker.getByRole('checkbox', { name: 'demo', exact: true });
  const openagenda = picker.getByRole('checkbox', { name: 'openagenda', exact: true });
  // A locator, not waitForFunction: the page's CSP (script-src 'self') refuses the string a polled predicate is evaluated from.
  await page.locator('input[type="checkbox"]:focus').waitFor({ timeout: 10_000 });
  assert.equal(await every.evaluate((el) => el === el.ownerDocument.activeElement), true, 'the keyboard lands on the choice');
  assert.deepEqual([await every.isChecked(), await demo.isChecked(), await openagenda.isChecked()], [true, true, true]);
  assert.match((await openagenda.getAttribute('aria-describedby')) ?? '', /\S/);
  assert.match(await picker.innerText(), /openagenda\s+disabled/);
  const write = diff.getByRole('button', { name: 'Write it' });
  await diff.getByLabel(/^Diff: /).waitFor();
  assert.doesNotMatch(await diff.getByLabel(/^Diff: /).innerText(), /--api/, 'every API: no scope in the entry');

  await page.keyboard.press('Space'); // Every API served: off, nothing picked yet
  await diff.getByRole('status').filter({ hasText: 'Check at least one API' }).waitFor();
  assert.equal(await write.isDisabled(), true, 'nothing to write without an API');
  await page.keyboard.press('Tab');
  assert.equal(await demo.evaluate((el) => el === el.ownerDocument.activeElement), true);
  await page.keyboard.press('Space'); // demo alone
  const scoped = diff.getByLabel(/^Diff: /);
  await scoped.filter({ hasText: /"--api",\s+\+?\s*"demo"/ }).waitFor({ timeout: 15_000 });
  assert.deepEqual([await every.isChecked(), await demo.isChecked(), await openagenda.isChecked()], [false, true, false]);
  await write.waitFor({ state: 'visible' });
  await diff.locator('button:enabled', { hasText: 'Write it' }).waitFor({ timeout: 15_000 });
  assert.deepEqual(await axeProblems(page), [], 'the picker is axe clean, light and dark');
  await page.screenshot({ path: '/tmp/clients-picker.png', fullPage: true });
  // On to Write it with Tab alone (past openagenda and the diff).
  for (let i = 0; i < 6 && !(await write.evaluate((el) => el === el.ownerDocument.activeElement)); i++) await page.keyboard.press('Tab');
  assert.equal(await write.evaluate((el) => el === el.ownerDocument.activeElement), true, 'Write it is reached with Tab');
  await page.keyboard.press('Enter');
  await cursor
    .getByRole('status')
    .filter({ hasText: /Cursor reaches only demo\./ })
    .waitFor({ timeout: 60_000 });
  await cursor
    .getByRole('status')
    .filter({ hasText: /✔ The command answers/ })
    .waitFor();
  const scopedEntry = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args: string[] }> }).mcpServers.airlock!;
  assert.deepEqual(scopedEntry.args.slice(-5), ['stdio', '--data-dir', fx.dataDir, '--api', 'demo']);
  await cursor
    .getByRole('heading')
    .filter({ hasText: /✔ Registered/ })
    .waitFor();
  assert.match(await cursor.locator('dl').innerText(), /APIs\s+only demo/);

  // A registered client: its scope can be changed; back to every API drops `--api` (the diff says so).
  await cursor.getByRole('button', { name: 'Change the APIs Cursor reaches…' }).click();
  await picker.waitFor();
  assert.deepEqual([await every.isChecked(), await demo.isChecked()], [false, true], 'the picker starts from the registration');
  await diff.getByRole('status').filter({ hasText: 'No change: Cursor already reaches only demo.' }).waitFor();
  assert.equal(await write.isDisabled(), true);
  await every.focus();
  await page.keyboard.press('Space');
  await diff
    .getByLabel(/^Diff: /)
    .filter({ hasText: /-\s+"--api"/ })
    .waitFor({ timeout: 15_000 });
  await diff.getByRole('button', { name: 'Cancel' }).click();
  await picker.waitFor({ state: 'detached' });
  assert.deepEqual(
    (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args: string[] }> }).mcpServers.airlock!.args.slice(-2),
    ['--api', 'demo'],
    'cancelled: nothing written',
  );
});

test(
  "an HTTP client's own token, from the keyboard: shown once, it reaches what it was made for; revoked, its next request is refused",
  { skip, timeout: 90_000 },
  async () => {
    const page = await signedInPage(fx.browser, fx.dataDir);
    await nav(page, 'Clients').click();
    const section = page.getByRole('region', { name: "HTTP clients' own tokens" });
    await section.getByText('No client has a token of its own').waitFor({ timeout: 20_000 });
    const focused = (l: Locator) => l.evaluate((el) => el === el.ownerDocument.activeElement);
    await section.getByRole('button', { name: 'New client token…' }).focus();
    await page.keyboard.press('Enter');
    const form = section.getByRole('form', { name: 'New client token' });
    const name = form.getByLabel('Client name');
    await name.waitFor();
    assert.equal(await focused(name), true, 'the keyboard lands on the name');
    await page.keyboard.type('ci bot/1');
    await page.keyboard.press('Enter');
    await form
      .getByRole('alert')
      .filter({ hasText: /client name "ci bot\/1": use 1 to 100 letters/ })
      .waitFor();
    assert.equal(await name.inputValue(), 'ci bot/1', 'what was typed is kept');
    assert.deepEqual(await axeProblems(page), [], 'the form with its refusal is axe clean, light and dark');
    await name.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('ci-bot');
    // demo alone: Every API served off, demo on, then on to the button with Tab.
    const every = form.getByRole('checkbox', { name: 'Every API served' });
    for (let i = 0; i < 4 && !(await focused(every)); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    assert.equal(await focused(form.getByRole('checkbox', { name: 'demo', exact: true })), true);
    await page.keyboard.press('Space');
    const make = form.getByRole('button', { name: 'Make the token' });
    for (let i = 0; i < 4 && !(await focused(make)); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');

    const made = section.getByRole('status').filter({ hasText: /Token for ci-bot/ });
    await made.waitFor();
    assert.match(await made.innerText(), /reaching only demo\. It is shown this once/);
    const token = (await made.locator('.client-token-value').innerText()).trim();
    assert.match(token, /^alc_[\w-]{43}$/);
    const row = section.getByRole('row', { name: /ci-bot/ });
    assert.match(await row.innerText(), /sha256:[0-9a-f]{12}\s+only demo/);
    assert.doesNotMatch(await row.innerText(), new RegExp(token), 'the list never shows the token');
    assert.deepEqual(await axeProblems(page), [], 'the token shown and the list are axe clean, light and dark');

    // The client uses it on the plain /mcp URL: the token brings its scope (demo).
    const client = await httpClient(`${new URL(fx.server.mcpUrl).origin}/mcp`, token, 'ci-bot');
    try {
      const found = (await client.callTool({ name: 'search_docs', arguments: { query: 'list events' } })) as { content: { text: string }[]; isError?: boolean };
      assert.notEqual(found.isError, true, found.content[0]?.text);
      await section.getByRole('button', { name: 'Done: hide the token' }).click();
      await made.waitFor({ state: 'detached' });
      assert.equal((await page.content()).includes(token), false, 'hidden, the token is nowhere in the page');

      await row.getByRole('button', { name: 'Revoke the token of ci-bot…' }).focus();
      await page.keyboard.press('Enter');
      const confirm = row.getByRole('button', { name: 'Revoke ci-bot' });
      await confirm.waitFor();
      assert.equal(await focused(confirm), true, 'the keyboard is on the confirmation');
      await page.keyboard.press('Enter');
      await section.getByRole('status').filter({ hasText: 'Revoked the token of ci-bot: its next request is refused.' }).waitFor();
      await row.waitFor({ state: 'detached' });
      await page.locator('button:focus', { hasText: 'New client token…' }).waitFor({ timeout: 10_000 });
      const refused = await fetch(`${new URL(fx.server.mcpUrl).origin}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      assert.equal(refused.status, 401);
      await assert.rejects(client.listTools(), 'the session it opened goes with it');
    } finally {
      await client.close();
    }
    await page.context().close();
  },
);
