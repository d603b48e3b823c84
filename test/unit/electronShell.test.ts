// The Electron shell against a fake `electron`: each module's promise —
// window security, CSP, blocked navigation and permissions, IPC sender
// checks, single instance, close-to-tray, quit-with-pending, attention.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { createMainWindow, SECURE_PREFERENCES } from '../../main/electron/window.ts';
import { appResponse, APP_CSP } from '../../main/electron/appProtocol.ts';
import { registerIpcBridge } from '../../main/electron/ipcBridge.ts';
import { channelOf } from '../../contract/ipc.ts';
import { isTrustedSender } from '../../main/electron/trustedSender.ts';
import { claimSingleInstance } from '../../main/electron/singleInstance.ts';
import { confirmQuit, quitWarning } from '../../main/electron/quit.ts';
import { createAttention, trayTooltip } from '../../main/electron/attention.ts';
import { applyStartAtLogin } from '../../main/electron/autoLaunch.ts';
import { createPromptWindow, PROMPT_URL } from '../../main/electron/promptWindow.ts';
import { createDispatcher } from '../../main/core/control/dispatch.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import type { PendingApproval } from '../../contract/approvals.ts';
import { tempDir } from '../helpers/paths.ts';

class FakeWebContents extends EventEmitter {
  windowOpenHandler?: (d: { url: string }) => { action: string };
  permissionHandler?: (wc: unknown, permission: string, cb: (ok: boolean) => void) => void;
  permissionCheck?: () => boolean;
  mainFrame = { url: 'app://airlock/index.html' };
  session = {
    setPermissionRequestHandler: (h: FakeWebContents['permissionHandler']) => (this.permissionHandler = h),
    setPermissionCheckHandler: (h: () => boolean) => (this.permissionCheck = h),
  };
  setWindowOpenHandler(h: FakeWebContents['windowOpenHandler']) {
    this.windowOpenHandler = h;
  }
  send() {}
}

class FakeWindow extends EventEmitter {
  static last: FakeWindow;
  options: { webPreferences: Record<string, unknown> };
  webContents = new FakeWebContents();
  hidden = false;
  loaded = '';
  constructor(options: FakeWindow['options']) {
    super();
    this.options = options;
    FakeWindow.last = this;
  }
  hide() {
    this.hidden = true;
  }
  show() {}
  loadURL(url: string) {
    this.loaded = url;
    return Promise.resolve();
  }
}

function fakeElectron() {
  const opened: string[] = [];
  return {
    opened,
    electron: {
      BrowserWindow: FakeWindow,
      shell: { openExternal: async (url: string) => void opened.push(url) },
      session: {},
      nativeTheme: { shouldUseDarkColors: false },
    } as never,
  };
}

const navigate = (wc: FakeWebContents, event: string, url: string) => {
  let prevented = false;
  wc.emit(event, { preventDefault: () => (prevented = true) }, url);
  return prevented;
};

test('the window is locked down: isolation, sandbox, no Node, our preload, the app origin only', { timeout: 10_000 }, () => {
  const { electron, opened } = fakeElectron();
  let quitting = false;
  createMainWindow(electron, { preload: '/app/out/preload/index.cjs', quitting: () => quitting });
  const win = FakeWindow.last;
  const prefs = win.options.webPreferences;
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.equal(prefs.webviewTag, false);
  assert.equal(prefs.preload, '/app/out/preload/index.cjs');
  assert.deepEqual({ ...SECURE_PREFERENCES, preload: prefs.preload }, prefs);
  assert.equal(win.loaded, 'app://airlock/index.html');
  // Navigation away from the app origin is blocked; within it, allowed.
  assert.equal(navigate(win.webContents, 'will-navigate', 'https://evil.example/'), true);
  assert.equal(navigate(win.webContents, 'will-navigate', 'file:///etc/passwd'), true);
  assert.equal(navigate(win.webContents, 'will-redirect', 'http://127.0.0.1:9/'), true);
  assert.equal(navigate(win.webContents, 'will-navigate', 'app://airlock/index.html#/logs'), false);
  // New windows are denied; web links go to the browser.
  assert.deepEqual(win.webContents.windowOpenHandler!({ url: 'https://docs.example/' }), { action: 'deny' });
  assert.deepEqual(win.webContents.windowOpenHandler!({ url: 'file:///etc/passwd' }), { action: 'deny' });
  assert.deepEqual(opened, ['https://docs.example/']);
  // Every permission request is denied.
  let granted: boolean | undefined;
  win.webContents.permissionHandler!(undefined, 'media', (ok) => (granted = ok));
  assert.equal(granted, false);
  assert.equal(win.webContents.permissionCheck!(), false);
  // Close hides, unless the app quits.
  let prevented = false;
  win.emit('close', { preventDefault: () => (prevented = true) });
  assert.ok(prevented && win.hidden);
  quitting = true;
  prevented = false;
  win.emit('close', { preventDefault: () => (prevented = true) });
  assert.equal(prevented, false);
});

test('app:// serves the renderer with a strict CSP and nothing outside it', { timeout: 10_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const renderer = join(dir, 'renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<p>ui</p>');
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  symlinkSync(join(dir, 'secret.txt'), join(renderer, 'link.txt'));
  const ok = await appResponse(renderer, 'app://airlock/index.html');
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('content-security-policy'), APP_CSP);
  assert.match(APP_CSP, /script-src 'self'(;|$)/);
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/link.txt']) {
    const r = await appResponse(renderer, `app://airlock${path}`);
    assert.notEqual(r.status, 200, path);
    assert.doesNotMatch(await r.text(), /do not serve/, path);
  }
});

test('IPC: only our main frame on the app origin may call, and payloads are validated by the contract', { timeout: 10_000 }, async () => {
  const handlers = new Map<string, (event: unknown, input: unknown) => Promise<unknown>>();
  const ipcMain = { handle: (c: string, h: never) => void handlers.set(c, h), removeHandler: (c: string) => void handlers.delete(c) };
  const dispatch = createDispatcher({ 'approvals.list': () => [] } as never, silentLogger);
  const off = registerIpcBridge(ipcMain as never, dispatch, { by: 'tester via desktop', channel: 'ipc' });
  assert.ok(handlers.has(channelOf('approvals.decide')));
  const mainFrame = { url: 'app://airlock/index.html' };
  const trusted = { senderFrame: mainFrame, sender: { mainFrame } };
  assert.deepEqual(await handlers.get(channelOf('approvals.list'))!(trusted, {}), { ok: true, value: [] });
  // An iframe, another origin, a missing frame: refused before anything runs.
  const iframe = { senderFrame: { url: 'app://airlock/x' }, sender: { mainFrame } };
  const elsewhere = { senderFrame: { url: 'https://evil.example/' }, sender: { mainFrame: { url: 'https://evil.example/' } } };
  elsewhere.sender.mainFrame = elsewhere.senderFrame;
  for (const event of [iframe, elsewhere, { senderFrame: null, sender: { mainFrame } }]) {
    assert.equal(isTrustedSender(event as never), false);
    const answer = (await handlers.get(channelOf('approvals.list'))!(event, {})) as { ok: boolean; error: { code: string } };
    assert.equal(answer.ok, false);
    assert.equal(answer.error.code, 'forbidden');
  }
  // A payload outside the contract is a bad_input envelope, not a crash.
  const bad = (await handlers.get(channelOf('approvals.decide'))!(trusted, { id: 'x', decision: 'maybe' })) as { ok: boolean; error: { code: string } };
  assert.equal(bad.error.code, 'bad_input');
  off();
  assert.equal(handlers.size, 0);
});

test('single instance: a second launch quits and focuses the first', { timeout: 10_000 }, () => {
  const events = new EventEmitter();
  let quit = 0;
  let focused = 0;
  const second = { requestSingleInstanceLock: () => false, on: events.on.bind(events), quit: () => void quit++ };
  assert.equal(
    claimSingleInstance(second as never, () => void focused++),
    false,
  );
  assert.equal(quit, 1);
  const first = { requestSingleInstanceLock: () => true, on: events.on.bind(events), quit: () => void quit++ };
  assert.equal(
    claimSingleInstance(first as never, () => void focused++),
    true,
  );
  events.emit('second-instance');
  assert.equal(focused, 1);
});

test('quit with pending approvals warns how many will be denied, then denies them; cancel keeps them', { timeout: 10_000 }, () => {
  const shown: string[] = [];
  const denied: string[] = [];
  const deps = (answer: number, count: number) => ({
    pendingCount: () => count,
    denyAll: (reason: string) => (denied.push(reason), count),
    dialog: { showMessageBoxSync: (o: { message: string }) => (shown.push(o.message), answer) } as never,
  });
  assert.equal(confirmQuit(deps(1, 0)), true);
  assert.equal(shown.length, 0, 'no question when nothing waits');
  assert.equal(confirmQuit(deps(0, 2)), false);
  assert.deepEqual(denied, []);
  assert.match(shown[0]!, /2 calls are waiting for your approval: they will be denied/);
  assert.equal(confirmQuit(deps(1, 2)), true);
  assert.deepEqual(denied, ['Airlock was quit before anyone answered']);
  assert.equal(quitWarning(1), '1 call is waiting for your approval: it will be denied.');
});

test('attention: the tray counts, one notification per new head replaces the previous, none while the window has focus', { timeout: 10_000 }, () => {
  const notes: { options: { title: string }; closed: boolean; listeners: Map<string, (...args: unknown[]) => void> }[] = [];
  class FakeNotification {
    static isSupported = () => true;
    record: (typeof notes)[number];
    constructor(options: { title: string }) {
      this.record = { options, closed: false, listeners: new Map() };
      notes.push(this.record);
    }
    on(event: string, fn: (...args: unknown[]) => void) {
      this.record.listeners.set(event, fn);
    }
    show() {}
    close() {
      this.record.closed = true;
    }
  }
  const tray = {
    tip: '',
    title: '',
    setToolTip(t: string) {
      this.tip = t;
    },
    setTitle(t: string) {
      this.title = t;
    },
  };
  let focused = false;
  let flashed = 0;
  const win = { isVisible: () => true, isFocused: () => focused, flashFrame: () => void flashed++, show() {}, focus() {}, webContents: { send() {} } };
  const attention = createAttention({ Notification: FakeNotification, app: {} } as never, { tray: tray as never, window: () => win as never });
  const p = (id: string): PendingApproval =>
    ({
      id,
      request: { kind: 'api-call', method: 'DELETE', pathTemplate: '/events/{id}', operationId: 'events.delete', caller: { clientName: 'cursor' } },
    }) as never;
  attention.update([p('a')]);
  assert.equal(tray.tip, trayTooltip(1));
  assert.equal(tray.tip, 'Airlock — 1 approval waiting');
  assert.equal(tray.title, '1');
  assert.equal(notes.length, 1);
  assert.match(notes[0]!.options.title, /approve DELETE \/events\/\{id\}/);
  attention.update([p('a'), p('b')]);
  assert.equal(notes.length, 1, 'the same head is not notified again');
  assert.equal(tray.tip, 'Airlock — 2 approvals waiting');
  attention.update([p('b')]);
  assert.equal(notes.length, 2);
  assert.equal(notes[0]!.closed, true, 'the new notification replaces the previous');
  focused = true;
  attention.update([p('c')]);
  assert.equal(notes.length, 2, 'no notification while the window has the focus');
  attention.update([]);
  assert.equal(tray.title, '');
  assert.ok(flashed >= 2);
  assert.equal(attention.notifications, 'enabled');
  // Windows reports a toast it could not show (notifications turned off for the app): the state says so until one shows again.
  notes.at(-1)!.listeners.get('failed')!({}, 'toast notifications are disabled');
  assert.equal(attention.notifications, 'failed');
  assert.match(attention.detail!, /toast notifications are disabled.*turned off for Airlock/);
  notes.at(-1)!.listeners.get('show')!();
  assert.equal(attention.notifications, 'enabled');
  const unsupported = createAttention({ Notification: { isSupported: () => false }, app: {} } as never, { tray: tray as never, window: () => undefined });
  assert.equal(unsupported.notifications, 'unsupported');
});

test("notifications: 'Review' opens the queue, 'Deny' denies that request; there is no 'Allow' in a notification", { timeout: 10_000 }, () => {
  const made: { options: { actions?: { text: string }[] }; listeners: Map<string, (...args: unknown[]) => void> }[] = [];
  class FakeNotification {
    static isSupported = () => true;
    record: (typeof made)[number];
    constructor(options: (typeof made)[number]['options']) {
      this.record = { options, listeners: new Map() };
      made.push(this.record);
    }
    on(event: string, fn: (...args: unknown[]) => void) {
      this.record.listeners.set(event, fn);
    }
    show() {}
    close() {}
  }
  const denied: string[] = [];
  const sent: string[] = [];
  const win = {
    isVisible: () => false,
    isFocused: () => false,
    flashFrame() {},
    show() {},
    focus() {},
    webContents: { send: (_c: string, screen: string) => void sent.push(screen) },
  };
  const attention = createAttention({ Notification: FakeNotification, app: {} } as never, {
    tray: { setToolTip() {}, setTitle() {} } as never,
    window: () => win as never,
    deny: (id) => void denied.push(id),
  });
  attention.update([
    { id: 'apr_1', request: { kind: 'api-call', method: 'PATCH', pathTemplate: '/events/{id}', operationId: 'events.update', caller: {} } } as never,
  ]);
  assert.deepEqual(
    made[0]!.options.actions?.map((a) => a.text),
    ['Review', 'Deny'],
  );
  made[0]!.listeners.get('action')!({}, 0);
  assert.deepEqual(sent, ['approvals']);
  assert.deepEqual(denied, []);
  made[0]!.listeners.get('action')!({}, 1);
  assert.deepEqual(denied, ['apr_1']);
});

test(
  'the small prompt window: shown without taking the focus, on top, locked down; hidden when nothing waits or the main window has the focus',
  { timeout: 10_000 },
  () => {
    const shown: string[] = [];
    class PromptFake extends FakeWindow {
      visible = false;
      onTop: unknown[] = [];
      showInactive() {
        this.visible = true;
        shown.push('inactive');
      }
      override show() {
        shown.push('focus-taking show');
      }
      override hide() {
        this.visible = false;
      }
      isVisible() {
        return this.visible;
      }
      setAlwaysOnTop(...args: unknown[]) {
        this.onTop = args;
      }
    }
    let quitting = false;
    const main = { visible: false, focused: false, isVisible: () => main.visible, isFocused: () => main.focused };
    const created: unknown[] = [];
    const prompt = createPromptWindow(
      {
        BrowserWindow: PromptFake,
        shell: { openExternal: async () => undefined },
        screen: { getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) },
      } as never,
      { preload: '/app/out/preload/index.cjs', mainWindow: () => main, quitting: () => quitting, created: (w) => void created.push(w) },
    );
    const p = (id: string) => ({ id }) as PendingApproval;
    prompt.update([]);
    assert.equal(prompt.window, undefined, 'no window until something waits');
    prompt.update([p('a')]);
    const w = FakeWindow.last as PromptFake;
    assert.equal(created.length, 1);
    assert.deepEqual(shown, ['inactive'], 'shown without taking the focus');
    assert.equal(w.loaded, PROMPT_URL);
    const o = w.options as unknown as Record<string, unknown> & { webPreferences: Record<string, unknown> };
    assert.equal(o.alwaysOnTop, true);
    assert.equal(o.x, 1920 - 480 - 16);
    assert.equal(o.height, 720);
    assert.deepEqual(w.onTop, [true, 'floating']);
    assert.equal(o.webPreferences.sandbox, true);
    assert.equal(o.webPreferences.contextIsolation, true);
    assert.equal(o.webPreferences.nodeIntegration, false);
    assert.equal(navigate(w.webContents, 'will-navigate', 'https://evil.example/'), true, 'locked to the app origin like the main window');
    // Closing it is "later": hidden, not destroyed, nothing decided.
    let prevented = false;
    w.emit('close', { preventDefault: () => (prevented = true) });
    assert.equal(prevented, true);
    assert.equal(w.visible, false);
    prompt.update([p('a'), p('b')]);
    assert.deepEqual(shown, ['inactive'], 'not shown again for the request the person closed it on');
    prompt.update([p('b')]);
    assert.deepEqual(shown, ['inactive', 'inactive'], 'the next request shows it again');
    main.visible = true;
    main.focused = true;
    prompt.update([p('b')]);
    assert.equal(w.visible, false, "the main window's drawer has it");
    main.focused = false;
    prompt.update([p('c')]);
    assert.equal(w.visible, true);
    prompt.update([]);
    assert.equal(w.visible, false, 'hidden once nothing waits');
    assert.equal(created.length, 1, 'one window, reused');
    quitting = true;
  },
);

test('start at login is applied only when it changes (off by default)', { timeout: 10_000 }, () => {
  let current = false;
  const calls: unknown[] = [];
  const app = {
    getLoginItemSettings: () => ({ openAtLogin: current }),
    setLoginItemSettings: (s: { openAtLogin: boolean }) => (calls.push(s), (current = s.openAtLogin)),
  };
  assert.equal(applyStartAtLogin(app as never, false), false);
  assert.equal(applyStartAtLogin(app as never, true), true);
  assert.equal(applyStartAtLogin(app as never, true), false);
  assert.equal(calls.length, 1);
});

test('launch modes: a client spawns the app with --stdio, airlock stdio starts it with --background; the data dir travels', { timeout: 10_000 }, async () => {
  const { launchMode, appStdioLaunch } = await import('../../main/electron/launchMode.ts');
  assert.deepEqual(launchMode(['/Applications/Airlock.app/Contents/MacOS/Airlock']), { kind: 'app', background: false });
  assert.deepEqual(launchMode(['airlock', '--background', '--data-dir', '/d']), { kind: 'app', background: true, dataDir: '/d' });
  assert.deepEqual(launchMode(['airlock', '--stdio']), { kind: 'stdio' });
  // A registration's scope: the session reaches only those APIs, as `airlock stdio --api` does.
  assert.deepEqual(launchMode(['airlock', '--stdio', '--api', 'github', '--api', 'demo,openagenda']), {
    kind: 'stdio',
    apis: ['github', 'demo', 'openagenda'],
  });
  assert.deepEqual(launchMode(['airlock', '--stdio', '--data-dir', '/d']), { kind: 'stdio', dataDir: '/d' });
  assert.deepEqual(launchMode(['airlock', '--data-dir', '--stdio']), { kind: 'stdio' }, 'a flag is not a data dir');
  assert.deepEqual(appStdioLaunch('/opt/Airlock/airlock', '/home/me/.config/Airlock', '/home/me/.config/Airlock'), {
    command: '/opt/Airlock/airlock',
    args: ['--stdio'],
  });
  assert.deepEqual(appStdioLaunch('C:\\Airlock.exe', 'D:\\data', 'C:\\Users\\me\\AppData\\Roaming\\Airlock'), {
    command: 'C:\\Airlock.exe',
    args: ['--stdio', '--data-dir', 'D:\\data'],
  });
});

test('updates are opt-in, install on quit, and never restart the app while approvals wait', { timeout: 10_000 }, async () => {
  const { createUpdateCheck } = await import('../../main/electron/updates.ts');
  const listeners: Record<string, (arg: never) => void> = {};
  let checks = 0;
  let installs = 0;
  const updater = {
    autoDownload: false,
    autoInstallOnAppQuit: false,
    checkForUpdates: async () => void checks++,
    quitAndInstall: () => void installs++,
    on: (event: string, fn: (arg: never) => void) => (listeners[event] = fn),
  };
  let enabled = false;
  let pending = 1;
  const ready: string[] = [];
  let tick: () => void = () => {};
  const check = createUpdateCheck({
    updater: updater as never,
    enabled: () => enabled,
    pendingApprovals: () => pending,
    log: () => {},
    ready: (v) => ready.push(v),
    setInterval: ((fn: () => void) => ((tick = fn), { unref() {} })) as never,
  });
  await check.checkNow();
  assert.equal(checks, 0, 'off by default: no check');
  enabled = true;
  tick();
  await check.checkNow();
  assert.equal(checks, 2, 'on: at the daily tick and on demand');
  assert.equal(updater.autoInstallOnAppQuit, true);
  assert.deepEqual(check.restartToUpdate(), { ok: false, reason: 'no update has been downloaded' });
  (listeners['update-downloaded'] as (i: { version: string }) => void)({ version: '0.2.0' });
  assert.deepEqual(ready, ['0.2.0']);
  assert.equal(check.downloaded, '0.2.0');
  const refused = check.restartToUpdate();
  assert.equal(refused.ok, false);
  assert.match((refused as { reason: string }).reason, /an approval waits/);
  assert.equal(installs, 0, 'never while an approval waits');
  pending = 0;
  assert.deepEqual(check.restartToUpdate(), { ok: true });
  assert.equal(installs, 1);
  check.stop();
});
