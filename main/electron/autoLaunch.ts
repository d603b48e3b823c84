// Start at login: a setting, off by default, applied through the OS's own
// login items (macOS, Windows); on Linux the desktop file does it.
import type { App } from 'electron';

export function applyStartAtLogin(app: Pick<App, 'setLoginItemSettings' | 'getLoginItemSettings'>, enabled: boolean): boolean {
  if (app.getLoginItemSettings().openAtLogin === enabled) return false;
  app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
  return true;
}
