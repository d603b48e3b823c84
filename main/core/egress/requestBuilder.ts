// Turns what sandboxed code passes (`{ path, query, body, headers, cookies }` for one
// catalogue operation) into an upstream HTTP request, serialised as the
// OpenAPI document says: path templating (values percent-encoded, dot
// segments refused, so no value can leave the operation's path), query
// styles (form, spaceDelimited, pipeDelimited, deepObject; explode), header
// parameters, cookies, and the body as its media type and Encoding Object say
// (bodyEncoding.ts). The origin is always the profile's.
import { encodeRequestBody } from './bodyEncoding.ts';
import type { ApiOperation, ApiParameter } from '../openapi/catalogue.ts';
import type { ApiCallRequest } from '../sandbox/engine.ts';

export interface UpstreamRequest {
  method: string;
  /** Path and query, relative to the origin, already encoded. */
  pathAndQuery: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export type BuildResult = { ok: true; request: UpstreamRequest } | { ok: false; message: string };

/** Headers sandboxed code may never set (transport, identity, credentials). */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'keep-alive',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'authorization',
  'cookie',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-real-ip',
]);

export function isForbiddenHeader(name: string, credentialHeader?: string): boolean {
  const n = name.toLowerCase();
  return FORBIDDEN_HEADERS.has(n) || n.startsWith('proxy-') || n.startsWith('sec-') || (credentialHeader !== undefined && n === credentialHeader.toLowerCase());
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function scalar(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}

function encodePathValue(name: string, value: unknown): string | { error: string } {
  const parts = Array.isArray(value) ? value.map(scalar) : isPlainObject(value) ? Object.entries(value).flatMap(([k, v]) => [k, scalar(v)]) : [scalar(value)];
  for (const p of parts) {
    if (p === '') return { error: `path parameter '${name}' is empty` };
    if (p === '.' || p === '..') return { error: `path parameter '${name}' cannot be '${p}'` };
  }
  return parts.map((p) => encodeURIComponent(p)).join(',');
}

function encodeQuery(name: string, value: unknown, param: ApiParameter | undefined): [string, string][] {
  if (value === undefined || value === null) return [];
  const style = param?.style ?? 'form';
  const explode = param?.explode ?? style === 'form';
  if (Array.isArray(value)) {
    const items = value.filter((v) => v !== undefined && v !== null).map(scalar);
    if (items.length === 0) return [];
    if (explode && (style === 'form' || style === 'spaceDelimited' || style === 'pipeDelimited')) return items.map((v) => [name, v]);
    const sep = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',';
    return [[name, items.join(sep)]];
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (style === 'deepObject') return entries.map(([k, v]) => [`${name}[${k}]`, scalar(v)]);
    if (explode) return entries.map(([k, v]) => [k, scalar(v)]);
    return [[name, entries.flatMap(([k, v]) => [k, scalar(v)]).join(',')]];
  }
  return [[name, scalar(value)]];
}

function encodePair([k, v]: [string, string]): string {
  return `${encodeURIComponent(k).replace(/%5B/gi, '[').replace(/%5D/gi, ']')}=${encodeURIComponent(v)}`;
}

export function buildUpstreamRequest(
  op: ApiOperation,
  call: ApiCallRequest,
  basePath: string,
  options: { credentialHeader?: string; credentialQuery?: string; credentialCookie?: string } = {},
): BuildResult {
  for (const [key, v] of [
    ['path', call.path],
    ['query', call.query],
    ['headers', call.headers],
    ['cookies', call.cookies],
  ] as const) {
    if (v !== undefined && !isPlainObject(v)) return { ok: false, message: `'${key}' must be an object` };
  }
  const params = (where: ApiParameter['in']) => op.parameters.filter((p) => p.in === where);

  // Path
  const pathValues = call.path ?? {};
  const declared = new Set([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!));
  const unknown = Object.keys(pathValues).filter((k) => !declared.has(k));
  if (unknown.length > 0)
    return {
      ok: false,
      message: `unknown path parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')} for ${op.id} (expected: ${[...declared].join(', ') || 'none'})`,
    };
  let path = op.path;
  for (const name of declared) {
    const value = pathValues[name];
    if (value === undefined || value === null) return { ok: false, message: `missing path parameter '${name}' for ${op.id}: pass { path: { ${name}: … } }` };
    const encoded = encodePathValue(name, value);
    if (typeof encoded !== 'string') return { ok: false, message: encoded.error };
    path = path.split(`{${name}}`).join(encoded);
  }

  // Query
  const queryValues = call.query ?? {};
  const byName = new Map(params('query').map((p) => [p.name, p]));
  const missing = params('query').filter((p) => p.required && (queryValues[p.name] === undefined || queryValues[p.name] === null));
  if (missing.length > 0)
    return {
      ok: false,
      message: `missing required query parameter${missing.length > 1 ? 's' : ''} ${missing.map((p) => `'${p.name}'`).join(', ')} for ${op.id}`,
    };
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(queryValues)) {
    if (options.credentialQuery && name === options.credentialQuery)
      return { ok: false, message: `query parameter '${name}' carries the API key: Airlock adds it itself` };
    pairs.push(...encodeQuery(name, value, byName.get(name)));
  }

  // Headers
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (isForbiddenHeader(name, options.credentialHeader)) return { ok: false, message: `header '${name}' cannot be set from the sandbox` };
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return { ok: false, message: `'${name}' is not a valid header name` };
    const text = scalar(value);
    if (/[\r\n\0]/.test(text)) return { ok: false, message: `header '${name}' has a line break or NUL` };
    headers[name.toLowerCase()] = text;
  }
  const missingHeaders = params('header').filter(
    (p) => p.required && headers[p.name.toLowerCase()] === undefined && !isForbiddenHeader(p.name, options.credentialHeader),
  );
  if (missingHeaders.length > 0)
    return {
      ok: false,
      message: `missing required header${missingHeaders.length > 1 ? 's' : ''} ${missingHeaders.map((p) => `'${p.name}'`).join(', ')} for ${op.id}`,
    };

  // Cookies: only the operation's own cookie parameters; the gate adds a credential cookie itself.
  const cookieValues = call.cookies ?? {};
  const declaredCookies = new Set(params('cookie').map((p) => p.name));
  const strayCookies = Object.keys(cookieValues).filter((k) => !declaredCookies.has(k));
  if (strayCookies.length > 0)
    return {
      ok: false,
      message: `unknown cookie parameter${strayCookies.length > 1 ? 's' : ''} ${strayCookies.map((c) => `'${c}'`).join(', ')} for ${op.id} (expected: ${[...declaredCookies].join(', ') || 'none'})`,
    };
  if (options.credentialCookie && Object.hasOwn(cookieValues, options.credentialCookie))
    return { ok: false, message: `cookie '${options.credentialCookie}' carries the API key: Airlock adds it itself` };
  const missingCookies = params('cookie').filter(
    (p) => p.required && p.name !== options.credentialCookie && (cookieValues[p.name] === undefined || cookieValues[p.name] === null),
  );
  if (missingCookies.length > 0)
    return {
      ok: false,
      message: `missing required cookie${missingCookies.length > 1 ? 's' : ''} ${missingCookies.map((p) => `'${p.name}'`).join(', ')} for ${op.id}: pass { cookies: { ${missingCookies[0]!.name}: … } }`,
    };
  const cookiePairs = Object.entries(cookieValues)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${encodeURIComponent(scalar(v))}`);
  if (cookiePairs.length > 0) headers.cookie = cookiePairs.join('; ');

  // Body: written as the document says for the media type (bodyEncoding.ts); a content-type header picks one of the offered types.
  let body: Buffer | undefined;
  if (call.body !== undefined) {
    if (!op.requestBody) return { ok: false, message: `${op.id} takes no request body` };
    const encoded = encodeRequestBody(op.id, op.requestBody, call.body, headers['content-type']);
    if (!encoded.ok) return { ok: false, message: encoded.message };
    body = encoded.body;
    headers['content-type'] = encoded.contentType;
  } else if (op.requestBody?.required) {
    return { ok: false, message: `${op.id} needs a request body: pass { body: … }` };
  }
  headers.accept ??= 'application/json, */*;q=0.5';

  const query = pairs.map(encodePair).join('&');
  const prefix = basePath.replace(/\/+$/, '');
  return { ok: true, request: { method: op.method, pathAndQuery: `${prefix}${path}${query ? `?${query}` : ''}`, headers, ...(body ? { body } : {}) } };
}
