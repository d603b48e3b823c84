// The small prompt window: when a call waits for a person and Airlock's main
// window is hidden or in the background, the head request appears in a small
// always-on-top window in the corner of the screen — shown without taking
// the focus (showInactive), so whatever the person is typing elsewhere keeps
// going where it was going. It is the same prompt as in the app (#/prompt:
// the request, its evidence, the guard time, Deny / Allow once / the scoped
// allow), locked down like the main window. It hides once nothing waits, or
// when the main window has the focus (its drawer shows the prompt there).
// Closing it decides nothing: the request stays in the tray count and the app.
import type { BrowserWindow as BrowserWindowType } from 'electron';
import type { PendingApproval } from '../../contract/approvals.ts';
import { APP_ORIGIN, type ElectronApi } from './electronApi.ts';
import { SECURE_PREFERENCES, lockDown } from './window.ts';

export const PROMPT_SIZE = { width: 480, height: 720 } as const;
/** The renderer's prompt-only page. */
export const PROMPT_URL = `${APP_ORIGIN}/index.html#/prompt`;

export interface PromptWindow {
  update(pending: PendingApproval[]): void;
  /** The prompt window's contents, once created (events are forwarded to it like to the main window). */
  readonly window: BrowserWindowType | undefined;
}

type MainWindow = Pick<BrowserWindowType, 'isVisible' | 'isFocused'>;

export function createPromptWindow(
  electron: Pick<ElectronApi, 'BrowserWindow' | 'shell' | 'screen'>,
  options: {
    preload: string;
    mainWindow(): MainWindow | undefined;
    quitting(): boolean;
    /** Called once, when the window is first created. */
    created?(win: BrowserWindowType): void;
  },
): PromptWindow {
  let win: BrowserWindowType | undefined;
  /** Top right of the primary display's work area, no taller than it. */
  const place = () => {
    const area = electron.screen.getPrimaryDisplay().workArea;
    const height = Math.min(PROMPT_SIZE.height, area.height - 32);
    return { width: PROMPT_SIZE.width, height, x: area.x + area.width - PROMPT_SIZE.width - 16, y: area.y + 16 };
  };
  const create = (): BrowserWindowType => {
    const w = new electron.BrowserWindow({
      ...place(),
      minWidth: 360,
      minHeight: 320,
      title: 'Airlock — Action required',
      show: false,
      alwaysOnTop: true,
      skipTaskbar: true,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      webPreferences: { ...SECURE_PREFERENCES, preload: options.preload },
    });
    // Above ordinary windows, below the OS's own alerts and screen savers.
    w.setAlwaysOnTop(true, 'floating');
    lockDown(electron, w);
    // Closing it is "later": it hides, and the request keeps waiting in the app and the tray.
    w.on('close', (event) => {
      if (!options.quitting()) {
        event.preventDefault();
        w.hide();
      }
    });
    void w.loadURL(PROMPT_URL);
    options.created?.(w);
    return w;
  };
  let shownFor: string | undefined;
  return {
    get window() {
      return win;
    },
    update(pending) {
      const head = pending[0];
      const main = options.mainWindow();
      const mainHasIt = main !== undefined && main.isVisible() && main.isFocused();
      if (!head || mainHasIt) {
        if (win && win.isVisible()) win.hide();
        shownFor = undefined;
        return;
      }
      // Once per new head: a person who closed it for this request is not pestered until the next one.
      if (head.id === shownFor) return;
      shownFor = head.id;
      win ??= create();
      // Never takes the focus: what the person types elsewhere stays there.
      win.showInactive();
    },
  };
}
