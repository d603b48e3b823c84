// How the credential is attached to upstream requests: `bearer`, `basic`
// (the key is `username:password`), `header:NAME`, `query:NAME`,
// `cookie:NAME` or `none`. Parsed from one string so it reads the same as a
// flag, an env var and a profile field. A document whose security the gate
// cannot send is refused at start (unsupportedSecurity), never run keyless.

export type AuthScheme =
  | { type: 'bearer' }
  | { type: 'basic' }
  | { type: 'header'; name: string }
  | { type: 'query'; name: string }
  | { type: 'cookie'; name: string }
  | { type: 'none' };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/; // RFC 9110 token: a valid header or query name

export const AUTH_FORMS = 'bearer, basic, header:NAME, query:NAME, cookie:NAME, none';

/** Returns the scheme, or a message naming what is wrong. */
export function parseAuthScheme(value: string): AuthScheme | string {
  const v = value.trim();
  if (v === 'bearer') return { type: 'bearer' };
  if (v === 'basic') return { type: 'basic' };
  if (v === 'none') return { type: 'none' };
  const m = /^(header|query|cookie):(.*)$/.exec(v);
  if (m) {
    const name = m[2]!.trim();
    if (!name || !TOKEN.test(name)) return `'${value}' has an invalid ${m[1]} name (letters, digits and -_. only)`;
    if (m[1] === 'header' && /^(host|content-length|transfer-encoding|connection)$/i.test(name)) return `'${name}' cannot carry a credential`;
    return { type: m[1] as 'header' | 'query' | 'cookie', name };
  }
  return `'${value}' is not an auth scheme (expected ${AUTH_FORMS})`;
}

export function formatAuthScheme(auth: AuthScheme): string {
  return auth.type === 'header' || auth.type === 'query' || auth.type === 'cookie' ? `${auth.type}:${auth.name}` : auth.type;
}

/** The scheme a document declares, for profiles that do not set one. */
export function inferAuthScheme(securitySchemes: Record<string, any>, security: unknown): AuthScheme {
  const names = Array.isArray(security) ? security.flatMap((req) => (req && typeof req === 'object' ? Object.keys(req) : [])) : [];
  const ordered = [...names, ...Object.keys(securitySchemes)];
  for (const name of ordered) {
    const s = securitySchemes[name];
    if (!s || typeof s !== 'object') continue;
    const scheme = supported(s);
    if (scheme) return scheme;
  }
  return { type: 'none' };
}

function supported(s: Record<string, unknown>): AuthScheme | undefined {
  if (s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer') return { type: 'bearer' };
  if (s.type === 'http' && String(s.scheme).toLowerCase() === 'basic') return { type: 'basic' };
  if (s.type === 'oauth2' || s.type === 'openIdConnect') return { type: 'bearer' };
  if (s.type === 'apiKey' && typeof s.name === 'string' && (s.in === 'header' || s.in === 'query' || s.in === 'cookie')) return { type: s.in, name: s.name };
  return undefined;
}

/**
 * When the document requires security and none of the schemes it names can be
 * sent (HTTP Digest, mutual TLS…), what to say at start; undefined otherwise.
 */
export function unsupportedSecurity(securitySchemes: Record<string, any>, security: unknown): string | undefined {
  const required = Array.isArray(security) ? security.flatMap((req) => (req && typeof req === 'object' ? Object.keys(req) : [])) : [];
  if (required.length === 0) return undefined;
  const schemes = required.map((name) => [name, securitySchemes[name]] as const);
  if (schemes.some(([, s]) => s && typeof s === 'object' && supported(s))) return undefined;
  const described = schemes.map(([name, s]) => `${name} (${s ? [s.type, s.scheme ?? s.in].filter(Boolean).join(' ') : 'not defined'})`).join(', ');
  return `the document requires ${described}, which Airlock cannot send (it sends ${AUTH_FORMS})`;
}
