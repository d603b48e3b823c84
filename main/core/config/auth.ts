// How the credential is attached to upstream requests: `bearer`,
// `header:NAME`, `query:NAME` or `none`. Parsed from one string so it reads
// the same as a flag, an env var and a profile field.

export type AuthScheme = { type: 'bearer' } | { type: 'header'; name: string } | { type: 'query'; name: string } | { type: 'none' };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/; // RFC 9110 token: a valid header or query name

export const AUTH_FORMS = 'bearer, header:NAME, query:NAME, none';

/** Returns the scheme, or a message naming what is wrong. */
export function parseAuthScheme(value: string): AuthScheme | string {
  const v = value.trim();
  if (v === 'bearer') return { type: 'bearer' };
  if (v === 'none') return { type: 'none' };
  const m = /^(header|query):(.*)$/.exec(v);
  if (m) {
    const name = m[2]!.trim();
    if (!name || !TOKEN.test(name)) return `'${value}' has an invalid ${m[1]} name (letters, digits and -_. only)`;
    if (m[1] === 'header' && /^(host|content-length|transfer-encoding|connection)$/i.test(name)) return `'${name}' cannot carry a credential`;
    return { type: m[1] as 'header' | 'query', name };
  }
  return `'${value}' is not an auth scheme (expected ${AUTH_FORMS})`;
}

export function formatAuthScheme(auth: AuthScheme): string {
  return auth.type === 'header' || auth.type === 'query' ? `${auth.type}:${auth.name}` : auth.type;
}

/** The scheme a document declares, for profiles that do not set one. */
export function inferAuthScheme(securitySchemes: Record<string, any>, security: unknown): AuthScheme {
  const names = Array.isArray(security) ? security.flatMap((req) => (req && typeof req === 'object' ? Object.keys(req) : [])) : [];
  const ordered = [...names, ...Object.keys(securitySchemes)];
  for (const name of ordered) {
    const s = securitySchemes[name];
    if (!s || typeof s !== 'object') continue;
    if (s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer') return { type: 'bearer' };
    if (s.type === 'oauth2' || s.type === 'openIdConnect') return { type: 'bearer' };
    if (s.type === 'apiKey' && typeof s.name === 'string' && (s.in === 'header' || s.in === 'query')) {
      return { type: s.in, name: s.name };
    }
  }
  return { type: 'none' };
}
