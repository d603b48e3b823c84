// An API that is loading, on the APIs screen: its card shows how far it is (a
// progress bar a screen reader reads in words) and a way to cancel it, used
// here with the keyboard; cancelled, it is off and says so. The document's
// preparing process is held stopped while the screen is read, so the API is
// loading whatever the speed of the machine; axe finds nothing serious on the
// screen with a loading API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { controlClient } from '../helpers/control.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axe } from '../helpers/browser.ts';
import { largeDocument } from '../helpers/largeDocument.ts';
import { noProc, preparingChild } from '../helpers/preparing.ts';
import { progressWords } from '../../renderer/src/features/apis/progressWords.ts';

const skip = chromiumMissing() || noProc;
let fx: UiFixture;
let page: Page;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'e2e-api-progress');
  page = await signedInPage(fx.browser, fx.dataDir);
  await nav(page, 'APIs').click();
  await page.getByRole('heading', { name: 'APIs', level: 1 }).waitFor();
});

after(async () => {
  await fx?.close();
});

test('a loading API shows how far it is, and is cancelled from the keyboard', { skip, timeout: 120_000 }, async () => {
  const spec = join(fx.dataDir, 'large.json');
  writeFileSync(spec, JSON.stringify(largeDocument(20_000, 'Large API')));
  const control = controlClient(fx.dataDir, fx.server.url);
  const saving = control.call('profiles.save', { name: 'large', spec, auth: 'none' });

  const card = page.getByRole('region', { name: 'large', exact: true });
  const bar = card.getByRole('progressbar', { name: 'Loading large' });
  // Indexing: the preparing process is held there while the screen is read.
  await card.locator('progress[aria-valuetext^="indexing"]').waitFor({ timeout: 60_000 });
  const pid = preparingChild(fx.server.child.pid!);
  assert.ok(pid, 'a process of its own prepares the document');
  process.kill(pid, 'SIGSTOP');
  try {
    // Stopped where it is (on a loaded machine it may have gone on past indexing before the signal): the screen
    // comes to say exactly the progress the companion last heard, in words.
    const last = (await control.call('apis.list', {})).find((a) => a.name === 'large')?.progress;
    assert.ok(last && ['indexing', 'writing'].includes(last.phase), JSON.stringify(last));
    const words = progressWords(last);
    // Part way ("5,000 of 20,000 operations"), or every operation indexed and the index being finished ("20,000 operations").
    if (last.phase === 'indexing') assert.match(words, /^indexing them for search, \d+% \((\d[\d,]* of )?20,000 operations\)$/);
    await card.locator(`progress[aria-valuetext="${words}"]`).waitFor({ timeout: 15_000 });
    assert.ok(Number(await bar.getAttribute('value')) > 0);
    assert.ok((await card.locator('.api-state').innerText()).includes(`Loading: ${words}`));

    const problems: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const results = await axe(page).analyze();
      problems.push(
        ...results.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${scheme}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      );
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(problems, []);

    // The keyboard: focus the button, press Enter.
    const cancel = card.getByRole('button', { name: 'Cancel loading large' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Loading large was cancelled: it is off' }).waitFor({ timeout: 15_000 });
  } finally {
    // Cancelling killed it (a stopped process is killed too); had the test failed before, it goes on.
    if (preparingChild(fx.server.child.pid!) === pid) process.kill(pid, 'SIGCONT');
  }
  // Killed when the cancel is answered; gone once the companion has reaped it (a moment later on a loaded machine).
  const reaped = Date.now() + 15_000;
  while (preparingChild(fx.server.child.pid!) !== undefined && Date.now() < reaped) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(preparingChild(fx.server.child.pid!), undefined, 'cancelling ended the preparing process');
  await saving;
  await card.locator('[role="switch"][aria-checked="false"]').waitFor({ timeout: 15_000 });
  assert.equal(await card.getByRole('progressbar').count(), 0);
  const view = (await control.call('apis.list', {})).find((a) => a.name === 'large');
  assert.equal(view?.state, 'disabled');
  assert.equal(view?.enabled, false);
});
