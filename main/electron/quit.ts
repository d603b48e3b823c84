// Quitting with calls still waiting for a person: say how many will be
// denied, and deny them if the person goes ahead (never leave them to the
// timeout, never approve). Closing the window is not quitting.
import type { Dialog } from 'electron';

export interface QuitGuardDeps {
  pendingCount(): number;
  denyAll(reason: string): number;
  dialog: Pick<Dialog, 'showMessageBoxSync'>;
}

export function quitWarning(count: number): string {
  return count === 1 ? '1 call is waiting for your approval: it will be denied.' : `${count} calls are waiting for your approval: they will be denied.`;
}

/** True when quitting may go ahead (after denying what waits); false to stay. */
export function confirmQuit(deps: QuitGuardDeps): boolean {
  const count = deps.pendingCount();
  if (count === 0) return true;
  const choice = deps.dialog.showMessageBoxSync({
    type: 'warning',
    title: 'Quit Airlock?',
    message: `Quit Airlock? ${quitWarning(count)}`,
    detail: 'MCP clients lose their connection to Airlock until it starts again.',
    buttons: ['Cancel', 'Deny and quit'],
    defaultId: 0,
    cancelId: 0,
  });
  if (choice !== 1) return false;
  deps.denyAll('Airlock was quit before anyone answered');
  return true;
}
