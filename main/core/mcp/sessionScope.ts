// A session's scope: the APIs it may reach, named in the MCP URL's query
// (`/mcp?api=github&api=openagenda`, or `?api=github,openagenda`) for HTTP
// clients and in the joined pipe's upgrade request for `airlock stdio --api`.
// No `api` parameter: every API served. A name that matches no served API
// reaches nothing: a scope never widens by mistake.

export const SCOPE_PARAM = 'api';

/** The scope a request-target names; undefined when it names none (every API). */
export function scopeFromUrl(target: string | undefined): string[] | undefined {
  const url = new URL(target ?? '/', 'http://127.0.0.1');
  const values = url.searchParams.getAll(SCOPE_PARAM);
  if (values.length === 0) return undefined;
  return [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()))];
}

/** The URL with a scope in its query (none given: the URL as is). */
export function withScope(url: string, scope: readonly string[] | undefined): string {
  if (!scope || scope.length === 0) return url;
  const u = new URL(url);
  u.searchParams.delete(SCOPE_PARAM);
  for (const name of scope) u.searchParams.append(SCOPE_PARAM, name);
  return u.toString();
}
