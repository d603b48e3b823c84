// The Settings screen as a person uses it: settings grouped, each with the
// control its declared type calls for (a number field with the table's limits
// and unit, radio buttons for a few choices and a select for more, a switch),
// saying whether it applies now or after a restart. Changes are drafts until
// the one Save bar saves them together; a refused value is shown next to its
// field and nothing is saved; messages name settings by label, never by key.
// The theme applies at once, the caps apply to the next run, and the kill
// switch is not in this form (it has one home, in the app shell, whose nav
// stays in view down the whole screen, at 900×700 too). axe finds
// nothing serious in light or dark; screenshots go to /tmp/settings*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axe } from '../helpers/browser.ts';

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
const bar = () => form().getByRole('group', { name: 'Save settings' });
const saveButton = () => bar().getByRole('button', { name: 'Save changes' });
/** The text of the elements an element's aria-describedby names (what a screen reader says after its name). */
const description = async (id: string) => {
  const ids = ((await page.locator(`#${id}`).getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  return (await Promise.all(ids.map((d) => page.locator(`#${d}`).textContent()))).join(' ');
};
/** [value, label] of a select's options. */
const options = async (select: ReturnType<Page['getByLabel']>) =>
  Promise.all((await select.locator('option').all()).map(async (o) => [await o.getAttribute('value'), await o.textContent()]));
/** Every internal key of the table, to check no message shows one. */
let keys: string[] = [];
const noKeyIn = (text: string) => {
  const found = keys.filter((k) => k.length > 4 && /[A-Z]/.test(k) && text.includes(k));
  assert.deepEqual(found, [], `internal key names in: ${text}`);
};
/** The theme attribute and the page's background colour (as the browser computes it). */
const theme = () =>
  page.locator('html').evaluate((el) => ({ attr: el.getAttribute('data-theme'), bg: el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor }));

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'e2e-settings');
  page = await signedInPage(fx.browser, fx.dataDir);
  page.on('request', (r) => {
    if (r.url().endsWith('/rpc/settings.update')) updates.push(r.postDataJSON());
  });
  const metaResponse = page.waitForResponse((r) => r.url().endsWith('/rpc/settings.get'));
  await nav(page, 'Settings').click();
  const body = (await (await metaResponse).json()) as { meta?: { key: string }[]; result?: { meta: { key: string }[] } };
  keys = (body.meta ?? body.result?.meta ?? []).map((m) => m.key);
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await form().waitFor();
});

after(async () => {
  await fx?.close();
});

test('settings are grouped; a number field has the limits, step and unit the table declares', { skip, timeout: 60_000 }, async () => {
  assert.ok(keys.includes('timeoutMs'), 'the table was read');
  const groups = await form().locator('fieldset > legend').allInnerTexts();
  assert.deepEqual(
    groups,
    ['General', 'Server and desktop app', 'Sandbox and limits', 'Safety and records', 'Output'].filter((g) => groups.includes(g)),
  );
  assert.ok(groups.length >= 4);
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
  // No literal backtick in any description: `code` is shown as code.
  assert.ok(!(await form().innerText()).includes('`'));
});

test('a few choices are radio buttons, more are a select; on/off is a switch; the kill switch is not here', { skip, timeout: 60_000 }, async () => {
  const level = form().getByLabel('Log level');
  assert.equal(await level.evaluate((el) => el.tagName), 'SELECT');
  assert.deepEqual(await options(level), [
    ['debug', 'Debug'],
    ['info', 'Info'],
    ['warn', 'Warnings'],
    ['error', 'Errors only'],
  ]);
  assert.equal(await level.inputValue(), 'info');
  const themes = form().getByRole('radiogroup', { name: 'Theme' });
  assert.deepEqual(await Promise.all((await themes.getByRole('radio').all()).map((r) => r.getAttribute('value'))), ['system', 'light', 'dark']);
  assert.equal(await themes.getByRole('radio', { name: 'System (follow the OS)' }).isChecked(), true);

  const update = form().getByRole('switch', { name: 'Automatic updates' });
  assert.equal(await update.getAttribute('aria-checked'), 'false');
  assert.equal(
    await form()
      .getByRole('switch', { name: /Kill switch/ })
      .count(),
    0,
    'the kill switch has one home, not this form',
  );
  assert.equal(await page.locator('#setting-killSwitch').count(), 0);
  // A start-up-only setting shows its value but cannot be changed here.
  const host = form().getByLabel('Bind address');
  assert.equal(await host.inputValue(), '127.0.0.1');
  assert.equal(await host.isEditable(), false);
  assert.match(await description('setting-host'), /Start-up only.*Set only at start, with --host or AIRLOCK_HOST/s);
  assert.equal(await saveButton().isDisabled(), true, 'nothing to save yet');
  assert.equal(await bar().locator('.save-summary').innerText(), 'No unsaved changes.');
});

test('a refused value is shown next to its field, the Save bar says nothing was saved, and nothing is sent', { skip, timeout: 60_000 }, async () => {
  const timeout = form().getByLabel('Timeout per run');
  await timeout.fill('50');
  assert.equal(await bar().locator('.save-summary').innerText(), '1 unsaved change: Timeout per run.');
  await saveButton().click();
  const error = form().locator('#setting-timeoutMs-error');
  assert.equal(await error.innerText(), 'Timeout per run: 50 is out of range (expected 100–600000 ms).');
  assert.equal(await timeout.getAttribute('aria-invalid'), 'true');
  assert.match(await description('setting-timeoutMs'), /50 is out of range/);
  const alert = bar().getByRole('alert');
  assert.equal(await alert.innerText(), 'Nothing was saved: one value is not allowed (Timeout per run).');
  assert.equal(await timeout.evaluate((el) => el.matches(':focus')), true, 'the refused field has the focus');
  // Enter in the field saves the form: refused the same way.
  await timeout.fill('600001');
  await timeout.press('Enter');
  await form().getByText('Timeout per run: 600001 is out of range (expected 100–600000 ms).').waitFor();
  assert.deepEqual(updates, [], 'nothing was sent');
  assert.equal(saved().timeoutMs, undefined, 'nothing was saved');

  // Typing an allowed value clears the refusal; saving it (with Enter) applies it at once.
  await timeout.fill('6000');
  assert.equal(await error.count(), 0);
  assert.equal(await timeout.getAttribute('aria-invalid'), null);
  await timeout.press('Enter');
  const status = bar().getByRole('status');
  await status.filter({ hasText: 'Saved. In effect now: Timeout per run is 6000 ms (6 s).' }).waitFor({ timeout: 10_000 });
  noKeyIn(await status.innerText());
  assert.deepEqual(updates, [{ values: { timeoutMs: 6000 } }]);
  assert.equal(saved().timeoutMs, 6000);
  assert.equal(await bar().locator('.save-summary').innerText(), 'No unsaved changes.');
});

test('several changes are saved together by the one Save bar; Discard drops changes', { skip, timeout: 60_000 }, async () => {
  updates.length = 0;
  await form().getByLabel('Queue size').fill('7');
  await form().getByLabel('Log level').selectOption('debug');
  assert.equal(await bar().locator('.save-summary').innerText(), '2 unsaved changes: Log level and Queue size.');
  assert.equal(await form().locator('.setting.changed').count(), 2);
  await saveButton().click();
  const status = bar().getByRole('status');
  await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 10_000 });
  const text = await status.innerText();
  assert.match(text, /In effect now: Queue size is 7/);
  assert.match(text, /after a restart: Log level is Debug/);
  noKeyIn(text);
  assert.deepEqual(updates, [{ values: { logLevel: 'debug', queueSize: 7 } }], 'one request');
  assert.equal(saved().logLevel, 'debug');
  assert.equal(saved().queueSize, 7);

  // Discard puts the controls back to what is saved.
  await form().getByLabel('Queue size').fill('9');
  await bar().getByRole('button', { name: 'Discard changes' }).click();
  assert.equal(await form().getByLabel('Queue size').inputValue(), '7');
  assert.equal(await saveButton().isDisabled(), true);

  // After a reload the screen still shows the saved value as waiting for the restart.
  await page.reload();
  await form().waitFor();
  assert.equal(await form().getByLabel('Log level').inputValue(), 'debug');
  assert.match(await description('setting-logLevel'), /Saved as Debug, which applies after a restart \(running with Info\)/);
  assert.match(await description('setting-timeoutMs'), /Saved in settings\.json/);
});

test('the theme applies at once, with the keyboard only, and no restart', { skip, timeout: 60_000 }, async () => {
  const before = await theme();
  assert.equal(before.attr, null, 'system: follows the OS (light here)');
  const themes = form().getByRole('radiogroup', { name: 'Theme' });
  await themes.getByRole('radio', { name: 'System (follow the OS)' }).focus();
  // Arrow keys move through the radios: System → Light → Dark.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await themes.getByRole('radio', { name: 'Dark' }).isChecked(), true);
  await page.keyboard.press('Enter');
  await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached', timeout: 10_000 });
  const dark = await theme();
  assert.notEqual(dark.bg, before.bg, 'the page is dark now');
  assert.equal(saved().theme, 'dark');
  await page.screenshot({ path: '/tmp/settings-theme-dark.png' });
  // Back to following the OS.
  await themes.getByRole('radio', { name: 'System (follow the OS)' }).check();
  await saveButton().click();
  await page.locator('html:not([data-theme])').waitFor({ state: 'attached', timeout: 10_000 });
  assert.equal((await theme()).bg, before.bg);
});

test('a cap saved here applies to the next run', { skip, timeout: 60_000 }, async () => {
  await form().getByLabel('Timeout per run').fill('400');
  await saveButton().click();
  await bar().getByRole('status').filter({ hasText: 'In effect now: Timeout per run is 400 ms' }).waitFor({ timeout: 10_000 });
  assert.match((await execute(fx.client, 'while (true) {}')).text, /timed out after 400 ms/);
});

/** Waits until the page's scrollY is `y` (±1 px), for up to 5 s (the page's CSP refuses waitForFunction's polling). */
async function scrolledTo(p: Page, y: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  let now = (await p.evaluate('scrollY')) as number;
  while (Math.abs(now - y) > 1) {
    if (Date.now() > deadline) assert.fail(`scrollY is ${now}, not ${y}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = (await p.evaluate('scrollY')) as number;
  }
}

/** A second page, 900×700, on Settings scrolled down by `y` (Settings is longer than the window). */
async function narrowSettingsScrolled(y: number): Promise<Page> {
  const narrow = await signedInPage(fx.browser, fx.dataDir, { viewport: { width: 900, height: 700 } });
  await nav(narrow, 'Settings').click();
  await narrow.getByRole('form', { name: 'Settings' }).waitFor();
  await narrow.evaluate(`scrollTo(0, ${y})`);
  await scrolledTo(narrow, Math.min(y, (await narrow.evaluate('document.documentElement.scrollHeight - innerHeight')) as number));
  return narrow;
}

/** Whether an element is wholly inside the viewport, as the page is scrolled now. */
async function inView(p: Page, locator: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await locator.boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= p.viewportSize()!.height;
}

test(
  'the nav stays in view on a long screen (900×700): the Kill switch and Approvals, scrolled to the bottom of Settings',
  { skip, timeout: 60_000 },
  async () => {
    const narrow = await narrowSettingsScrolled(100_000);
    try {
      assert.ok(((await narrow.evaluate('scrollY')) as number) > 300, 'Settings scrolls');
      const navigation = narrow.getByRole('navigation', { name: 'Airlock' });
      assert.ok(await inView(narrow, navigation.getByRole('button', { name: 'Kill switch' })), 'the Kill switch is in view');
      assert.ok(await inView(narrow, nav(narrow, 'Approvals')), 'Approvals is in view');
      assert.ok(await inView(narrow, nav(narrow, 'Overview')), 'the first link is in view');
    } finally {
      await narrow.context().close();
    }
  },
);

test('a new screen opens at the top; Back returns to where Settings was scrolled (900×700)', { skip, timeout: 60_000 }, async () => {
  const narrow = await narrowSettingsScrolled(600);
  try {
    await nav(narrow, 'Overview').click();
    await narrow.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    assert.equal(await narrow.evaluate('scrollY'), 0, 'Overview opens at the top');
    await nav(narrow, 'Rules').click();
    await narrow.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
    assert.equal(await narrow.evaluate('scrollY'), 0, 'Rules opens at the top');
    await narrow.goBack();
    await narrow.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await narrow.goBack();
    await narrow.getByRole('form', { name: 'Settings' }).waitFor();
    await scrolledTo(narrow, 600);
    // Forward is a return too: Overview where it was (at the top).
    await narrow.goForward();
    await narrow.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await scrolledTo(narrow, 0);
  } finally {
    await narrow.context().close();
  }
});

test('"Skip to content" moves the focus to the screen it is on, with the keyboard only: it never opens another screen', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Settings').click();
  await form().waitFor();
  const skipLink = page.getByRole('link', { name: 'Skip to content' });
  await skipLink.focus();
  await page.keyboard.press('Enter');
  // A locator, not waitForFunction: the page's CSP refuses a string predicate.
  await page.locator('main#main:focus').waitFor({ timeout: 10_000 });
  assert.match(page.url(), /#\/settings/, 'still on Settings');
  await form().waitFor();
});

test('no axe violation on the Settings screen, light and dark, and screenshots of it', { skip, timeout: 120_000 }, async () => {
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  // An unsaved change and a refusal on screen too, so their markup is checked.
  await form().getByLabel('Queue size').fill('-1');
  await form().getByRole('switch', { name: 'Automatic updates' }).click();
  await saveButton().click();
  await form().locator('#setting-queueSize-error').waitFor();
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await axe(page).analyze();
    problems.push(
      ...results.violations.map(
        (v) =>
          `${scheme}: ${v.id} (${v.impact}): ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
      ),
    );
    await page.screenshot({ path: scheme === 'light' ? '/tmp/settings.png' : '/tmp/settings-dark.png', fullPage: scheme === 'light' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(problems, []);
  await bar().getByRole('button', { name: 'Discard changes' }).click();
});
