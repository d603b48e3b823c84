// The one window, locked down: context isolation, a sandboxed renderer
// without Node, our preload only, no navigation away from the app origin, no
// new windows (links open in the browser), every permission request denied.
// Closing the window hides it (the companion keeps serving); quitting is an
// explicit act.
import { join } from 'node:path';
import type { BrowserWindow as BrowserWindowType, WebPreferences } from 'electron';
import { APP_ORIGIN, isAppUrl, type ElectronApi } from './electronApi.ts';

export const SECURE_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  spellcheck: false,
} satisfies WebPreferences;

export interface WindowOptions {
  /** Start hidden (tray only). */
  background?: boolean;
  preload: string;
  /** Whether the app is quitting (then close really closes). */
  quitting(): boolean;
}

export function preloadPath(outDir: string): string {
  return join(outDir, 'preload', 'index.cjs');
}

export function createMainWindow(
  electron: Pick<ElectronApi, 'BrowserWindow' | 'shell' | 'session' | 'nativeTheme'>,
  options: WindowOptions,
): BrowserWindowType {
  const win = new electron.BrowserWindow({
    width: 1180,
    height: 820,
    minWidth: 760,
    minHeight: 520,
    title: 'Airlock',
    show: false,
    backgroundColor: electron.nativeTheme.shouldUseDarkColors ? '#0f1419' : '#ffffff',
    webPreferences: { ...SECURE_PREFERENCES, preload: options.preload },
  });
  lockDown(electron, win);
  win.on('close', (event) => {
    if (!options.quitting()) {
      event.preventDefault();
      win.hide();
    }
  });
  // Started in the background (by `airlock stdio`): the tray only, until the person opens it.
  if (!options.background) win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

/** What every window of ours gets: no navigation away from the app origin, no webviews, links open in the browser, every permission denied. */
export function lockDown(electron: Pick<ElectronApi, 'shell'>, win: BrowserWindowType): void {
  const contents = win.webContents;
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void electron.shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  contents.session.setPermissionCheckHandler(() => false);
}
