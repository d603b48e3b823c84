// The page the desktop app's small prompt window shows (#/prompt): the held
// call alone, with the same guard time and decisions as the app; once it is
// answered, the page says nothing waits. (The window itself — always on top,
// shown without taking the focus — is tested against a fake electron in
// test/unit/electronShell.test.ts and with the real binary in test/electron.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, approvalDialog, chromiumMissing } from '../helpers/browser.ts';

const skip = chromiumMissing();
let browser: Browser;
let client: Client;
let dataDir: string;
let fx: UiFixture;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'prompt-client');
  ({ browser, client, dataDir } = fx);
});

after(async () => {
  await fx?.close();
});

test('the prompt-only page shows the held call, and a Deny there reaches the code', { skip, timeout: 60_000 }, async () => {
  const page = await signedInPage(browser, dataDir);
  await page.evaluate("location.hash = '#/prompt'; location.reload()");
  await page.getByRole('status').filter({ hasText: 'Nothing waits for you' }).waitFor({ timeout: 10_000 });
  assert.equal(await page.getByRole('navigation').count(), 0, 'the prompt alone, no navigation');
  const run = execute(client, `const r = await api.events.delete({ path: { eventId: 'evt_missing' } }); return r.error?.code ?? 'sent';`);
  const dialog = approvalDialog(page);
  await dialog.waitFor({ timeout: 10_000 });
  assert.match(await page.title(), /^Action required — Airlock/);
  await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
  await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
  assert.equal((await run).text, 'airlock_mutation_denied');
  await page.getByRole('status').filter({ hasText: 'Nothing waits for you' }).waitFor({ timeout: 10_000 });
  await page.context().close();
});
