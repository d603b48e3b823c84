// Being told when an approval waits while the window is hidden or in the
// background: the tray's tooltip and title carry the count, one OS
// notification per new head request replaces the previous one (clicking it
// opens the queue), and the taskbar/dock flashes. Where the OS shows
// notification buttons (macOS), it has two: "Review" (the prompt) and
// "Deny". There is no "Allow" in a notification: a yes is given with the
// request and its evidence in view, in the prompt. If the OS cannot show
// notifications, or one fails to show, the state says so (status.desktop)
// for the Approvals screen to tell the person.
import type { Notification as NotificationType, Tray as TrayType, BrowserWindow } from 'electron';
import { requestTarget, type PendingApproval } from '../../contract/approvals.ts';
import type { ElectronApi } from './electronApi.ts';
import { NAVIGATE_CHANNEL } from '../../contract/ipc.ts';

export interface Attention {
  update(pending: PendingApproval[]): void;
  /** Whether the OS shows our notifications: unsupported here, or one failed to show (Windows: toasts turned off). */
  readonly notifications: 'enabled' | 'unsupported' | 'failed';
  readonly detail: string | undefined;
}

export function trayTooltip(count: number): string {
  return count === 0 ? 'Airlock — nothing waiting' : `Airlock — ${count === 1 ? '1 approval waiting' : `${count} approvals waiting`}`;
}

export function createAttention(
  electron: Pick<ElectronApi, 'Notification' | 'app'>,
  parts: {
    tray: Pick<TrayType, 'setToolTip' | 'setTitle'>;
    window(): Pick<BrowserWindow, 'isVisible' | 'isFocused' | 'flashFrame' | 'show' | 'focus' | 'webContents'> | undefined;
    /** The notification's "Deny" button: denies this request (by the person, from the notification). */
    deny?(id: string): void;
  },
): Attention {
  const supported = electron.Notification.isSupported();
  let shown: NotificationType | undefined;
  let headId: string | undefined;
  let failure: string | undefined;
  return {
    get notifications() {
      return !supported ? 'unsupported' : failure ? 'failed' : 'enabled';
    },
    get detail() {
      return !supported ? 'this system cannot show desktop notifications' : failure;
    },
    update(pending) {
      const count = pending.length;
      parts.tray.setToolTip(trayTooltip(count));
      parts.tray.setTitle(count > 0 ? String(count) : '');
      electron.app.setBadgeCount?.(count);
      const head = pending[0];
      if (!head) {
        shown?.close();
        shown = undefined;
        headId = undefined;
        return;
      }
      if (head.id === headId) return;
      headId = head.id;
      const win = parts.window();
      if (win && win.isVisible() && win.isFocused()) return;
      win?.flashFrame(true);
      if (!supported) return;
      shown?.close();
      const r = head.request;
      const waiting = count > 1 ? ` (${count} waiting)` : '';
      const notification = new electron.Notification({
        // A server's question is its own kind of prompt: what it asks, not an operation to approve.
        title: r.kind === 'server-question' ? `Airlock: MCP server ${r.server} asks you a question` : `Airlock: approve ${requestTarget(r)}?`,
        body:
          r.kind === 'server-question'
            ? `${r.message.slice(0, 200)}${waiting}`
            : `${r.caller.clientName ?? 'A client'} asks to run ${r.operationId}${waiting}.`,
        urgency: 'critical',
        actions: [
          { type: 'button', text: 'Review' },
          { type: 'button', text: 'Deny' },
        ],
      });
      const id = head.id;
      const review = () => {
        const w = parts.window();
        w?.show();
        w?.focus();
        w?.webContents.send(NAVIGATE_CHANNEL, 'approvals');
      };
      notification.on('click', review);
      notification.on('action', (_event: unknown, index: number) => {
        if (index === 1 && parts.deny) parts.deny(id);
        else review();
      });
      notification.on('failed', (_event: unknown, error: string) => {
        failure = `the last notification could not be shown (${error}); notifications may be turned off for Airlock in the system settings`;
      });
      notification.on('show', () => {
        failure = undefined;
      });
      notification.show();
      shown = notification;
    },
  };
}
