// What a client registration runs to reach the companion over stdio: the
// `airlock` command with Node, or the desktop app's own executable.
import { CLI_ENTRY } from '../util/installPaths.ts';

type StdioLauncher = (dataDir: string, defaultDataDir?: string) => { command: string; args: string[] };
let launcher: StdioLauncher | undefined;

/** The desktop app registers clients with its own executable (`--stdio`): no Node needed, a path that stays put. */
export function useStdioLauncher(fn: StdioLauncher): void {
  launcher = fn;
}

/** What a client config runs to reach this companion over stdio: absolute paths, no secret. */
export function stdioLaunch(dataDir: string, defaultDataDir?: string): { command: string; args: string[] } {
  if (launcher) return launcher(dataDir, defaultDataDir);
  return { command: process.execPath, args: [CLI_ENTRY, 'stdio', ...(defaultDataDir && dataDir !== defaultDataDir ? ['--data-dir', dataDir] : [])] };
}

export const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The same, as one shell line. */
export function stdioCommand(dataDir: string, defaultDataDir?: string): string {
  const launch = stdioLaunch(dataDir, defaultDataDir);
  return [launch.command, ...launch.args].map(shellQuote).join(' ');
}
