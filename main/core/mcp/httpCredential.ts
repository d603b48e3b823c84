// Who an HTTP request to /mcp is, from the credential it was let in with
// (never from the body): the companion's MCP token, or one of the clients'
// own tokens (clientTokens.ts), and the APIs it may reach. A client token
// with a scope brings it; the request's URL (`?api=`) may narrow it, never
// widen it.
import { createHash } from 'node:crypto';
import type { ClientTokenView } from '../http/clientTokens.ts';
import type { ClientTokenRef } from '../../../contract/approvals.ts';

export interface HttpCredential {
  /** What grants, limits, held runs and sessions are bound to. */
  key: string;
  /** The client's own token, if it came with one: its id, and the name the person gave it (not one the client declares). */
  token?: ClientTokenRef;
  /** The APIs reached (undefined: every API served). */
  scope: string[] | undefined;
}

/** How the caller keys of requests with no session begin: the companion's token, or a client's own. */
const COMPANION_TOKEN = 'http:credential:';
const CLIENT_TOKEN = 'http:client:';

/** Whether a caller key is a 2026-07-28 request's (a credential and scope, no session). */
export function isStatelessCaller(key: string): boolean {
  return key.startsWith(COMPANION_TOKEN) || key.startsWith(CLIENT_TOKEN);
}

export type CredentialRead = { ok: true; credential: HttpCredential } | { ok: false; error: string };

/** A caller reaching named APIs is another caller than one reaching others: its key says which. */
function scopeSuffix(scope: readonly string[] | undefined): string {
  return scope ? `:api=${[...scope].sort().join(',')}` : '';
}

/** The token's fingerprint: never the token. */
function fingerprintOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/**
 * The credential of a request: `authorization` is its header (already checked at the door), `urlScope` what its URL
 * names, `match` the client token store's lookup (absent: no client tokens).
 */
export function readCredential(
  authorization: string | null | undefined,
  urlScope: string[] | undefined,
  match?: (token: string) => ClientTokenView | undefined,
): CredentialRead {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  const client = token ? match?.(token) : undefined;
  if (!client) return { ok: true, credential: { key: `${COMPANION_TOKEN}${fingerprintOf(token)}${scopeSuffix(urlScope)}`, scope: urlScope } };
  const allowed = client.scope;
  if (allowed && urlScope) {
    const outside = urlScope.filter((name) => !allowed.includes(name));
    if (outside.length > 0)
      return {
        ok: false,
        error: `the token of ${client.name} reaches ${allowed.join(', ')} only; the URL names ${outside.join(', ')} too (a URL narrows a token's APIs, never widens them)`,
      };
  }
  const scope = urlScope ?? allowed;
  return { ok: true, credential: { key: `${CLIENT_TOKEN}${client.id}${scopeSuffix(scope)}`, token: { id: client.id, name: client.name }, scope } };
}

/** A hash of a request's Authorization header: what an HTTP session is bound to (another token does not find it). */
export function sessionCredential(authorization: string | undefined): string {
  return createHash('sha256')
    .update(authorization ?? '')
    .digest('hex');
}
