// Renders every screen of the web UI, light and dark, on the demo API with
// one call waiting for approval (a PATCH, so the prompt shows what it would
// change), into docs/screenshots/ (the README shows them), and the desktop
// app's small prompt window (#/prompt) at its size. Needs `npm run build` and
// Chromium. `node scripts/screenshots.ts`
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startUiFixture, signedInPage, nav, approvalDialog } from '../test/helpers/browser.ts';
import { execute } from '../test/helpers/mcpClients.ts';

const SCREENS = ['Overview', 'Approvals', 'Rules', 'Activity', 'Logs', 'Engine', 'APIs', 'Clients', 'Settings'] as const;
const out = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

const fx = await startUiFixture(['--approval-timeout-ms', '600000'], 'Claude Code');
try {
  // Some history for Activity and Logs, then one held call for Approvals.
  await execute(
    fx.client,
    `const r = await api.events.list({ query: { city: 'Lyon', limit: 3 } }); console.log('found', r.data.data.length, 'events'); return r.data.data.map((e) => e.title);`,
  );
  // Held until the end; closing the client at the end rejects it, which is expected.
  execute(
    fx.client,
    `const list = await api.events.list({ query: { limit: 1 } });
const event = list.data.data[0];
return await api.events.update({ path: { eventId: event.id }, body: { title: event.title + ' (moved)', city: 'Villeurbanne' } });`,
  ).catch(() => undefined);
  for (const scheme of ['light', 'dark'] as const) {
    const page = await signedInPage(fx.browser, fx.dataDir, { colorScheme: scheme });
    await approvalDialog(page).waitFor();
    for (const name of SCREENS) {
      await nav(page, name).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      if (name === 'Logs') await page.locator('.xterm-rows').getByText(/found/).first().waitFor();
      if (name === 'Engine') await page.getByRole('table', { name: /Engine × network boundary/ }).waitFor();
      if (name === 'APIs') await page.getByLabel('Policy for events.list').waitFor();
      if (name === 'Clients') await page.getByRole('heading', { name: /Not found on this machine/ }).waitFor();
      if (name === 'Rules') await page.getByRole('table').first().waitFor();
      if (name === 'Activity') {
        const first = page
          .getByRole('listitem')
          .filter({ hasText: /execute by/ })
          .first();
        await first.waitFor();
        await first.click();
      }
      const file = join(out, `${name.toLowerCase()}-${scheme}.png`);
      // The prompt once its guard time is over, so its buttons show as they are to be used.
      await approvalDialog(page).and(page.locator('[data-armed="true"]')).waitFor();
      await page.screenshot({ path: file });
      process.stderr.write(`${file}\n`);
    }
    // The desktop app's small prompt window shows this page, at its size.
    await page.setViewportSize({ width: 480, height: 720 });
    await page.evaluate("location.hash = '#/prompt'; location.reload()");
    await approvalDialog(page).and(page.locator('[data-armed="true"]')).waitFor();
    await page.screenshot({ path: join(out, `prompt-window-${scheme}.png`) });
    await page.context().close();
  }
} finally {
  // Closing the client leaves the held call marked for the person; stopping the companion ends it.
  await fx.close().catch(() => undefined);
}
