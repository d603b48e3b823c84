// What a client registration runs to reach the companion over stdio: the
// `airlock` command with Node, or the desktop app's own executable.
import { CLI_ENTRY } from '../util/installPaths.ts';
import { shellQuote } from '../../../contract/values.ts';

type StdioLauncher = (dataDir: string, defaultDataDir?: string) => { command: string; args: string[] };
let launcher: StdioLauncher | undefined;
let launcherTakesScope = true;

/**
 * The desktop app registers clients with its own executable (`--stdio`): no Node needed, a path that stays put.
 * `scope`: whether that command honours `--api NAME` (a session's scope); until it says so, a registration with a
 * scope is refused rather than written to a command that would ignore it.
 */
export function useStdioLauncher(fn: StdioLauncher, options: { scope?: boolean } = {}): void {
  launcher = fn;
  launcherTakesScope = options.scope === true;
}

/** Whether the command registrations run takes `--api NAME` (`airlock stdio` does). */
export function stdioLaunchTakesScope(): boolean {
  return !launcher || launcherTakesScope;
}

/** What a client config runs to reach this companion over stdio: absolute paths, no secret. */
export function stdioLaunch(dataDir: string, defaultDataDir?: string): { command: string; args: string[] } {
  if (launcher) return launcher(dataDir, defaultDataDir);
  return { command: process.execPath, args: [CLI_ENTRY, 'stdio', ...(defaultDataDir && dataDir !== defaultDataDir ? ['--data-dir', dataDir] : [])] };
}

/** The same, as one shell line. */
export function stdioCommand(dataDir: string, defaultDataDir?: string): string {
  const launch = stdioLaunch(dataDir, defaultDataDir);
  return [launch.command, ...launch.args].map(shellQuote).join(' ');
}
