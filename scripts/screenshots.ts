// Renders every screen of the web UI, light and dark, on the demo API with
// one call waiting for approval (a PATCH, so the prompt shows what it would
// change), into docs/screenshots/ (the README shows them), and the desktop
// app's small prompt window (#/prompt) at its size. Servers shows two MCP
// servers (the test server; a copy that cannot start, with a secret missing),
// then the first one's tools under review (servers-review-*.png), the form
// that adds one filled in (servers-add-*.png), and Claude Desktop's own
// servers picked and previewed to move behind Airlock (servers-import-*.png).
// The companion runs with a home of its own, where Claude Desktop's file
// holds those servers: what this machine's clients hold is never shown.
// Needs `npm run build` and Chromium. `node scripts/screenshots.ts`
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startUiFixture, signedInPage, approvalDialog } from '../test/helpers/browser.ts';
import { execute } from '../test/helpers/mcpClients.ts';
import { controlClient } from '../test/helpers/control.ts';
import { ROOT } from '../test/helpers/paths.ts';

const SCREENS = ['Overview', 'Approvals', 'Rules', 'Activity', 'Logs', 'Engine', 'APIs', 'Servers', 'Clients', 'Settings'] as const;
const out = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

const nav = (page: Page, name: (typeof SCREENS)[number]) => page.getByRole('navigation', { name: 'Airlock' }).getByRole('link', { name, exact: false });

// A home where Claude Desktop runs four servers itself: two that can move (one with a value written inline), one
// whose name is taken behind Airlock already (github), one that cannot move (a relative command).
// A fixed path, so the screenshots say the same each time.
const home = {
  dir: join(tmpdir(), 'airlock-screenshots', 'home'),
  cleanup: () => rmSync(join(tmpdir(), 'airlock-screenshots'), { recursive: true, force: true }),
};
home.cleanup();
const claudeDir = join(home.dir, '.config', 'Claude');
mkdirSync(claudeDir, { recursive: true });
const claudeServers = {
  filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/projects'] },
  'brave-search': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-brave-search'], env: { BRAVE_API_KEY: 'BSA-example-key-not-real' } },
  github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example_token_not_real' } },
  'local-db': { command: './run-db.sh' },
};
writeFileSync(join(claudeDir, 'claude_desktop_config.json'), JSON.stringify({ mcpServers: claudeServers }, null, 2) + '\n');

// BOOM is passed through to one server only (its entry names it): that one writes to stderr and exits at start.
const fx = await startUiFixture(['--approval-timeout-ms', '600000'], 'Claude Code', {
  BOOM: '1',
  HOME: home.dir,
  XDG_CONFIG_HOME: join(home.dir, '.config'),
});
try {
  // Three MCP servers, read by the companion on their next use (as `airlock servers add` leaves them): the test
  // server; a copy that fails at start (BOOM, passed through to it alone); one that is disabled and misses a secret.
  const testServer = { transport: 'stdio', command: process.execPath, args: [join(ROOT, 'test', 'fixtures', 'upstream', 'testServer.ts')], enabled: true };
  const servers = {
    github: { ...testServer, env: [], secrets: ['GITHUB_TOKEN'], enabled: false },
    misbehaving: { ...testServer, env: [], secrets: [] },
    'notes-db': { ...testServer, env: ['BOOM'], secrets: [] },
  };
  writeFileSync(join(fx.dataDir, 'servers.json'), JSON.stringify({ version: 1, servers }, null, 2) + '\n', { mode: 0o600 });
  // notes-db is started once, and fails (it is started again after a delay, and fails again).
  await controlClient(fx.dataDir, fx.server.url)
    .call('servers.review', { name: 'notes-db' })
    .catch(() => undefined);
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
      if (name === 'Servers') {
        await serverShots(page, scheme, file);
        continue;
      }
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
  home.cleanup();
}

/**
 * The Servers screen with the held call folded to one line (the cards are the point); then the test server's tools
 * under review (it is started for it): held, as nothing was accepted; then the form that adds a server, filled in
 * (not sent); then Claude Desktop's servers picked and previewed (a dry run: nothing moves). The drawer is unfolded
 * again after.
 */
async function serverShots(page: Page, scheme: 'light' | 'dark', listFile: string): Promise<void> {
  const shot = async (file: string) => {
    await page.screenshot({ path: file });
    process.stderr.write(`${file}\n`);
  };
  await page
    .getByRole('region', { name: 'notes-db' })
    .getByText(/^(Failed|Stopped): /)
    .waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Fold to one line' }).click();
  await page.getByRole('button', { name: 'Show the request' }).waitFor();
  await shot(listFile);

  const card = page.getByRole('region', { name: 'misbehaving' });
  await card.getByRole('button', { name: 'Review tools of misbehaving' }).click();
  await card.getByRole('table', { name: 'Tools of misbehaving' }).waitFor({ timeout: 30_000 });
  await card.getByRole('heading', { name: 'Its tools (11): not reviewed yet (held)' }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
  await shot(join(out, `servers-review-${scheme}.png`));
  await card.getByRole('button', { name: 'Hide tools of misbehaving' }).click();

  const form = page.getByRole('form', { name: 'Add a server' });
  await form.getByLabel('Name', { exact: true }).fill('filesystem');
  await form.getByLabel('Command', { exact: true }).fill('npx');
  await form.getByLabel('Arguments, one a line').fill('-y\n@modelcontextprotocol/server-filesystem\n/home/me/projects');
  await form.getByLabel('Variables passed through').fill('HOME');
  await form.getByLabel('Variables passed through').blur();
  await page.locator('section.add-server').evaluate((card) => card.scrollIntoView({ block: 'start' }));
  await shot(join(out, `servers-add-${scheme}.png`));

  const claude = page.getByRole('region', { name: 'Claude Desktop', exact: true });
  for (const server of ['filesystem', 'brave-search', 'github']) await claude.getByRole('checkbox', { name: new RegExp(`^${server}`) }).check();
  await claude.getByRole('button', { name: 'Preview the move from Claude Desktop' }).click();
  await claude.getByRole('group', { name: 'The preview of the move from Claude Desktop' }).waitFor({ timeout: 15_000 });
  // Taller, so the picks, the preview and its Move button show at once.
  await page.setViewportSize({ width: 1200, height: 1800 });
  await claude.evaluate((section) => section.scrollIntoView({ block: 'start' }));
  await shot(join(out, `servers-import-${scheme}.png`));
  await page.setViewportSize({ width: 1200, height: 900 });

  await page.getByRole('button', { name: 'Show the request' }).click();
  await approvalDialog(page).waitFor();
}
