// The registrar for this machine and data dir: the real home, PATH and
// platform, backups in the data dir, the stdio command of this install, and
// client CLIs run as child processes. Used by the CLI and the Clients screen.
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { dataPaths, defaultDataDir } from '../config/dataDir.ts';
import { stdioLaunch, stdioLaunchTakesScope } from './stdioLaunch.ts';
import { which } from '../sandbox/subprocess/hostTools.ts';
import { createRegistrar, type Registrar } from './registrar.ts';
import type { LaunchCommand } from './clientCatalog.ts';
import { scopedLaunch } from './registrationScope.ts';

/** The command a registration for this data dir runs; with a scope, `--api NAME` for each API it reaches. */
export function launchFor(dataDir: string, apis?: readonly string[]): LaunchCommand {
  return scopedLaunch(stdioLaunch(dataDir, defaultDataDir()), apis);
}

export function machineRegistrar(dataDir: string): Registrar {
  return createRegistrar({
    env: { home: homedir(), platform: process.platform, env: process.env },
    backupDir: dataPaths(dataDir).clientBackups,
    launch: launchFor(dataDir),
    scopable: stdioLaunchTakesScope(),
    which: (bin) => which(bin, process.env.PATH ?? ''),
    runCli: (path, args) =>
      new Promise((resolve) => {
        const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        child.on('error', (error) => resolve({ code: 127, stdout, stderr: error.message }));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      }),
  });
}
