// The tray icon: always there while the companion runs, its tooltip and
// title carrying the approval count; its menu opens the window or quits.
import { join } from 'node:path';
import type { Tray as TrayType } from 'electron';
import type { ElectronApi } from './electronApi.ts';

export function createTray(electron: Pick<ElectronApi, 'Tray' | 'Menu' | 'nativeImage'>, options: { resources: string; open(): void; quit(): void }): TrayType {
  const icon = electron.nativeImage.createFromPath(join(options.resources, 'tray', 'trayTemplate.png'));
  const tray = new electron.Tray(icon);
  tray.setToolTip('Airlock');
  tray.setContextMenu(
    electron.Menu.buildFromTemplate([{ label: 'Open Airlock', click: options.open }, { type: 'separator' }, { label: 'Quit Airlock', click: options.quit }]),
  );
  tray.on('click', options.open);
  return tray;
}
