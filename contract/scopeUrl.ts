// How an MCP URL names a session's scope, the APIs it reaches:
// `/mcp?api=github&api=openagenda`. Written by registrations (clients) and
// the joining stdio, read by the companion's endpoints (mcp/sessionScope.ts).
// No zod: both sides use it on their way in.

/** The one query parameter of the MCP URL. */
export const SCOPE_PARAM = 'api';

/** The URL with a scope in its query, replacing any there (none given: the URL as is). */
export function withScope(url: string, scope: readonly string[] | undefined): string {
  if (!scope || scope.length === 0) return url;
  const u = new URL(url);
  u.searchParams.delete(SCOPE_PARAM);
  for (const name of scope) u.searchParams.append(SCOPE_PARAM, name);
  return u.toString();
}
