// Where a stdio server's command would be found when it starts: an absolute
// path as it is, a bare name in each directory of PATH (with Windows'
// PATHEXT). Used to warn when a server is added whose command is not there —
// it would fail at its first start — not to refuse it: the person may
// install the command afterwards.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface LookupOptions {
  platform?: NodeJS.Platform;
  /** Windows: the extensions tried (PATHEXT). */
  pathext?: string;
}

function runnable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file the command runs, or undefined when it is not found. */
export function findCommand(command: string, path: string | undefined, options: LookupOptions = {}): string | undefined {
  const platform = options.platform ?? process.platform;
  const extensions = platform === 'win32' ? ['', ...(options.pathext ?? process.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  const candidates = isAbsolute(command)
    ? [command]
    : (path ?? '')
        .split(platform === 'win32' ? ';' : delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    for (const ext of extensions) if (runnable(candidate + ext, platform)) return candidate + ext;
  }
  return undefined;
}

/** The warning for a command that is not found, or undefined when it is. */
export function missingCommandWarning(command: string, path: string | undefined): string | undefined {
  if (findCommand(command, path)) return undefined;
  return isAbsolute(command)
    ? `${command} does not exist or is not executable: the server will fail to start until it is there`
    : `'${command}' is not found on the PATH a server is started with: the server will fail to start until it is installed there (or give its absolute path)`;
}
