// The IPC side of the ControlApi: one handler per contract method (the
// preload exposes the same names, never a generic invoke). Each checks the
// sender, then goes through the one dispatcher, which validates the payload
// against the contract. Answers are envelopes ({ ok, value } or { ok: false,
// error }), never thrown errors that would lose their code crossing IPC.
// The channel names live in contract/ipc.ts, shared with the preload.
import type { IpcMain } from 'electron';
import { CONTROL_METHODS, type ControlCaller } from '../../contract/control.ts';
import { channelOf } from '../../contract/ipc.ts';
import type { DispatchControl } from '../core/control/dispatch.ts';
import { isTrustedSender } from './trustedSender.ts';

export function registerIpcBridge(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, dispatch: DispatchControl, caller: ControlCaller): () => void {
  for (const method of CONTROL_METHODS) {
    ipcMain.handle(channelOf(method), async (event, input: unknown) => {
      if (!isTrustedSender(event)) return { ok: false, error: { code: 'forbidden', message: 'this frame may not use the Airlock API' } };
      return dispatch(method, input, caller);
    });
  }
  return () => {
    for (const method of CONTROL_METHODS) ipcMain.removeHandler(channelOf(method));
  };
}
