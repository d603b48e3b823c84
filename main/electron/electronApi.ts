// The slice of Electron's API the shell uses, as types. Each module takes it
// as a parameter, so unit tests pass a fake (test/helpers/fakeElectron.ts)
// and only main.ts imports the real `electron`.
import type * as Electron from 'electron';

export type ElectronApi = Pick<
  typeof Electron,
  | 'app'
  | 'BrowserWindow'
  | 'ipcMain'
  | 'Tray'
  | 'Menu'
  | 'Notification'
  | 'nativeImage'
  | 'dialog'
  | 'protocol'
  | 'session'
  | 'shell'
  | 'nativeTheme'
  | 'net'
  | 'screen'
>;

export const APP_SCHEME = 'app';
export const APP_ORIGIN = 'app://airlock';

/** Whether a URL is on the app's own origin (Node's URL gives custom schemes an opaque "null" origin, so compare the parts). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === 'airlock' && !u.username && !u.password && !u.port;
  } catch {
    return false;
  }
}
