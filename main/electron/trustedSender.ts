// Every IPC handler asks this first: the message must come from the main
// frame of one of our windows, showing our own app origin — not an iframe,
// not a page that navigated elsewhere, not another webContents.
import type { IpcMainInvokeEvent } from 'electron';
import { isAppUrl } from './electronApi.ts';

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame !== event.sender.mainFrame) return false;
  return isAppUrl(frame.url);
}
