// Where the API key goes, one entry per auth scheme (config/auth.ts): the
// header, query parameter or cookie that carries it, and how it is written
// there. Every job the gate does with the key reads this one table, so no two
// of them can disagree about a scheme: adding the key to a request (inject),
// showing a person where it goes without showing it (mask), keeping its place
// empty of anything else — the sandbox's values, a redirect's Location —
// (strip, and the names the request builder refuses), and saying when a key
// cannot go out in the scheme's form (HTTP Basic wants username:password).
import type { AuthScheme } from '../config/auth.ts';

/** What a person is shown in place of the key. */
export const MASK = '••••';

/** The key's place under one scheme; the names are what the sandbox may not set (the request builder refuses them). */
export interface CredentialPlacement {
  /** The header that carries the key, lower case (`cookie` for a cookie key). */
  header?: string;
  /** The query parameter that carries the key. */
  query?: string;
  /** The cookie that carries the key, inside the Cookie header. */
  cookie?: string;
  /** What comes before the key in its place: `Bearer `, `Basic `, `NAME=`. */
  prefix: string;
  /** The key as its place holds it (HTTP Basic: base64). */
  encode(key: string): string;
  /** The form a key must have, when the scheme asks for one. */
  form?: { accepts(key: string): boolean; text: string };
}

/** A request's headers and target, as the key is added to them or removed from them. */
export interface Outgoing {
  headers: Record<string, string>;
  /** Path and query relative to the origin, encoded. */
  pathAndQuery: string;
}

const asIs = (key: string) => key;

/** The one switch on the auth scheme: where its key goes and how it is written. */
export function credentialPlacement(auth: AuthScheme): CredentialPlacement {
  switch (auth.type) {
    case 'bearer':
      return { header: 'authorization', prefix: 'Bearer ', encode: asIs };
    case 'basic':
      return {
        header: 'authorization',
        prefix: 'Basic ',
        encode: (key) => Buffer.from(key).toString('base64'),
        form: { accepts: (key) => key.includes(':'), text: 'username:password for HTTP Basic auth' },
      };
    case 'header':
      return { header: auth.name.toLowerCase(), prefix: '', encode: asIs };
    case 'cookie':
      return { header: 'cookie', cookie: auth.name, prefix: `${auth.name}=`, encode: asIs };
    case 'query':
      return { query: auth.name, prefix: '', encode: asIs };
    case 'none':
      return { prefix: '', encode: asIs };
  }
}

/** Inject: the request as it leaves, holding the key in its place, and nothing else there; without a key, as it is. */
export function injectCredential(placement: CredentialPlacement, request: Outgoing, key: string | undefined): Outgoing {
  if (!key) return { headers: { ...request.headers }, pathAndQuery: request.pathAndQuery };
  const out = stripCredential(placement, request);
  const value = `${placement.prefix}${placement.encode(key)}`;
  if (placement.query) return { ...out, pathAndQuery: appendQuery(out.pathAndQuery, placement.query, value) };
  if (placement.cookie) out.headers.cookie = [out.headers.cookie, value].filter(Boolean).join('; ');
  else if (placement.header) out.headers[placement.header] = value;
  return out;
}

/** Mask: the key's header as a person is shown it, MASK where the key goes; undefined when no header carries it (query, none). */
export function maskedCredential(placement: CredentialPlacement): { name: string; value: string } | undefined {
  return placement.header ? { name: placement.header, value: `${placement.prefix}${MASK}` } : undefined;
}

/**
 * A header, query parameter or cookie name as servers may read it: percent-decoded (`+` a space), lower case,
 * without trailing `[…]` groups (`api_key[]`, `api_key[0]`: qs, PHP, Rails), with `.`, space and `-` as `_`
 * (PHP's names, CGI's HTTP_X_API_KEY). Two names with one spelling here may reach a server as one.
 */
export function slotName(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // Not valid percent-encoding: servers read it as written.
  }
  return decoded
    .toLowerCase()
    .replace(/(\[[^\]]*\])+$/, '')
    .replace(/[.\s-]/g, '_');
}

/**
 * Whether a header, query parameter or cookie of this name would sit in the key's place, however a server
 * spells or looks for it: a server may read the key from a query parameter or a header of the key's name, so
 * the name is the key's in every part of the request, not only in the part the scheme puts it in.
 */
export function inKeySlot(placement: Pick<CredentialPlacement, 'header' | 'query' | 'cookie'>, name: string): boolean {
  const slot = placement.cookie ?? placement.query ?? placement.header;
  return slot !== undefined && slotName(name) === slotName(slot);
}

/**
 * Strip: the request with nothing in the key's place — its header dropped, its cookie taken out of the Cookie
 * header, any query parameter in its place removed however it is spelled (`api%5Fkey`, `API_KEY`, `api_key[]`,
 * `;`-separated) — and everything else as written.
 */
export function stripCredential(placement: CredentialPlacement, request: Outgoing): Outgoing {
  const headers = { ...request.headers };
  if (placement.cookie) {
    const rest = withoutCookie(headers.cookie, placement.cookie);
    if (rest === undefined) delete headers.cookie;
    else headers.cookie = rest;
  } else if (placement.header) delete headers[placement.header];
  return { headers, pathAndQuery: withoutKeySlot(placement, request.pathAndQuery) };
}

/** Why a key cannot go out under the scheme (`the key of profile demo must be username:password…`), or undefined. */
export function credentialProblem(placement: CredentialPlacement, key: string | undefined, profile: string): string | undefined {
  return key && placement.form && !placement.form.accepts(key) ? `the key of profile ${profile} must be ${placement.form.text}` : undefined;
}

function appendQuery(pathAndQuery: string, name: string, value: string): string {
  return `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}

/** The query without any pair in the key's place (pairs split at `&` and at `;`, as some servers do); untouched when there is none. */
function withoutKeySlot(placement: CredentialPlacement, pathAndQuery: string): string {
  const at = pathAndQuery.indexOf('?');
  if (at < 0) return pathAndQuery;
  // Each part keeps the separator before it: `a=1&b=2;c` → `a=1`, `&b=2`, `;c`.
  const parts = pathAndQuery.slice(at + 1).split(/(?=[&;])/);
  const kept = parts.filter((part) => !inKeySlot(placement, part.replace(/^[&;]/, '').split('=')[0]!));
  if (kept.length === parts.length) return pathAndQuery;
  const query = kept.join('').replace(/^[&;]/, '');
  return `${pathAndQuery.slice(0, at)}${query ? `?${query}` : ''}`;
}

/** The Cookie header without the cookie `name`: undefined when nothing is left; untouched when it has none. */
function withoutCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  const pairs = header.split(';');
  const kept = pairs.filter((pair) => slotName(pair.split('=')[0]!.trim()) !== slotName(name));
  if (kept.length === pairs.length) return header;
  return kept.length > 0 ? kept.map((pair) => pair.trim()).join('; ') : undefined;
}
