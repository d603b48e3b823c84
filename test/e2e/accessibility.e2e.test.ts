// axe-core on every screen, light and dark, at 1400×900 and 900×700: no
// violation of any impact, with a held approval open over each of them (the
// drawer), and on the desktop app's prompt-only page (#/prompt).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, approvalDialog, chromiumMissing, axe } from '../helpers/browser.ts';

const skip = chromiumMissing();
const SCREENS = ['Overview', 'Approvals', 'Rules', 'Activity', 'Logs', 'Engine', 'APIs', 'Servers', 'Clients', 'Settings'] as const;
let browser: Browser;
let client: Client;
let dataDir: string;

let fx: UiFixture;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], 'axe-client');
  ({ browser, client, dataDir } = fx);
});

after(async () => {
  await fx?.close();
});

for (const [scheme, viewport] of [
  ['light', { width: 1400, height: 900 }],
  ['dark', { width: 900, height: 700 }],
] as const) {
  test(`no axe violation of any impact on any screen (${scheme}, ${viewport.width}×${viewport.height})`, { skip, timeout: 120_000 }, async () => {
    const page = await signedInPage(browser, dataDir, { colorScheme: scheme, viewport });
    // One held call, so the approval dialog is checked too.
    const run = execute(client, `await api.events.delete({ path: { eventId: 'evt_missing' } }); return 'done';`);
    await approvalDialog(page).waitFor();
    const problems: string[] = [];
    const check = async (name: string) => {
      const results = await axe(page).analyze();
      for (const v of results.violations) {
        problems.push(
          `${name}: ${v.id} (${v.impact}) — ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
        );
      }
    };
    for (const name of SCREENS) {
      await nav(page, name).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      // The held call is open on every screen: on Approvals in place, elsewhere in the drawer.
      await approvalDialog(page).waitFor();
      await check(name);
    }
    // The desktop app's small prompt window shows this page.
    await page.evaluate("location.hash = '#/prompt'; location.reload()");
    await approvalDialog(page).waitFor();
    await check('prompt window');
    await page.evaluate("location.hash = '#/approvals'; location.reload()");
    await nav(page, 'Approvals').click();
    await approvalDialog(page).getByRole('button', { name: 'Deny', exact: true }).click();
    await run;
    await page.context().close();
    assert.deepEqual(problems, []);
  });
}
