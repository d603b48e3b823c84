// Writes a request body the way the OpenAPI document says, from the plain
// JSON value sandboxed code passes:
// - JSON (`application/json`, `…+json`): the value as JSON;
// - `application/x-www-form-urlencoded`: one field per property, each as its
//   Encoding Object says — with `style`/`explode` like a query parameter
//   (form: arrays repeat the key, objects spread their fields; deepObject:
//   `a[b][c]=v`, arrays `a[0]=v`, the way Stripe's own libraries write them),
//   otherwise by content type (scalars as text, objects and array items as
//   JSON text, arrays repeating the key; an explicit JSON contentType writes
//   the whole value as JSON); values are never left unencoded (allowReserved
//   only allows that), and null fields are left out;
// - `multipart/form-data`: one part per property (arrays: one part per item),
//   objects as `application/json` parts, fields with a `style` flattened into
//   text parts the same way as a form, files from `{ filename, contentType,
//   base64 | text }` or a string for a binary field;
// - anything else (text, XML, bytes): a string as is, or `{ base64 }` /
//   `{ text }` for bytes.
// What cannot be written that way is refused with what to pass instead.
// Keys keep literal brackets; values are percent-encoded (spaces as %20, which
// every form parser reads as a space).
import { createHash } from 'node:crypto';
import { isJsonMediaType, type ApiEncoding, type ApiMediaType, type ApiRequestBody, type JsonSchema } from './catalogue.ts';
import { isRecord } from '../../../contract/values.ts';

export type EncodedBody = { ok: true; contentType: string; body: Buffer } | { ok: false; message: string };

/** What sandboxed code passes for a file or raw bytes. */
export interface FileValue {
  filename?: string;
  contentType?: string;
  text?: string;
  base64?: string;
}

const FILE_KEYS = new Set(['filename', 'contentType', 'text', 'base64']);
const FILE_HELP = '{ filename, contentType, base64 } (or text instead of base64)';

function scalar(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}

/** `{ base64 }` or `{ text }` with nothing but filename and contentType beside it. */
export function isFileValue(v: unknown): v is FileValue {
  if (!isRecord(v)) return false;
  const keys = Object.keys(v);
  return keys.every((k) => FILE_KEYS.has(k)) && (typeof v.base64 === 'string' || typeof v.text === 'string');
}

function essence(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

/** Whether a concrete media type falls under a (possibly wildcard) one: `image/png` under `image/*`. */
export function mediaTypeMatches(concrete: string, pattern: string): boolean {
  const [ct, cs] = essence(concrete).split('/');
  const [pt, ps] = essence(pattern).split('/');
  return (pt === '*' || pt === ct) && (ps === '*' || ps === cs);
}

const HEADER_SAFE_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\r\n\\]*"))*$/;

function fileBytes(where: string, v: FileValue): Buffer | { error: string } {
  if (v.text !== undefined && v.base64 !== undefined) return { error: `${where}: pass either text or base64, not both` };
  if (v.filename !== undefined && typeof v.filename !== 'string') return { error: `${where}: filename must be a string` };
  if (v.contentType !== undefined && (typeof v.contentType !== 'string' || !HEADER_SAFE_TYPE.test(v.contentType)))
    return { error: `${where}: contentType must be a media type such as "image/png"` };
  if (typeof v.text === 'string') return Buffer.from(v.text, 'utf8');
  const b64 = v.base64!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64) || b64.length % 4 === 1) return { error: `${where}: base64 is not valid base64` };
  return Buffer.from(b64, 'base64');
}

/** The first concrete type of an Encoding Object's contentType (`image/png, image/jpeg` → `image/png`). */
function concreteOf(list: string | undefined): string | undefined {
  return list
    ?.split(',')
    .map((t) => t.trim())
    .find((t) => t && !t.includes('*') && HEADER_SAFE_TYPE.test(t));
}

function jsonListed(list: string | undefined): boolean {
  return !!list && list.split(',').some((t) => isJsonMediaType(t.trim()));
}

/** The property's schema inside an object body schema (allOf parts included). */
function propertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const own = schema.properties?.[name];
  if (own && typeof own === 'object') return own;
  for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const found = propertySchema(part, name);
    if (found) return found;
  }
  return undefined;
}

function isBinarySchema(s: JsonSchema | undefined): boolean {
  return !!s && typeof s === 'object' && (s.format === 'binary' || (typeof s.contentMediaType === 'string' && s.contentEncoding === undefined));
}

function isObjectSchema(s: JsonSchema | undefined): boolean {
  if (!s || typeof s !== 'object') return false;
  const type = Array.isArray(s.type) ? s.type : [s.type];
  return type.includes('object') || (!!s.properties && !type.includes('string'));
}

/** Whether an Encoding Object asks for RFC 6570 serialisation (then its contentType is ignored). */
function styled(enc: ApiEncoding | undefined): boolean {
  return !!enc && (enc.style !== undefined || enc.explode !== undefined || enc.allowReserved !== undefined);
}

/** A field: its name as a top-level key then bracketed segments, and its text. */
interface Field {
  path: string[];
  value: string;
}

/** RFC 6570-style serialisation of one property (query parameter rules; deepObject nests). */
function styledFields(name: string, value: unknown, enc: ApiEncoding): Field[] {
  const style = enc.style ?? 'form';
  const explode = enc.explode ?? style === 'form';
  if (style === 'deepObject') return deepFields([name], value);
  if (Array.isArray(value)) {
    const items = value.filter((v) => v !== undefined && v !== null).map(scalar);
    if (items.length === 0) return [];
    if (explode) return items.map((v) => ({ path: [name], value: v }));
    const sep = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',';
    return [{ path: [name], value: items.join(sep) }];
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (explode) return entries.map(([k, v]) => ({ path: [k], value: scalar(v) }));
    return entries.length === 0 ? [] : [{ path: [name], value: entries.flatMap(([k, v]) => [k, scalar(v)]).join(',') }];
  }
  return [{ path: [name], value: scalar(value) }];
}

/** deepObject: `a[b][c]=v`; arrays by index, `a[0]=x`, `a[1][b]=y` (nulls left out). */
function deepFields(path: string[], value: unknown): Field[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => deepFields([...path, String(i)], v));
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => deepFields([...path, k], v));
  return [{ path, value: scalar(value) }];
}

/**
 * Serialisation by content type (the Encoding Object's contentType, or its
 * defaults): an explicit JSON type writes the whole value as JSON; otherwise
 * arrays repeat the key, objects are JSON text and scalars are text.
 */
function typedFields(name: string, value: unknown, contentType: string | undefined): Field[] | { error: string } {
  if (jsonListed(contentType)) return [{ path: [name], value: JSON.stringify(value) }];
  const fields: Field[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (item === undefined || item === null) continue;
    if (typeof item !== 'object') fields.push({ path: [name], value: scalar(item) });
    else if (!contentType) fields.push({ path: [name], value: JSON.stringify(item) });
    else return { error: `field '${name}' is sent as ${contentType}: pass its text as a string` };
  }
  return fields;
}

function formKey(path: string[]): string {
  const top = encodeURIComponent(path[0]!).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  return (
    top +
    path
      .slice(1)
      .map((s) => `[${encodeURIComponent(s)}]`)
      .join('')
  );
}

function encodeForm(opId: string, value: unknown, media: ApiMediaType): Buffer | { error: string } {
  if (!isRecord(value)) return { error: `${opId} takes a form body: pass a plain object of fields` };
  const pairs: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    const enc = media.encoding?.[name];
    const fields = styled(enc) ? styledFields(name, v, enc!) : typedFields(name, v, enc?.contentType);
    if (!Array.isArray(fields)) return { error: `${opId}: ${fields.error}` };
    for (const f of fields) pairs.push(`${formKey(f.path)}=${encodeURIComponent(f.value)}`);
  }
  return Buffer.from(pairs.join('&'), 'utf8');
}

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** RFC 7578 / WHATWG escaping of a quoted Content-Disposition parameter. */
function quoted(text: string): string {
  return `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

function multipartPart(name: string, item: unknown, enc: ApiEncoding | undefined, schema: JsonSchema | undefined): Part | { error: string } {
  const listed = enc?.contentType;
  if (isFileValue(item) && !isObjectSchema(schema)) {
    const data = fileBytes(`file field '${name}'`, item);
    if (!Buffer.isBuffer(data)) return data;
    return { name, filename: item.filename ?? name, contentType: item.contentType ?? concreteOf(listed) ?? 'application/octet-stream', data };
  }
  if (typeof item === 'string' && isBinarySchema(schema)) {
    return { name, filename: name, contentType: concreteOf(listed) ?? schema?.contentMediaType ?? 'application/octet-stream', data: Buffer.from(item, 'utf8') };
  }
  if (typeof item === 'object') {
    if (listed && !jsonListed(listed)) return { error: `field '${name}' is sent as ${listed}: pass its text as a string` };
    return { name, contentType: listed && jsonListed(listed) ? concreteOf(listed)! : 'application/json', data: Buffer.from(JSON.stringify(item), 'utf8') };
  }
  if (jsonListed(listed)) return { name, contentType: concreteOf(listed)!, data: Buffer.from(JSON.stringify(item), 'utf8') };
  const type = concreteOf(listed);
  return { name, ...(type && essence(type) !== 'text/plain' ? { contentType: type } : {}), data: Buffer.from(scalar(item), 'utf8') };
}

function encodeMultipart(opId: string, value: unknown, media: ApiMediaType): { body: Buffer; boundary: string } | { error: string } {
  if (!isRecord(value)) return { error: `${opId} takes a multipart/form-data body: pass a plain object, one property per part` };
  const parts: Part[] = [];
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    const enc = media.encoding?.[name];
    if (styled(enc)) {
      for (const f of styledFields(name, v, enc!))
        parts.push({
          name:
            f.path[0]! +
            f.path
              .slice(1)
              .map((s) => `[${s}]`)
              .join(''),
          data: Buffer.from(f.value, 'utf8'),
        });
      continue;
    }
    const schema = propertySchema(media.schema, name);
    const many = Array.isArray(v);
    for (const item of many ? v : [v]) {
      if (item === undefined || item === null) continue;
      const part = multipartPart(name, item, enc, many ? schema?.items : schema);
      if ('error' in part) return { error: `${opId}: ${part.error}` };
      parts.push(part);
    }
  }
  const heads = parts.map(
    (p) =>
      `Content-Disposition: form-data; name=${quoted(p.name)}${p.filename !== undefined ? `; filename=${quoted(p.filename)}` : ''}\r\n` +
      (p.contentType ? `Content-Type: ${p.contentType}\r\n` : '') +
      '\r\n',
  );
  // A boundary derived from the content (the same call gives the same bytes), checked to appear nowhere in it.
  const hash = createHash('sha256');
  parts.forEach((p, i) => hash.update(heads[i]!).update(p.data));
  const digest = hash.digest('hex');
  let boundary = `airlock-${digest.slice(0, 32)}`;
  for (let n = 1; parts.some((p, i) => p.data.includes(boundary) || heads[i]!.includes(boundary)); n++) boundary = `airlock-${digest.slice(0, 32)}-${n}`;
  const chunks: Buffer[] = [];
  parts.forEach((p, i) => chunks.push(Buffer.from(`--${boundary}\r\n${heads[i]}`, 'utf8'), p.data, Buffer.from('\r\n')));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), boundary };
}

function structuredType(type: string): boolean {
  const kind = essence(type);
  return isJsonMediaType(kind) || kind === 'application/x-www-form-urlencoded' || kind.startsWith('multipart/');
}

/** The concrete type to send when the document's is a wildcard (`*\/*`, `image/*`). */
function concreteFor(pattern: string, value: unknown): string | undefined {
  if (!pattern.includes('*')) return pattern;
  const candidates = [
    ...(isFileValue(value) && value.contentType ? [value.contentType] : []),
    ...(typeof value === 'object' && !isFileValue(value) ? ['application/json'] : []),
    ...(typeof value === 'string' ? ['text/plain'] : []),
    'application/octet-stream',
  ];
  return candidates.find((c) => mediaTypeMatches(c, pattern));
}

/**
 * The body bytes and Content-Type for a call. `asked` is the content-type
 * header the call set, if any: it picks one of the media types the document
 * offers (refused when it offers no such type).
 */
export function encodeRequestBody(opId: string, requestBody: ApiRequestBody, value: unknown, asked?: string): EncodedBody {
  const offered: ApiMediaType[] =
    Array.isArray(requestBody.content) && requestBody.content.length > 0
      ? requestBody.content
      : [{ contentType: requestBody.contentType, ...(requestBody.schema ? { schema: requestBody.schema } : {}) }];
  // application/octet-stream means any bytes: a call may name the bytes' own type (`application/zip`) instead.
  const bytes = offered.find((m) => essence(m.contentType) === 'application/octet-stream');
  const media =
    asked === undefined ? offered[0]! : (offered.find((m) => mediaTypeMatches(asked, m.contentType)) ?? (bytes && !structuredType(asked) ? bytes : undefined));
  if (!media)
    return {
      ok: false,
      message: `${opId} takes ${offered.map((m) => m.contentType).join(' or ')}, not '${asked}': set that content-type, or leave it out`,
    };
  const type = asked !== undefined && !asked.includes('*') ? asked : concreteFor(media.contentType, value);
  if (!type)
    return {
      ok: false,
      message: `${opId} takes ${media.contentType}: say which type with headers: { "content-type": "…" } or pass ${FILE_HELP}`,
    };
  const kind = essence(type);
  if (isJsonMediaType(kind)) return { ok: true, contentType: type, body: Buffer.from(JSON.stringify(value) ?? 'null', 'utf8') };
  if (kind === 'application/x-www-form-urlencoded') {
    const body = encodeForm(opId, value, media);
    return Buffer.isBuffer(body) ? { ok: true, contentType: type, body } : { ok: false, message: body.error };
  }
  if (kind === 'multipart/form-data') {
    const built = encodeMultipart(opId, value, media);
    return 'error' in built
      ? { ok: false, message: built.error }
      : { ok: true, contentType: `multipart/form-data; boundary=${built.boundary}`, body: built.body };
  }
  if (kind.startsWith('multipart/'))
    return { ok: false, message: `${opId} takes a ${kind} body, which Airlock cannot build (it sends JSON, form, multipart/form-data, text and bytes)` };
  // Text, XML and bytes: a string as is, numbers and booleans as text, { base64 } or { text } as bytes.
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return { ok: true, contentType: type, body: Buffer.from(String(value), 'utf8') };
  if (isFileValue(value)) {
    const data = fileBytes(`${opId}'s body`, value);
    if (!Buffer.isBuffer(data)) return { ok: false, message: data.error };
    const own = value.contentType && (mediaTypeMatches(value.contentType, media.contentType) || media === bytes) ? value.contentType : undefined;
    return { ok: true, contentType: asked ?? own ?? type, body: data };
  }
  return { ok: false, message: `${opId} takes a ${type} body: pass it as a string, or as { base64: "…" } for bytes` };
}
