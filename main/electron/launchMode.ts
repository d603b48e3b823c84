// What the desktop app was started for, from its command line:
// - `--stdio [--data-dir D] [--api NAME]…`: a client's MCP server (registrations made by
//   the app run the app itself: a stable absolute path that needs no Node on
//   the machine). No window, no tray: MCP on stdin/stdout, joined to the
//   companion (this app, started in the background when it does not run).
// - `--background`: started by `airlock stdio` (or at login) to serve: tray
//   only, no window until the person opens it.
// - otherwise the app as a person opens it.
// `--data-dir D` picks the data dir (default: the app's userData).

export type LaunchMode = { kind: 'stdio'; dataDir?: string; apis?: string[] } | { kind: 'app'; background: boolean; dataDir?: string };

export function launchMode(argv: readonly string[]): LaunchMode {
  const at = argv.indexOf('--data-dir');
  const dataDir = at >= 0 && argv[at + 1] && !argv[at + 1]!.startsWith('--') ? argv[at + 1] : undefined;
  const withDir = dataDir ? { dataDir } : {};
  if (argv.includes('--stdio')) {
    // --api NAME (repeatable, or comma-separated): the session's scope, as `airlock stdio --api` takes it.
    const apis = argv.flatMap((a, i) => (a === '--api' && argv[i + 1] && !argv[i + 1]!.startsWith('--') ? argv[i + 1]!.split(',') : []));
    return { kind: 'stdio', ...withDir, ...(apis.length > 0 ? { apis } : {}) };
  }
  return { kind: 'app', background: argv.includes('--background'), ...withDir };
}

/** The command a client registration runs when the packaged app registers it: the app's own executable. */
export function appStdioLaunch(execPath: string, dataDir: string, defaultDataDir: string): { command: string; args: string[] } {
  return { command: execPath, args: ['--stdio', ...(dataDir !== defaultDataDir ? ['--data-dir', dataDir] : [])] };
}
