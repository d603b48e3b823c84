// The Settings screen as a person uses it: each setting gets the control its
// declared type calls for (a number field with the table's limits and unit,
// a select of its choices, a switch), says whether it applies now or after a
// restart, refuses an out-of-range value with the setting, the value and the
// allowed range before anything is sent, and saves an allowed one. axe finds
// nothing serious; a screenshot is left in /tmp/settings.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing } from '../helpers/browser.ts';

const skip = chromiumMissing();
let fx: UiFixture;
let page: Page;
/** settings.update calls the page sent. */
const updates: unknown[] = [];

const saved = (): Record<string, unknown> => {
  const file = join(fx.dataDir, 'settings.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
};
const form = () => page.getByRole('form', { name: 'Settings' });
/** The text of the elements an element's aria-describedby names (what a screen reader says after its name). */
const description = async (id: string) => {
  const ids = ((await page.locator(`#${id}`).getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  return (await Promise.all(ids.map((d) => page.locator(`#${d}`).textContent()))).join(' ');
};
/** [value, label] of a select's options. */
const options = async (select: ReturnType<Page['getByLabel']>) =>
  Promise.all((await select.locator('option').all()).map(async (o) => [await o.getAttribute('value'), await o.textContent()]));

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'e2e-settings');
  page = await signedInPage(fx.browser, fx.dataDir);
  page.on('request', (r) => {
    if (r.url().endsWith('/rpc/settings.update')) updates.push(r.postDataJSON());
  });
  await nav(page, 'Settings').click();
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await form().waitFor();
});

after(async () => {
  await fx?.close();
});

test('a numeric setting is a number field with the limits, step and unit the table declares', { skip, timeout: 60_000 }, async () => {
  const timeout = form().getByLabel('Timeout per run');
  assert.equal(await timeout.getAttribute('type'), 'number');
  assert.deepEqual(await Promise.all(['min', 'max', 'step'].map((a) => timeout.getAttribute(a))), ['100', '600000', '1']);
  assert.equal(await timeout.inputValue(), '5000');
  const row = form()
    .locator('.setting')
    .filter({ has: page.locator('#setting-timeoutMs') });
  assert.equal(await row.locator('.unit').innerText(), 'ms');
  assert.equal(await row.locator('.equivalent').innerText(), '= 5 s');
  const said = await description('setting-timeoutMs');
  assert.match(said, /Applies now/);
  assert.match(said, /Allowed: 100–600000 ms/);

  const port = form().getByLabel('Port', { exact: true });
  assert.deepEqual(await Promise.all(['type', 'min', 'max'].map((a) => port.getAttribute(a))), ['number', '0', '65535']);
  assert.match(await description('setting-port'), /Applies after restart/);
  const memory = form().getByLabel('Memory per run');
  assert.deepEqual(await Promise.all(['min', 'max'].map((a) => memory.getAttribute(a))), ['16', '8192']);
});

test('a choice setting is a select with its declared choices; a switch is a switch', { skip, timeout: 60_000 }, async () => {
  const level = form().getByLabel('Log level');
  assert.equal(await level.evaluate((el) => el.tagName), 'SELECT');
  assert.deepEqual(await options(level), [
    ['debug', 'Debug'],
    ['info', 'Info'],
    ['warn', 'Warnings'],
    ['error', 'Errors only'],
  ]);
  assert.equal(await level.inputValue(), 'info');
  const theme = form().getByRole('combobox', { name: 'Theme' });
  assert.deepEqual(
    (await options(theme)).map(([value]) => value),
    ['system', 'light', 'dark'],
  );

  const kill = form().getByRole('switch', { name: 'Kill switch' });
  assert.equal(await kill.getAttribute('aria-checked'), 'false');
  assert.match(await description('setting-killSwitch'), /Applies now/);
  // A start-up-only setting shows its value but cannot be changed here.
  const host = form().getByLabel('Bind address');
  assert.equal(await host.inputValue(), '127.0.0.1');
  assert.equal(await host.isEditable(), false);
  assert.match(await description('setting-host'), /Start-up only.*Set only at start, with --host or AIRLOCK_HOST/s);
});

test('an out-of-range value is refused with the setting, the value and the allowed range, and nothing is saved', { skip, timeout: 60_000 }, async () => {
  const timeout = form().getByLabel('Timeout per run');
  await timeout.fill('50');
  await form().getByRole('button', { name: 'Save Timeout per run' }).click();
  const error = form().locator('#setting-timeoutMs-error');
  assert.equal(await error.innerText(), 'Timeout per run: 50 is out of range (expected 100–600000 ms).');
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.equal(await timeout.getAttribute('aria-invalid'), 'true');
  assert.match(await description('setting-timeoutMs'), /50 is out of range/);
  // Enter refuses it the same way.
  await timeout.fill('600001');
  await timeout.press('Enter');
  await form().getByText('Timeout per run: 600001 is out of range (expected 100–600000 ms).').waitFor();
  assert.deepEqual(updates, [], 'nothing was sent');
  assert.equal(saved().timeoutMs, undefined, 'nothing was saved');

  // Typing an allowed value clears the refusal; saving it applies it at once.
  await timeout.fill('6000');
  assert.equal(await error.count(), 0);
  assert.equal(await timeout.getAttribute('aria-invalid'), null);
  await form().getByRole('button', { name: 'Save Timeout per run' }).click();
  await form().getByRole('status').filter({ hasText: 'timeoutMs saved and applied: Timeout per run is now 6000 ms (6 s).' }).waitFor({ timeout: 10_000 });
  assert.deepEqual(updates, [{ values: { timeoutMs: 6000 } }]);
  assert.equal(saved().timeoutMs, 6000);
});

test('a choice is saved from its select and the screen says it applies after a restart', { skip, timeout: 60_000 }, async () => {
  await form().getByLabel('Log level').selectOption('debug');
  await form().getByRole('button', { name: 'Save Log level' }).click();
  await form().getByRole('status').filter({ hasText: 'logLevel saved: Log level becomes Debug after a restart.' }).waitFor({ timeout: 10_000 });
  assert.equal(saved().logLevel, 'debug');
  // After a reload the screen still shows the saved value as waiting for the restart.
  await page.reload();
  await form().waitFor();
  assert.equal(await form().getByLabel('Log level').inputValue(), 'debug');
  assert.match(await description('setting-logLevel'), /Saved as Debug, which applies after a restart \(running with Info\)/);
  assert.equal(await form().getByRole('button', { name: 'Save Log level' }).isDisabled(), true);
  assert.match(await description('setting-timeoutMs'), /Saved in settings\.json/);
});

test('no axe violation on the Settings screen, and a screenshot of it', { skip, timeout: 120_000 }, async () => {
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  // An error on screen too, so its markup is checked.
  await form().getByLabel('Queue size').fill('-1');
  await form().getByRole('button', { name: 'Save Queue size' }).click();
  await form().locator('#setting-queueSize-error').waitFor();
  const results = await new AxeBuilder({ page }).analyze();
  const problems = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  await page.screenshot({ path: '/tmp/settings.png', fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await new AxeBuilder({ page }).analyze();
  await page.screenshot({ path: '/tmp/settings-dark.png', fullPage: false });
  await page.emulateMedia({ colorScheme: 'light' });
  problems.push(
    ...dark.violations.map(
      (v) =>
        `dark: ${v.id} (${v.impact}): ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    ),
  );
  assert.deepEqual(problems, []);
});
