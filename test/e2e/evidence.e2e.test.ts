// Evidence a person can judge, end to end on the demo API: a held PATCH
// shows the event's fields as they are now and as they would be; a held
// DELETE names the event it deletes; one that cannot be read says so. The
// script is shown highlighted and wrapped. Light and dark, axe-checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, approvalDialog, chromiumMissing, axe } from '../helpers/browser.ts';

const skip = chromiumMissing();
let fx: UiFixture;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'e2e-evidence');
});
after(async () => {
  await fx?.close();
});

async function firstEvent(): Promise<{ id: string; title: string; city: string }> {
  const r = await execute(fx.client, 'const r = await api.events.list({ query: { limit: 1 } }); return r.data.data[0];');
  return JSON.parse(r.text) as { id: string; title: string; city: string };
}

async function deny(page: Page, run: Promise<unknown>) {
  const dialog = approvalDialog(page);
  // The buttons answer only once the prompt's guard time is over.
  await dialog.and(page.locator('[data-armed="true"]')).waitFor();
  await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
  await run;
  await dialog.waitFor({ state: 'detached' });
}

async function seriousAxe(page: Page): Promise<string[]> {
  const results = await axe(page).include('[role="alertdialog"]').analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const scheme of ['light', 'dark'] as const) {
  test(`a held PATCH shows what changes, before and after; the script is highlighted and wrapped (${scheme})`, { skip, timeout: 90_000 }, async () => {
    const event = await firstEvent();
    const page = await signedInPage(fx.browser, fx.dataDir, { colorScheme: scheme });
    const longLine = `// ${'a long comment that must wrap rather than scroll sideways '.repeat(6)}`;
    const code = `const id = ${JSON.stringify(event.id)};\n${longLine}\nconst r = await api.events.update({ path: { eventId: id }, body: { title: 'Renamed in ${scheme}', city: ${JSON.stringify(event.city)} } });\nreturn r.error ? 'denied' : 'changed';`;
    const run = execute(fx.client, code);
    const dialog = approvalDialog(page);
    await dialog.waitFor();
    const changes = dialog.getByRole('table', { name: /Fields this request changes/ });
    await changes.waitFor();
    const rows = await changes.getByRole('row').allInnerTexts();
    assert.equal(rows.length, 2, `one header row and one change (the city is unchanged): ${rows.join(' | ')}`);
    assert.match(rows[1]!, new RegExp(`title\\s+${JSON.stringify(event.title).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+"Renamed in ${scheme}"`));
    assert.match(await dialog.innerText(), /What changes/);
    assert.match(await dialog.innerText(), /read just now with GET \/events\/\{eventId\}/);

    await dialog.getByText('Details: script, earlier calls, rule').click();
    const script = dialog.getByRole('figure', { name: "The run's script" });
    await script.waitFor();
    assert.equal(await script.getByRole('listitem').count(), code.split('\n').length, 'one line per script line');
    assert.ok((await script.locator('.hljs-keyword').count()) > 0, 'keywords are highlighted');
    const overflow = await script.evaluate((el) => el.scrollWidth - el.clientWidth);
    assert.ok(overflow <= 1, `the script wraps (overflow ${overflow}px)`);
    assert.deepEqual(await seriousAxe(page), []);
    await deny(page, run);
    await page.context().close();
  });
}

test('a held DELETE names the event it deletes; one that cannot be read says so', { skip, timeout: 90_000 }, async () => {
  const event = await firstEvent();
  const page = await signedInPage(fx.browser, fx.dataDir);
  const run = execute(fx.client, `await api.events.delete({ path: { eventId: ${JSON.stringify(event.id)} } }); return 'done';`);
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  await dialog.getByText('Deletes', { exact: true }).waitFor();
  assert.equal(await dialog.locator('.deleted-title').innerText(), event.title);
  await deny(page, run);

  const missing = execute(fx.client, `await api.events.delete({ path: { eventId: 'evt_not_there' } }); return 'done';`);
  await dialog.waitFor();
  await dialog.getByText('Current state', { exact: true }).waitFor();
  assert.match(await dialog.innerText(), /Not shown: GET \/events\/\{eventId\} answered 404/);
  await deny(page, missing);
  await page.context().close();
});
