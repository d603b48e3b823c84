// The renderer's only window onto the main process, bundled into one
// CommonJS file (a sandboxed preload cannot load ESM or relative imports).
// It exposes one named method per control method — generated from the
// contract, never a generic invoke — plus onEvents and onNavigate. The
// channel names come from the contract, shared with main/electron.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CONTROL_METHOD_NAMES } from '../contract/methods.ts';
import { channelOf, EVENTS_CHANNEL, NAVIGATE_CHANNEL } from '../contract/ipc.ts';

const methods = Object.fromEntries(CONTROL_METHOD_NAMES.map((method) => [method, (input: unknown) => ipcRenderer.invoke(channelOf(method), input ?? {})]));

contextBridge.exposeInMainWorld('airlock', {
  ...methods,
  // The batch is passed on as it came; the renderer's adapter validates it against the contract.
  onEvents(listener: (events: unknown) => void): () => void {
    const handler = (_event: IpcRendererEvent, batch: unknown) => listener(batch);
    ipcRenderer.on(EVENTS_CHANNEL, handler);
    return () => ipcRenderer.removeListener(EVENTS_CHANNEL, handler);
  },
  onNavigate(listener: (screen: string) => void): () => void {
    const handler = (_event: IpcRendererEvent, screen: string) => listener(screen);
    ipcRenderer.on(NAVIGATE_CHANNEL, handler);
    return () => ipcRenderer.removeListener(NAVIGATE_CHANNEL, handler);
  },
});
