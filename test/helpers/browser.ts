// The browser side of end-to-end tests: Debian's Chromium driven by
// playwright-core (no browser download), a signed-in page on the web UI of a
// spawned `airlock serve --ui`, and a page object for the screens. Waits are
// on the page's own state (roles, names, text), each with a deadline.
import assert from 'node:assert/strict';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CHROMIUM as CHROMIUM_NEED, skipUnlessTools } from './systemTools.ts';
import { serve, type Served } from './processes.ts';
import { httpClient } from './mcpClients.ts';
import { tempDir } from './paths.ts';
import { controlClient } from './control.ts';
import { readServerInfo } from '../../main/core/config/serverInfo.ts';

export const CHROMIUM = process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium';

/** Skip reason when Chromium is missing (a failure instead under AIRLOCK_REQUIRE_ALL=1). */
export function chromiumMissing(): string | false {
  return skipUnlessTools(CHROMIUM_NEED);
}

/** What a browser test runs against: `airlock serve --ui` in a temp data dir, an MCP client over HTTP, and Chromium. */
export interface UiFixture {
  dataDir: string;
  server: Served;
  client: Client;
  browser: Browser;
  close(): Promise<void>;
}

export async function startUiFixture(serveArgs: string[], clientName: string, env: Record<string, string | undefined> = {}): Promise<UiFixture> {
  const { dir: dataDir, cleanup } = tempDir();
  const server = await serve(dataDir, ['--ui', ...serveArgs], env);
  const client = await httpClient(server.mcpUrl, server.token, clientName);
  const browser = await launchBrowser();
  return {
    dataDir,
    server,
    client,
    browser,
    async close() {
      await browser.close();
      await client.close();
      await server.stop();
      cleanup();
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 30_000,
  });
}

/**
 * A one-time login link from the running companion, asked through its control API as `airlock open --print` asks
 * for it (that command itself is run in test/integration/startingCompanion.test.ts): no CLI process per page.
 */
export async function loginLink(dataDir: string): Promise<string> {
  const info = readServerInfo(dataDir);
  assert.ok(info, `no companion runs for ${dataDir}`);
  return (await controlClient(dataDir, info.url).call('ui.loginLink', {})).url;
}

export async function signedInPage(
  browser: Browser,
  dataDir: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(await loginLink(dataDir));
  // Signed in: the navigation is there (a pending approval may have taken the first screen).
  await page.getByRole('navigation', { name: 'Airlock' }).waitFor();
  return page;
}

export function nav(page: Page, name: 'Overview' | 'Approvals' | 'Rules' | 'Activity' | 'Logs' | 'Engine' | 'APIs' | 'Servers' | 'Clients' | 'Settings') {
  return page.getByRole('navigation', { name: 'Airlock' }).getByRole('link', { name, exact: false });
}

/**
 * Waits until the element's rendered text (innerText, as a person reads it) matches, within a deadline, then asserts it:
 * on a timeout the assertion says what the element holds instead.
 */
export async function showsText(where: Locator, pattern: RegExp, timeout = 15_000): Promise<void> {
  const element = await where.elementHandle({ timeout });
  await where
    .page()
    .waitForFunction(
      ({ el, source, flags }) => new RegExp(source, flags).test((el as { innerText: string }).innerText.trim()),
      { el: element, source: pattern.source, flags: pattern.flags },
      { timeout },
    )
    .catch(() => undefined);
  assert.match((await where.innerText()).trim(), pattern);
}

export function approvalDialog(page: Page) {
  return page.getByRole('alertdialog', { name: /^Action required/ });
}

/** axe-core on the page, run in the page itself (legacy mode). The default mode runs axe in each frame, then opens a
 * blank page to put the results together: half of every check's time here, for frames the UI does not have (it has
 * no iframe, and a cross-origin one is all that legacy mode leaves unchecked). */
export function axe(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(true);
}

/** Every axe violation on the page in light, then in dark (the page is left light), one line each:
 * "dark: color-contrast (serious): #id, .class". `each` runs after each scheme's check (a screenshot). */
export async function axeLightAndDark(page: Page, each?: (scheme: 'light' | 'dark') => Promise<unknown>): Promise<string[]> {
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await axe(page).analyze();
    problems.push(...results.violations.map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    await each?.(scheme);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}
