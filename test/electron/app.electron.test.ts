// The desktop app end to end with Playwright's _electron: the real Electron
// binary, the built main, preload and renderer. It runs where Electron could
// be downloaded (the GitHub Actions workflow on Linux with xvfb, macOS and
// Windows); elsewhere it skips with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
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
