// Another MCP server's question, as a person answers it in the web UI (issue
// 38 §5): a script calls the small 2026-07-28 server's `ask` tool, which
// asks where (a city, a whole number of days, yes/no with a default); the
// question appears as the approval prompt with the server's words and a
// form. By keyboard only: Deny ("Decline") has the focus, Tab reaches the
// fields, what is typed stays while the countdown runs, an answer that does
// not fit is named (nothing sent), Ctrl+Enter sends it and the server gets
// exactly that. Declined, the server is told so. No axe violation, light or
// dark (AIRLOCK_SCREENSHOTS=<dir> keeps a screenshot of each).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { approvalDialog, axeLightAndDark, chromiumMissing, launchBrowser, signedInPage } from '../helpers/browser.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { runCliToEnd, serve, type Served } from '../helpers/processes.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';
import { controlClient, waitForServer } from '../helpers/control.ts';

const skip = chromiumMissing();
const MODERN_SERVER = join(ROOT, 'test', 'fixtures', 'upstream', 'modernServer.ts');
let dataDir: string;
let cleanup: () => void;
let server: Served;
let client: Client;
let browser: Browser;
let page: Page;

/** The `servers` subcommands that may reach the key store take --secret-store (none is on a test machine). */
const cli = async (args: string[]) => {
  const store = ['add', 'accept'].includes(args[1]!) ? ['--secret-store', 'file'] : [];
  // Before any `--`: what follows it is the server's own command line.
  const r = await runCliToEnd([...args.slice(0, 2), '--data-dir', dataDir, ...store, ...args.slice(2)], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
};
const ask = () => execute(client, 'return (await mcp.modern.ask({})).data');

before(async () => {
  if (skip) return;
  ({ dir: dataDir, cleanup } = tempDir('airlock-question-'));
  server = await serve(dataDir, ['--ui', '--secret-store', 'file']);
  await cli(['servers', 'add', 'modern', '--', process.execPath, MODERN_SERVER]);
  await waitForServer(controlClient(dataDir, server.url), 'modern', () => true);
  await cli(['servers', 'accept', 'modern', '--yes']);
  await cli(['servers', 'policy', 'modern', 'allow']);
  client = await httpClient(server.mcpUrl, server.token, 'question-client');
  browser = await launchBrowser();
  page = await signedInPage(browser, dataDir);
});

after(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
  cleanup?.();
});

test("the server's question is the prompt: its words, a form by keyboard, a wrong answer named, Ctrl+Enter sends it", { skip, timeout: 90_000 }, async () => {
  const run = ask();
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  const text = await dialog.innerText();
  assert.match(text, /Which city should the forecast be for\?/);
  assert.match(text, /MCP server, asking you while its tool ask runs/);
  assert.match(text, /No answer = decline in/);
  assert.doesNotMatch(text, /What “Allow” covers/, 'nothing is granted: no scope chooser');
  // The focus lands on Decline; Tab goes on to the form's fields.
  await page.locator('[role="alertdialog"][data-armed="true"] button:focus', { hasText: /^Decline$/ }).waitFor({ timeout: 10_000 });
  const city = dialog.getByLabel(/^city/);
  await city.focus();
  await page.keyboard.type('Lyon');
  // Enter in a field sends nothing.
  await page.keyboard.press('Enter');
  // Ctrl+Enter with a required field empty: named, and nothing sent.
  await page.keyboard.press('Control+Enter');
  await dialog.getByRole('alert').filter({ hasText: '"days" needs an answer' }).waitFor();
  assert.equal(await dialog.getByLabel(/^days/).getAttribute('aria-required'), 'true');
  await page.keyboard.press('Tab');
  await page.keyboard.type('3');
  // What was typed is still there after the countdown moved on.
  const shown = await dialog.getByText(/No answer = decline in/).innerText();
  await dialog
    .getByText(/No answer = decline in/)
    .filter({ hasNotText: shown })
    .waitFor();
  assert.equal(await city.inputValue(), 'Lyon');
  assert.equal(await dialog.getByLabel(/In degrees Celsius|^metric/).isChecked(), true, "the server's default");
  const problems = await axeLightAndDark(page, (scheme) =>
    page.screenshot({ path: join(process.env.AIRLOCK_SCREENSHOTS ?? dataDir, `question-${scheme}.png`), fullPage: true }),
  );
  assert.deepEqual(problems, []);
  await page.keyboard.press('Control+Enter');
  assert.equal((await run).text, 'city=Lyon days=3 metric=true');
  await dialog.waitFor({ state: 'detached' });
});

test('Decline: the server is told the person said no', { skip, timeout: 60_000 }, async () => {
  const run = ask();
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  await page.locator('[role="alertdialog"][data-armed="true"]').waitFor();
  await dialog.getByRole('button', { name: 'Decline' }).click();
  assert.equal((await run).text, 'declined (decline)');
});
