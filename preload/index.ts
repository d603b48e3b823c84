// The renderer's only window onto the main process, bundled into one
// CommonJS file (a sandboxed preload cannot load ESM or relative imports).
// It exposes one named method per control method — generated from the
// contract, never a generic invoke — plus onEvents and onNavigate.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CONTROL_METHOD_NAMES } from '../contract/methods.ts';

const methods = Object.fromEntries(CONTROL_METHOD_NAMES.map((method) => [method, (input: unknown) => ipcRenderer.invoke(`airlock:${method}`, input ?? {})]));

contextBridge.exposeInMainWorld('airlock', {
  ...methods,
  onEvents(listener: (events: unknown[]) => void): () => void {
    const handler = (_event: IpcRendererEvent, batch: unknown[]) => listener(batch);
    ipcRenderer.on('airlock:events', handler);
    return () => ipcRenderer.removeListener('airlock:events', handler);
  },
  onNavigate(listener: (screen: string) => void): () => void {
    const handler = (_event: IpcRendererEvent, screen: string) => listener(screen);
    ipcRenderer.on('airlock:navigate', handler);
    return () => ipcRenderer.removeListener('airlock:navigate', handler);
  },
});
