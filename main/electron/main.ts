// The Electron main process: a thin adapter over the headless core. It starts
// the very companion `airlock serve` runs (same data dir, same loopback
// server, same control API) and owns windows and OS integration only. The
// desktop UI arrives with its own issue; until then the window shows a
// placeholder page.
import { app, BrowserWindow } from 'electron';
import { join } from 'node:path';
import { runtimeContext } from '../core/runtime/runtimeContext.ts';
import { startServing, type Served } from '../core/runtime/companionServer.ts';

export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Airlock',
    webPreferences: {
      preload: join(import.meta.dirname, '..', '..', 'preload', 'index.ts'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  void win.loadFile(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'));
  return win;
}

export async function startDesktop(): Promise<void> {
  const state: { served?: Served } = {};
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', () => {
    void state.served?.close();
  });
  await app.whenReady();
  // Electron's userData is the default data dir, so desktop and `airlock serve` share it.
  state.served = await startServing(runtimeContext({ dataDir: app.getPath('userData') }));
  createMainWindow();
}
