// A session's scope: the APIs it may reach, named in the MCP URL's query
// (`/mcp?api=github&api=openagenda`, or `?api=github,openagenda`) for HTTP
// clients and in the joined pipe's upgrade request for `airlock stdio --api`.
// No `api` parameter: every API served. A name that matches no served API
// reaches nothing, and any other parameter (`API=`, `apis=`, a typo) is
// refused: a scope never widens by mistake.

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
