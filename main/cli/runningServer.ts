// Finds the Airlock server running for a data dir (server.json + the control
// token file) and returns a control API client for it.
import { readFileSync } from 'node:fs';
import { dataPaths } from '../core/config/dataDir.ts';
import { AirlockError } from '../core/util/errors.ts';
import { createControlClient, type ControlClient } from '../core/control/controlClient.ts';

import { isAlive, readServerInfo, type ServerInfo } from '../core/config/serverInfo.ts';

export { isAlive, readServerInfo, type ServerInfo };

export function connectToRunningServer(dataDir: string): ControlClient {
  const info = readServerInfo(dataDir);
  if (!info || !isAlive(info.pid)) {
    throw new AirlockError('config', `no running Airlock server for data dir ${dataDir}`, {
      hint: 'start it with `airlock serve` (or open the app), with the same --data-dir',
    });
  }
  let token: string;
  try {
    token = readFileSync(dataPaths(dataDir).controlToken, 'utf8').trim();
  } catch {
    throw new AirlockError('config', `cannot read the control token ${dataPaths(dataDir).controlToken}`, {
      hint: 'it is created by `airlock serve`; run the CLI as the same user',
    });
  }
  return createControlClient(info.url, token);
}

/** The running companion's control client, or undefined when none runs for this data dir. */
export function runningCompanion(dataDir: string): ControlClient | undefined {
  const info = readServerInfo(dataDir);
  return info && isAlive(info.pid) ? connectToRunningServer(dataDir) : undefined;
}
