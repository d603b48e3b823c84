import { messageOf } from '../../contract/values.ts';
// Updates of the desktop app, opt-in (the `autoUpdate` setting, off by
// default): check at start and once a day, download in the background, and
// install when the person quits — the quit flow has already asked about, and
// denied, what waited. An update never restarts the app on its own, and
// "Restart to update" is refused while approvals wait.

/** The part of electron-updater's autoUpdater this uses (a fake in tests). */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(): void;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface UpdateOptions {
  updater: Updater;
  enabled(): boolean;
  pendingApprovals(): number;
  log(message: string): void;
  /** Tells the person an update is ready (tray, notification). */
  ready(version: string): void;
  every?: number;
  setInterval?: typeof setInterval;
}

export interface UpdateCheck {
  /** The version downloaded and waiting for a quit, if any. */
  readonly downloaded: string | undefined;
  checkNow(): Promise<void>;
  /** Restart into the update now: refused (with why) while approvals wait. */
  restartToUpdate(): { ok: true } | { ok: false; reason: string };
  stop(): void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function createUpdateCheck(options: UpdateOptions): UpdateCheck {
  const { updater } = options;
  let downloaded: string | undefined;
  updater.autoDownload = true;
  // Installed when the person quits (after the quit flow has dealt with pending approvals), never by itself.
  updater.autoInstallOnAppQuit = true;
  updater.on('update-downloaded', (info) => {
    downloaded = info.version;
    options.log(`update ${info.version} downloaded: it is installed when Airlock quits`);
    options.ready(info.version);
  });
  updater.on('error', (error) => options.log(`update check failed: ${error.message}`));
  const checkNow = async () => {
    if (!options.enabled()) return;
    try {
      await updater.checkForUpdates();
    } catch (error) {
      options.log(`update check failed: ${messageOf(error)}`);
    }
  };
  void checkNow();
  const timer = (options.setInterval ?? setInterval)(() => void checkNow(), options.every ?? DAY_MS);
  (timer as { unref?: () => void }).unref?.();
  return {
    get downloaded() {
      return downloaded;
    },
    checkNow,
    restartToUpdate() {
      if (!downloaded) return { ok: false, reason: 'no update has been downloaded' };
      const pending = options.pendingApprovals();
      if (pending > 0) {
        return {
          ok: false,
          reason: `${pending === 1 ? 'an approval waits' : `${pending} approvals wait`}: answer first, or the update is installed when you quit`,
        };
      }
      updater.quitAndInstall();
      return { ok: true };
    },
    stop: () => clearInterval(timer as ReturnType<typeof setInterval>),
  };
}
