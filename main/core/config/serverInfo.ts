// server.json in the data dir: where the companion that holds it serves, and
// whether its process is alive. Read by the CLI's control commands and by the
// stdio forwarder that joins the companion.
import { readFileSync } from 'node:fs';
import { dataPaths } from './dataDir.ts';

/** What server.json in the data dir says while a companion serves. */
export interface ServerInfo {
  pid: number;
  port: number;
  url: string;
  mcpUrl: string;
  version: string;
  /** The API the command named, when it named one (the companion may serve several). */
  profile?: string;
  startedAt: string;
}

export function readServerInfo(dataDir: string): ServerInfo | undefined {
  try {
    return JSON.parse(readFileSync(dataPaths(dataDir).serverInfo, 'utf8')) as ServerInfo;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
