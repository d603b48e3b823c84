// The desktop app end to end with Playwright's _electron: the real Electron
// binary, the built main, preload and renderer. It runs where Electron could
// be downloaded (the GitHub Actions workflow on Linux with xvfb, macOS and
// Windows); elsewhere it skips with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, tempDir } from '../helpers/paths.ts';

function electronPath(): string | undefined {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const binary = electronPath();
const skip = binary ? false : 'needs the Electron binary, which cannot be downloaded on this machine (runs in .github/workflows/electron-e2e.yml)';

test('the desktop app starts the companion, shows the UI on app://airlock, and locks its window down', { skip, timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const app = await _electron.launch({ executablePath: binary!, args: [join(ROOT, 'out', 'main', 'main.js'), `--user-data-dir=${dir}`], timeout: 60_000 });
  t.after(() => app.close());
  const page = await app.firstWindow();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor({ timeout: 30_000 });
  assert.match(page.url(), /^app:\/\/airlock\//);
  // Isolated and sandboxed: the page sees neither Node nor Electron internals.
  assert.equal(await page.evaluate('typeof process'), 'undefined');
  assert.equal(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length), 1);
  // The renderer has the named bridge and no Node.
  assert.equal(await page.evaluate('typeof window.airlock.status'), 'function');
  assert.equal(await page.evaluate('typeof window.airlock.invoke'), 'undefined');
  assert.equal(await page.evaluate('typeof require'), 'undefined');
});

test(
  'a held call appears in the small prompt window, shown without taking the focus, when the main window is hidden',
  { skip, timeout: 120_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const app = await _electron.launch({ executablePath: binary!, args: [join(ROOT, 'out', 'main', 'main.js'), `--user-data-dir=${dir}`], timeout: 60_000 });
    t.after(() => app.close());
    const page = await app.firstWindow();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor({ timeout: 30_000 });
    const status = (await page.evaluate('window.airlock.status({})')) as { value: { endpoints: { http?: string; tokenFile?: string } } };
    const { http, tokenFile } = status.value.endpoints;
    assert.ok(http && tokenFile, 'the desktop companion serves MCP over HTTP');
    // The person is elsewhere: the main window hidden (closing it hides it).
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.hide());
    const client = new Client({ name: 'electron-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http), { requestInit: { headers: { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` } } }),
    );
    t.after(() => client.close());
    const promptOpened = app.waitForEvent('window', { timeout: 30_000 });
    const run = client.callTool(
      {
        name: 'execute',
        arguments: {
          code: `const r = await api.events.create({ body: { title: 'from electron e2e', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } }); return r.error?.code ?? 'created';`,
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    const prompt = await promptOpened;
    assert.match(prompt.url(), /#\/prompt$/);
    const dialog = prompt.getByRole('alertdialog', { name: /^Action required/ });
    await dialog.waitFor({ timeout: 30_000 });
    const focused = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getFocusedWindow()?.webContents.getURL() ?? '');
    assert.doesNotMatch(focused, /#\/prompt$/, 'the prompt window never takes the focus');
    assert.equal(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().some((w) => w.isAlwaysOnTop())), true);
    await prompt.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = (await run) as { content: { text: string }[] };
    assert.equal(result.content[0]!.text, 'airlock_mutation_denied');
  },
);
