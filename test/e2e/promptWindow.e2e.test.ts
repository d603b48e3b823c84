// The prompt's other surfaces. The page the desktop app's small prompt window
// shows (#/prompt): the held
// call alone, with the same guard time and decisions as the app; once it is
// answered, the page says nothing waits. (The window itself — always on top,
// shown without taking the focus — is tested against a fake electron in
// test/unit/electronShell.test.ts and with the real binary in test/electron.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, approvalDialog, chromiumMissing, nav } from '../helpers/browser.ts';
import { controlClient } from '../helpers/control.ts';

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

test(
  'the drawer folds to one line to show the screen underneath; folding decides nothing, and Show brings the prompt back',
  { skip, timeout: 60_000 },
  async () => {
    const page = await signedInPage(browser, dataDir);
    await nav(page, 'Overview').click();
    const run = execute(client, `const r = await api.events.delete({ path: { eventId: 'evt_fold' } }); return r.error?.code ?? 'sent';`);
    const drawer = page.getByRole('complementary', { name: 'Held call' });
    await approvalDialog(page).waitFor({ timeout: 10_000 });
    await drawer.getByRole('button', { name: 'Fold to one line' }).click();
    await approvalDialog(page).waitFor({ state: 'detached', timeout: 5_000 });
    assert.match(await drawer.innerText(), /Action required · 1 held: DELETE \/events\/\{eventId\} from prompt-client/);
    assert.equal((await controlClient(dataDir, fx.server.url).call('approvals.list', {})).length, 1, 'folding decides nothing');
    await drawer.getByRole('button', { name: 'Show the request' }).click();
    const dialog = approvalDialog(page);
    await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
    // Folded again, a second held call unfolds it (issue 39 §11: as the docs say), the count with it.
    await drawer.getByRole('button', { name: 'Fold to one line' }).click();
    await approvalDialog(page).waitFor({ state: 'detached', timeout: 5_000 });
    const second = execute(client, `const r = await api.events.delete({ path: { eventId: 'evt_fold_2' } }); return r.error?.code ?? 'sent';`);
    await approvalDialog(page).waitFor({ timeout: 10_000 });
    await drawer.getByText('Action required · 2 held').waitFor();
    await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    assert.equal((await run).text, 'airlock_mutation_denied');
    await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    assert.equal((await second).text, 'airlock_mutation_denied');
    await page.context().close();
  },
);

/** True when the middle of the element is the element itself to a click (nothing, such as the drawer, lies over it). */
const clickable = (locator: ReturnType<Page['locator']>) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return el.contains(el.ownerDocument.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
  });

for (const [viewport, colorScheme] of [
  [{ width: 1400, height: 900 }, 'light'],
  [{ width: 900, height: 700 }, 'dark'],
] as const) {
  test(
    `at ${viewport.width}×${viewport.height} (${colorScheme}) the drawer never covers a screen's own actions: Settings' Save bar, folded or not, and a screen's last line (issue 39 §1, §13)`,
    { skip, timeout: 90_000 },
    async () => {
      const page = await signedInPage(browser, dataDir, { viewport, colorScheme });
      const run = execute(client, `const r = await api.events.delete({ path: { eventId: 'evt_cover' } }); return r.error?.code ?? 'sent';`);
      const drawer = page.getByRole('complementary', { name: 'Held call' });
      await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
      await nav(page, 'Settings').click();
      const form = page.getByRole('form', { name: 'Settings' });
      await form.getByLabel('Queue size').fill('7');
      const bar = form.getByRole('group', { name: 'Save settings' });
      await bar.getByText('1 unsaved change').waitFor();
      for (const state of ['open', 'folded']) {
        if (state === 'folded') await drawer.getByRole('button', { name: 'Fold to one line' }).click();
        for (const name of ['Save changes', 'Discard changes']) {
          assert.ok(await clickable(bar.getByRole('button', { name })), `"${name}" is not under the drawer (${state})`);
        }
      }
      await bar.getByRole('button', { name: 'Discard changes' }).click();
      await bar.getByText('No unsaved changes.').waitFor();
      await drawer.getByRole('button', { name: 'Show the request' }).click();
      // A screen can be read to its end beside or above the open drawer, which takes at most half a narrow window:
      // Settings, scrolled to its end, shows its last line clear of the drawer; every screen is laid out around it
      // (its column ends before the drawer, or it keeps the drawer's room at its end).
      const drawerBox = (await drawer.boundingBox())!;
      if (viewport.width < 1000) assert.ok(drawerBox.height <= viewport.height / 2, `the drawer takes ${drawerBox.height} of ${viewport.height} px`);
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      const last = (await bar.boundingBox())!;
      const box = (await drawer.boundingBox())!;
      assert.ok(
        last.y + last.height <= box.y || last.x + last.width <= box.x,
        `Settings' last line (${JSON.stringify(last)}) is clear of the drawer (${JSON.stringify(box)})`,
      );
      const overflowing: string[] = [];
      for (const screen of ['Overview', 'Rules', 'Activity', 'Logs', 'Engine', 'APIs', 'Servers', 'Clients', 'Settings'] as const) {
        await nav(page, screen).click();
        await page.getByRole('heading', { level: 1, name: screen }).waitFor();
        const main = page.locator('main');
        // Nothing runs out of the screen's column (under the drawer): what is wider scrolls inside its own box.
        const [scrollWidth, clientWidth] = await main.evaluate((el) => [el.scrollWidth, el.clientWidth]);
        if (scrollWidth > clientWidth + 1) overflowing.push(`${screen}: ${scrollWidth} > ${clientWidth}`);
        const room = await main.evaluate((el) => parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).paddingBottom));
        const column = (await main.boundingBox())!;
        const d = (await drawer.boundingBox())!;
        assert.ok(
          column.x + column.width <= d.x || room >= viewport.height - d.y,
          `${screen}: its column (${column.x}+${column.width}) ends before the drawer (${d.x}), or it keeps ${room} px for a drawer ${viewport.height - d.y} px high`,
        );
      }
      assert.deepEqual(overflowing, [], 'no screen runs out of its column');
      await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
      await approvalDialog(page).getByRole('button', { name: 'Deny', exact: true }).click();
      assert.equal((await run).text, 'airlock_mutation_denied');
      await page.context().close();
    },
  );
}

test('a decision on a call the companion no longer holds says so, and the drawer lists the queue again (issue 39 §7)', { skip, timeout: 60_000 }, async () => {
  const page = await signedInPage(browser, dataDir);
  const drawer = page.getByRole('complementary', { name: 'Held call' });
  const run = execute(client, `const r = await api.events.delete({ path: { eventId: 'evt_gone' } }); return r.error?.code ?? 'sent';`);
  await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
  // The page stops hearing events (as when they are lost: from its reload on, the stream is refused; it lists the
  // queue as it loads), and the call is answered elsewhere meanwhile.
  await page.route('**/ui/api/events**', (route) => route.abort());
  await page.reload();
  await page.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
  const control = controlClient(dataDir, fx.server.url);
  const [held] = await control.call('approvals.list', {});
  await control.call('approvals.decide', { id: held!.id, decision: 'deny', reason: 'answered elsewhere' });
  assert.equal((await run).text, 'airlock_mutation_denied');
  assert.equal(await drawer.count(), 1, 'the page still shows the call it did not hear about');
  await drawer.getByRole('button', { name: 'Deny', exact: true }).click();
  const notice = page.getByRole('alert').filter({ hasText: `approval ${held!.id} was already denied` });
  await notice.waitFor({ timeout: 10_000 });
  await drawer.waitFor({ state: 'detached', timeout: 10_000 });
  assert.match(await notice.innerText(), /nothing was changed/);
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await notice.waitFor({ state: 'detached' });
  await page.context().close();
});
