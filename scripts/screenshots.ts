// Renders every screen of the web UI, light and dark, on the demo API with
// one call waiting for approval, into docs/screenshots/ (the README shows
// them). Needs `npm run build` and Chromium. `node scripts/screenshots.ts`
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startUiFixture, signedInPage, nav, approvalDialog } from '../test/helpers/browser.ts';
import { execute } from '../test/helpers/mcpClients.ts';

const SCREENS = ['Overview', 'Approvals', 'Activity', 'Logs', 'Engine', 'APIs', 'Clients', 'Settings'] as const;
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
    `const list = await api.events.list({ query: { limit: 1 } }); return await api.events.delete({ path: { eventId: list.data.data[0].id } });`,
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
      if (name === 'Activity')
        await page
          .getByRole('listitem')
          .filter({ hasText: /execute by/ })
          .first()
          .waitFor();
      const file = join(out, `${name.toLowerCase()}-${scheme}.png`);
      // The prompt once its guard time is over, so its buttons show as they are to be used.
      await approvalDialog(page).and(page.locator('[data-armed="true"]')).waitFor();
      await page.screenshot({ path: file });
      process.stderr.write(`${file}\n`);
    }
    await page.context().close();
  }
} finally {
  // Closing the client ends the held call (it is withdrawn, as a client that goes away should).
  await fx.close().catch(() => undefined);
}
