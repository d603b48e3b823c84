// Turns what sandboxed code passes (`{ path, query, body, headers, cookies }` for one
// catalogue operation) into an upstream HTTP request, serialised as the
// OpenAPI document says: path templating (values percent-encoded, dot
// segments refused, so no value can leave the operation's path), query
// styles (form, spaceDelimited, pipeDelimited, deepObject; explode), header
// parameters, cookies, and the body as its media type and Encoding Object say
// (bodyEncoding.ts). The origin is always the profile's.
import { encodeRequestBody } from '../openapi/bodyEncoding.ts';
import type { ApiOperation, ApiParameter } from '../openapi/catalogue.ts';
import type { ApiCallRequest } from '../sandbox/engine.ts';
import { inKeySlot, type CredentialPlacement } from './credentialPlacement.ts';
import { isRecord } from '../../../contract/values.ts';

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

function scalar(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}

function encodePathValue(name: string, value: unknown): string | { error: string } {
  const parts = Array.isArray(value) ? value.map(scalar) : isRecord(value) ? Object.entries(value).flatMap(([k, v]) => [k, scalar(v)]) : [scalar(value)];
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
  if (isRecord(value)) {
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

/** A call the builder refuses, with what to tell the script. */
class Refused extends Error {}

function refuse(message: string): never {
  throw new Refused(message);
}

/** `query parameter 'a'`, `query parameters 'a', 'b'`. */
function named(noun: string, names: readonly string[]): string {
  return `${noun}${names.length > 1 ? 's' : ''} ${names.map((n) => `'${n}'`).join(', ')}`;
}

/** Refuses a call that gives no value for required parameters: `missing required header 'a' for op`. */
function refuseMissing(noun: string, missing: readonly ApiParameter[], op: ApiOperation, hint = ''): void {
  const names = missing.map((p) => p.name);
  if (names.length > 0) refuse(`missing required ${named(noun, names)} for ${op.id}${hint}`);
}

/** Whether a parameter has no value (null and undefined are not sent). */
function absent(value: unknown): boolean {
  return value === undefined || value === null;
}

type Reserved = Pick<CredentialPlacement, 'header' | 'query' | 'cookie'>;

export function buildUpstreamRequest(
  op: ApiOperation,
  call: ApiCallRequest,
  basePath: string,
  /** The key's place (credentialPlacement.ts): the header, query parameter and cookie the sandbox may not fill. */
  reserved: Reserved = {},
): BuildResult {
  try {
    for (const [key, v] of [
      ['path', call.path],
      ['query', call.query],
      ['headers', call.headers],
      ['cookies', call.cookies],
    ] as const) {
      if (v !== undefined && !isRecord(v)) refuse(`'${key}' must be an object`);
    }
    const path = buildPath(op, call.path ?? {});
    const query = buildQuery(op, call.query ?? {}, reserved);
    const headers = buildHeaders(op, call.headers ?? {}, reserved);
    const cookie = buildCookies(op, call.cookies ?? {}, reserved);
    if (cookie) headers.cookie = cookie;
    const body = buildBody(op, call.body, headers);
    headers.accept ??= 'application/json, */*;q=0.5';
    const prefix = basePath.replace(/\/+$/, '');
    return { ok: true, request: { method: op.method, pathAndQuery: `${prefix}${path}${query ? `?${query}` : ''}`, headers, ...(body ? { body } : {}) } };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: error.message };
    throw error;
  }
}

function paramsIn(op: ApiOperation, where: ApiParameter['in']): ApiParameter[] {
  return op.parameters.filter((p) => p.in === where);
}

/** The operation's path with its values in place, each percent-encoded. */
function buildPath(op: ApiOperation, pathValues: Record<string, unknown>): string {
  const declared = new Set([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!));
  const unknown = Object.keys(pathValues).filter((k) => !declared.has(k));
  if (unknown.length > 0) refuse(`unknown ${named('path parameter', unknown)} for ${op.id} (expected: ${[...declared].join(', ') || 'none'})`);
  let path = op.path;
  for (const name of declared) {
    const value = pathValues[name];
    if (absent(value)) refuse(`missing path parameter '${name}' for ${op.id}: pass { path: { ${name}: … } }`);
    const encoded = encodePathValue(name, value);
    if (typeof encoded !== 'string') refuse(encoded.error);
    path = path.split(`{${name}}`).join(encoded);
  }
  return path;
}

/** The encoded query (no `?`); the key's parameter is refused under every name a value is sent as. */
function buildQuery(op: ApiOperation, queryValues: Record<string, unknown>, reserved: Reserved): string {
  const byName = new Map(paramsIn(op, 'query').map((p) => [p.name, p]));
  const missing = paramsIn(op, 'query').filter((p) => p.required && absent(queryValues[p.name]));
  refuseMissing('query parameter', missing, op);
  const pairs: [string, string][] = [];
  const keyQuery = (name: string) => `query parameter '${name}' carries the API key: Airlock adds it itself`;
  for (const [name, value] of Object.entries(queryValues)) {
    if (inKeySlot(reserved, name)) refuse(keyQuery(name));
    const encoded = encodeQuery(name, value, byName.get(name));
    // Every name a value is sent under counts too: an exploded object sends its fields as parameters of their own.
    const taken = encoded.find(([sent]) => inKeySlot(reserved, sent));
    if (taken) refuse(keyQuery(taken[0]));
    pairs.push(...encoded);
  }
  return pairs.map(encodePair).join('&');
}

/** The script's headers, lower-cased; none that carries transport, identity or the key. */
function buildHeaders(op: ApiOperation, given: Record<string, unknown>, reserved: Reserved): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (isForbiddenHeader(name, reserved.header) || inKeySlot(reserved, name)) refuse(`header '${name}' cannot be set from the sandbox`);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) refuse(`'${name}' is not a valid header name`);
    const text = scalar(value);
    if (/[\r\n\0]/.test(text)) refuse(`header '${name}' has a line break or NUL`);
    headers[name.toLowerCase()] = text;
  }
  const missing = paramsIn(op, 'header').filter(
    (p) => p.required && headers[p.name.toLowerCase()] === undefined && !isForbiddenHeader(p.name, reserved.header),
  );
  refuseMissing('header', missing, op);
  return headers;
}

/** The Cookie header: only the operation's own cookie parameters; the gate adds a credential cookie itself. */
function buildCookies(op: ApiOperation, cookieValues: Record<string, unknown>, reserved: Reserved): string | undefined {
  const declared = new Set(paramsIn(op, 'cookie').map((p) => p.name));
  const stray = Object.keys(cookieValues).filter((k) => !declared.has(k));
  if (stray.length > 0) refuse(`unknown ${named('cookie parameter', stray)} for ${op.id} (expected: ${[...declared].join(', ') || 'none'})`);
  const taken = Object.keys(cookieValues).find((name) => inKeySlot(reserved, name));
  if (taken) refuse(`cookie '${taken}' carries the API key: Airlock adds it itself`);
  const missing = paramsIn(op, 'cookie').filter((p) => p.required && p.name !== reserved.cookie && absent(cookieValues[p.name]));
  refuseMissing('cookie', missing, op, missing[0] && `: pass { cookies: { ${missing[0].name}: … } }`);
  const pairs = Object.entries(cookieValues)
    .filter(([, v]) => !absent(v))
    .map(([k, v]) => `${k}=${encodeURIComponent(scalar(v))}`);
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

/** The body, written as the document says for the media type (bodyEncoding.ts); a content-type header picks one of the offered types. */
function buildBody(op: ApiOperation, value: unknown, headers: Record<string, string>): Buffer | undefined {
  if (value === undefined) {
    if (op.requestBody?.required) refuse(`${op.id} needs a request body: pass { body: … }`);
    return undefined;
  }
  if (!op.requestBody) refuse(`${op.id} takes no request body`);
  const encoded = encodeRequestBody(op.id, op.requestBody, value, headers['content-type']);
  if (!encoded.ok) refuse(encoded.message);
  headers['content-type'] = encoded.contentType;
  return encoded.body;
}
