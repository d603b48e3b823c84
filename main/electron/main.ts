// The Electron main process: a thin shell over the headless core. It starts
// the very companion `airlock serve` runs (same data dir, loopback server,
// control API, MCP endpoints), then adds what only a desktop app has: the
// locked-down window on app://airlock, the IPC bridge, the tray with the
// approval count, notifications, single instance, start at login, and a
// quit that warns before it denies what waits. Every piece is a small module
// tested against a fake electron; this file only wires them.
import electron from 'electron';
import { join } from 'node:path';
import { startContext } from '../core/runtime/startContext.ts';
import { startServing, type ServingCompanion } from '../core/runtime/companionServer.ts';
import { localUser } from '../core/runtime/localUser.ts';
import { registerAppScheme, serveAppProtocol } from './appProtocol.ts';
import { createMainWindow, preloadPath } from './window.ts';
import { registerIpcBridge } from './ipcBridge.ts';
import { forwardEvents } from './eventForwarder.ts';
import { createTray } from './tray.ts';
import { createAttention } from './attention.ts';
import { createPromptWindow } from './promptWindow.ts';
import { confirmQuit } from './quit.ts';
import { claimSingleInstance } from './singleInstance.ts';
import { applyStartAtLogin } from './autoLaunch.ts';
import { appStdioLaunch, launchMode } from './launchMode.ts';
import { createUpdateCheck } from './updates.ts';
import { useStdioLauncher } from '../core/clients/stdioLaunch.ts';
import { defaultDataDir } from '../core/config/dataDir.ts';
import { messageOf } from '../../contract/values.ts';

const { app, protocol, dialog } = electron;

/** `Airlock --stdio`: a client's MCP server, joined to the companion (this app, started in the background if needed). No window, no tray. */
async function stdioMode(dataDir: string, apis: string[] | undefined): Promise<void> {
  app.dock?.hide();
  const { locateCompanion, startDesktopApp } = await import('../core/mcp/companionLocator.ts');
  const { runForwarder } = await import('../core/mcp/stdioForwarder.ts');
  const { withScope } = await import('../core/mcp/sessionScope.ts');
  await runForwarder({
    stdin: process.stdin,
    stdout: process.stdout,
    log: (m) => process.stderr.write(`airlock warn  [stdio] ${m}\n`),
    connect: async () => {
      const address = locateCompanion(dataDir) ?? (await startDesktopApp(process.execPath, dataDir));
      return { ...address, mcpUrl: withScope(address.mcpUrl, apis) };
    },
  });
  app.exit(0);
}

export async function startDesktop(): Promise<void> {
  const mode = launchMode(process.argv);
  const dataDir = mode.dataDir ?? app.getPath('userData');
  if (mode.kind === 'stdio') return stdioMode(dataDir, mode.apis);
  // Clients this app registers run the app itself with --stdio (packaged: no Node on the machine needed).
  if (app.isPackaged) useStdioLauncher((dir) => appStdioLaunch(process.execPath, dir, defaultDataDir()), { scope: true });
  const state: { win?: electron.BrowserWindow; served?: ServingCompanion } = {};
  let quitting = false;
  const show = () => {
    const win = state.win;
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };
  if (!claimSingleInstance(app, show)) return;
  registerAppScheme(protocol);
  await app.whenReady();

  const appPath = app.getAppPath();
  const out = join(appPath, 'out');
  const resources = app.isPackaged ? join(process.resourcesPath, 'resources') : join(appPath, 'resources');
  // Electron's userData is the default data dir, so the app and `airlock serve` share it (one companion per data dir).
  // The notifications' state comes from `attention`, built below once the window exists; status asks for it only later.
  let attention: ReturnType<typeof createAttention> | undefined;
  const served = await startServing(startContext({ dataDir }), {
    kind: 'desktop',
    desktop: () => ({ notifications: attention?.notifications ?? 'enabled', ...(attention?.detail ? { detail: attention.detail } : {}) }),
  });
  const { companion } = served;
  const { hub, broker, settings, logs } = companion.services;
  serveAppProtocol(protocol, join(out, 'renderer'));
  registerIpcBridge(electron.ipcMain, companion.dispatch, { by: `${localUser()} via desktop`, channel: 'ipc' });
  applyStartAtLogin(app, settings.values.startAtLogin === true);

  const win = createMainWindow(electron, { preload: preloadPath(out), quitting: () => quitting, background: mode.background });
  state.win = win;
  state.served = served;
  forwardEvents(hub, win.webContents, () => companion.replay(undefined));
  const tray = createTray(electron, { resources, open: show, quit: () => app.quit() });
  const byPerson = `${localUser()} via desktop`;
  const shown = (attention = createAttention(electron, {
    tray,
    window: () => win,
    deny: (id) => {
      try {
        broker.decide(id, { approve: false, reason: 'denied from the notification' }, byPerson);
      } catch {
        // Already answered elsewhere: the first answer won.
      }
    },
  }));
  // The small always-on-top prompt, shown without taking the focus when the main window is hidden or in the background.
  const prompt = createPromptWindow(electron, {
    preload: preloadPath(out),
    mainWindow: () => win,
    quitting: () => quitting,
    created: (w) => forwardEvents(hub, w.webContents, () => companion.replay(undefined)),
  });
  if (app.isPackaged) {
    // Opt-in updates (the autoUpdate setting): downloaded in the background, installed when the person quits.
    const { autoUpdater } = await import('electron-updater');
    const log = logs.logger.child('update');
    createUpdateCheck({
      updater: autoUpdater,
      enabled: () => settings.values.autoUpdate,
      pendingApprovals: () => broker.list().length,
      log: (m) => log.info(m),
      ready: (version) => {
        if (electron.Notification.isSupported())
          new electron.Notification({ title: `Airlock ${version} is ready`, body: 'It is installed when you quit Airlock.' }).show();
      },
    });
  }
  void served.orphaned.then((why) => {
    // No dialog: nobody asked to quit, and a modal would stall the companion. What waits is denied, saying why.
    logs.logger.error(`${why}: no client can find this companion any more, so Airlock quits`);
    broker.denyAll(`Airlock quit: ${why}`, 'airlock');
    quitting = true;
    void served.close().finally(() => app.exit(1));
  });
  const refresh = () => {
    const pending = broker.list();
    shown.update(pending);
    prompt.update(pending);
  };
  broker.subscribe(refresh);
  // The main window's drawer shows the prompt when it has the focus; the small window steps aside.
  win.on('focus', refresh);

  app.on('activate', show);
  app.on('before-quit', (event) => {
    if (quitting) return;
    if (
      !confirmQuit({
        pendingCount: () => broker.list().length,
        denyAll: (reason) => broker.denyAll(reason, byPerson),
        dialog,
      })
    ) {
      event.preventDefault();
      return;
    }
    quitting = true;
    event.preventDefault();
    void served.close().finally(() => app.exit(0));
  });
  // The window closing only hides it: the companion keeps serving from the tray.
  app.on('window-all-closed', () => undefined);
}

void startDesktop().catch((error: unknown) => {
  dialog.showErrorBox('Airlock could not start', (error as { line?: string }).line ?? messageOf(error));
  app.exit(1);
});
