// A session's scope: the APIs it may reach, named in the MCP URL's query
// (`/mcp?api=github&api=openagenda`, or `?api=github,openagenda`) for HTTP
// clients and in the joined pipe's upgrade request for `airlock stdio --api`.
// No `api` parameter: every API served. Any other parameter (`API=`,
// `apis=`, a typo) is refused: a scope never widens by mistake. Over HTTP a
// name that matches no served API reaches nothing; a joined `airlock stdio
// --api NAME` is refused at start when the companion serves no API NAME
// (unservedScope), naming the ones it serves — names are exact, and one that
// differs only in case is refused naming the one meant.

import { SCOPE_PARAM } from '../../../contract/scopeUrl.ts';

export { SCOPE_PARAM, withScope } from '../../../contract/scopeUrl.ts';

export type ScopeRead = { ok: true; scope: string[] | undefined } | { ok: false; error: string };

/** The scope a request-target names (undefined: it names none, every API), or why it is refused. */
export function readScope(target: string | undefined): ScopeRead {
  let url: URL;
  try {
    url = new URL(target ?? '/', 'http://127.0.0.1');
  } catch {
    return { ok: false, error: 'the request-target is not a URL' };
  }
  for (const name of url.searchParams.keys()) {
    if (name !== SCOPE_PARAM) {
      return {
        ok: false,
        error: `unknown parameter ${JSON.stringify(name)} in the MCP URL: the only one is "${SCOPE_PARAM}", the APIs a session reaches (…/mcp?api=github&api=openagenda)`,
      };
    }
  }
  const values = url.searchParams.getAll(SCOPE_PARAM);
  if (values.length === 0) return { ok: true, scope: undefined };
  return { ok: true, scope: [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()))] };
}

/** An API the companion serves, as status lists it. */
export interface ServedName {
  name: string;
  id: string;
}

/** One line for each name in the scope that no served API answers to (by profile name or identifier); none when all are served. */
export function unservedScope(scope: readonly string[] | undefined, served: readonly ServedName[], companion: string): string[] {
  if (!scope) return [];
  const lines: string[] = [];
  for (const asked of scope) {
    if (served.some((a) => a.name === asked || a.id === asked)) continue;
    const lower = asked.toLowerCase();
    const meant = served.find((a) => a.name.toLowerCase() === lower || a.id.toLowerCase() === lower);
    lines.push(
      meant
        ? `--api ${asked}: ${companion} serves no API '${asked}'; names are exact: did you mean --api ${meant.name}?`
        : `--api ${asked}: ${companion} serves no API '${asked}' (it serves ${served.map((a) => a.name).join(', ') || 'none'}). Add or enable it for every client (\`airlock apis list\`, \`airlock apis enable ${asked}\`, or the APIs screen), or give one of the names served.`,
    );
  }
  return lines;
}
