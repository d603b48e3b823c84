// One desktop app per user: a second launch hands over to the first (which
// shows and focuses its window) and quits.
import type { App } from 'electron';

export function claimSingleInstance(app: Pick<App, 'requestSingleInstanceLock' | 'on' | 'quit'>, focus: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => focus());
  return true;
}
