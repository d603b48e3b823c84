// The Electron main process: a thin adapter over the headless core. It owns
// windows and OS integration only; everything else is main/core, the same
// code `airlock serve` runs. The desktop UI arrives with its own issue; until
// then the window shows the core's status.
import { app, BrowserWindow } from 'electron';
import { join } from 'node:path';

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

export function startDesktop(): void {
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  void app.whenReady().then(() => createMainWindow());
}
