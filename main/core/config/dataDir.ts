// Where Airlock keeps its state. The default is the directory Electron's
// app.getPath('userData') returns for an app named "Airlock", so the desktop
// app and the headless `airlock serve` share one data dir.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, chmodSync } from 'node:fs';

export const APP_NAME = 'Airlock';

export interface PlatformEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

export function defaultDataDir(p: PlatformEnv = { platform: process.platform, env: process.env, home: homedir() }): string {
  switch (p.platform) {
    case 'darwin':
      return join(p.home, 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return join(p.env.APPDATA ?? join(p.home, 'AppData', 'Roaming'), APP_NAME);
    default:
      return join(p.env.XDG_CONFIG_HOME || join(p.home, '.config'), APP_NAME);
  }
}

/** The files Airlock keeps in its data dir, by purpose. */
export function dataPaths(dataDir: string) {
  return {
    root: dataDir,
    settings: join(dataDir, 'settings.json'),
    profiles: join(dataDir, 'profiles'),
    specCache: join(dataDir, 'spec-cache'),
    mcpToken: join(dataDir, 'token'),
    controlToken: join(dataDir, 'control-token'),
    serverInfo: join(dataDir, 'server.json'),
    demo: join(dataDir, 'demo'),
    audit: join(dataDir, 'audit.sqlite'),
    denoDir: join(dataDir, 'deno-cache'),
    secretsFile: join(dataDir, 'secrets.json'),
  };
}
export type DataPaths = ReturnType<typeof dataPaths>;

/** Creates the data dir, private to the user (0700). */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch {
    // Windows: permissions come from the profile directory's ACL.
  }
}
