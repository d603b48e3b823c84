// A registration's scope: the APIs a client's session reaches. In a stdio
// registration it is `--api NAME` arguments after `stdio` (the lean path of
// `airlock stdio` takes them); in an HTTP one, the MCP URL's query
// (`/mcp?api=github&api=openagenda`, as mcp/sessionScope.ts reads it). No
// scope: the registration is as before, and its session sees every API the
// companion serves. Names are checked here, so a registration never carries
// a name the session would refuse.
import { API_NAME } from '../../../contract/names.ts';
import { SCOPE_PARAM, withScope } from '../../../contract/scopeUrl.ts';
import { AirlockError } from '../util/errors.ts';
import type { LaunchCommand } from './clientCatalog.ts';

/**
 * The scope to write: each name checked (`flag` names where it came from in the error), duplicates dropped, the
 * order kept. Undefined or empty: no scope (every API).
 */
export function checkScope(apis: readonly string[] | undefined, flag = '--api'): string[] | undefined {
  if (!apis || apis.length === 0) return undefined;
  for (const name of apis) {
    if (!API_NAME.test(name)) {
      throw new AirlockError('usage', `${flag} ${JSON.stringify(name)} is not an API name: 1 to 40 letters, digits, _, $ or -`, {
        hint: 'the names are those of `airlock apis list`',
      });
    }
  }
  return [...new Set(apis)];
}

/** The stdio command with the scope: `--api NAME` for each API, after the command's own arguments. */
export function scopedLaunch(launch: LaunchCommand, scope: readonly string[] | undefined): LaunchCommand {
  const apis = checkScope(scope);
  return apis ? { command: launch.command, args: [...launch.args, ...apis.flatMap((name) => ['--api', name])] } : launch;
}

/** The MCP URL with the scope in its query (`?api=github&api=openagenda`); no scope: the URL as is. */
export function scopedUrl(url: string, scope: readonly string[] | undefined): string {
  return withScope(url, checkScope(scope));
}

/**
 * The scope a registration written in a client's file carries: the `--api` arguments after `stdio` (`--stdio` for
 * the desktop app), `--api NAME`, `--api=NAME` or comma-separated; or the `api` parameters of its URL. Undefined:
 * none (every API).
 */
export function scopeOfEntry(entry: unknown): string[] | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const { args, url } = entry as { args?: unknown; url?: unknown };
  const names: string[] = [];
  if (Array.isArray(args)) {
    const start = args.findIndex((a) => a === 'stdio' || a === '--stdio');
    for (let i = start + 1; start >= 0 && i < args.length; i++) {
      const arg = args[i];
      if (arg === '--api' && typeof args[i + 1] === 'string') names.push(...String(args[++i]).split(','));
      else if (typeof arg === 'string' && arg.startsWith('--api=')) names.push(...arg.slice('--api='.length).split(','));
    }
  } else if (typeof url === 'string') {
    try {
      names.push(...new URL(url).searchParams.getAll(SCOPE_PARAM).flatMap((v) => v.split(',')));
    } catch {
      return undefined;
    }
  }
  const apis = [...new Set(names.map((n) => n.trim()).filter((n) => n !== ''))];
  return apis.length > 0 ? apis : undefined;
}

/** Whether two scopes name the same APIs (order aside); no scope equals no scope only. */
export function sameScope(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((n) => y.has(n));
}
