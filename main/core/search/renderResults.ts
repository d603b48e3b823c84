// search_docs' answer text, modulated by rank: the best hits as full cards
// (exact call, parameters, body, response, a runnable example), the tail as
// one line each, the whole within a byte budget.
import { isJsonMediaType, type ApiOperation, type ApiParameter, type ApiRequestBody, type Catalogue, type JsonSchema } from '../openapi/catalogue.ts';
import { describeParamSchema, listedValues, mergeAllOf, schemaShape } from '../openapi/schemaShape.ts';
import { terms } from './textProcessing.ts';
import type { SearchHit } from './operationSearch.ts';
import { plainText } from './plainText.ts';
import { isFileValue } from '../openapi/bodyEncoding.ts';

export interface RenderOptions {
  /** How many hits get a full card. */
  full?: number;
  /** Upper bound of the whole answer, in bytes (UTF-8). */
  budget?: number;
  /** The profile's alias for `api` (e.g. `oa`), accepted in code samples. */
  alias?: string;
  /** The name calls are written with: `api` (the default) when a session reaches one API, else the API's own name. */
  client?: string;
}

/** One hit of a search over several APIs: the operation, its API's catalogue, and the name its calls are written with. */
export interface PlacedHit extends SearchHit {
  catalogue: Catalogue;
  client: string;
  /** How a hit that is not an API operation (another MCP server's tool) is shown: its card, its one line. */
  render?: { card(rank: number): string; line(): string };
}

/** The exact call of an operation, written with the session's name for its API. */
export function callOf(op: ApiOperation, client = 'api'): string {
  return [client, ...op.callPath].join('.');
}

const CARD_BUDGETS = [3600, 2000, 1600];
/** The longest response shape a compact card shows (bytes, roughly). */
const RETURNS_MAX = 1200;

export function renderSearchResults(query: string, hits: SearchHit[], catalogue: Catalogue, options: RenderOptions = {}): string {
  if (hits.length === 0) return noMatch(catalogue.title, query);
  const placed = hits.map((h) => ({ ...h, catalogue, client: options.client ?? 'api' }));
  return renderPlaced(query, placed, `${hits.length} operation${hits.length === 1 ? '' : 's'} of ${catalogue.title}`, options);
}

/** The results of one search over several APIs, best first whatever their API; each call names its API. */
export function renderScopedResults(query: string, hits: PlacedHit[], titles: string[], options: RenderOptions = {}): string {
  if (hits.length === 0) return noMatch(titles.join(', '), query);
  return renderPlaced(query, hits, `${hits.length} operation${hits.length === 1 ? '' : 's'} across ${titles.join(', ')}`, options);
}

function noMatch(where: string, query: string): string {
  return `No operation of ${where} matches "${query}". Try other words (an action and a resource, e.g. "list events", "delete location"), or fewer of them.`;
}

function renderPlaced(query: string, hits: PlacedHit[], what: string, options: RenderOptions): string {
  const budget = options.budget ?? 7800;
  const full = options.full ?? 3;
  const queryTerms = new Set(terms(query));
  const head = `${what} for "${query}", best first. Call them in \`execute\`: each method resolves to { data, error, status } and never throws on HTTP errors.\n`;
  const out: string[] = [head];
  let used = bytes(head);
  const tail: string[] = [];
  hits.forEach((hit, rank) => {
    if (rank < full && hit.render) {
      const card = fitCard(hit.render.card(rank), CARD_BUDGETS[rank] ?? 1500);
      if (used + bytes(card) + 1 <= budget) {
        out.push(card);
        used += bytes(card) + 1;
        return;
      }
    } else if (rank < full) {
      const max = CARD_BUDGETS[rank] ?? 1500;
      const cardOptions = { ...options, client: hit.client };
      const whole = renderCard(hit.op, rank, hit.catalogue, queryTerms, cardOptions);
      // A card over its share gets a compact response shape first, so the example stays in.
      const card = fitCard(bytes(whole) > max ? renderCard(hit.op, rank, hit.catalogue, queryTerms, cardOptions, true) : whole, max);
      if (used + bytes(card) + 1 <= budget) {
        out.push(card);
        used += bytes(card) + 1;
        return;
      }
    }
    tail.push(hit.render ? hit.render.line() : oneLine(hit.op, hit.client));
  });
  if (tail.length > 0) {
    let section = '\nAlso relevant:\n';
    for (const line of tail) {
      if (used + bytes(section) + bytes(line) + 1 > budget) break;
      section += line + '\n';
    }
    if (section.includes('- ')) out.push(section);
  }
  return out.join('\n').trimEnd() + '\n';
}

function bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function oneLine(op: ApiOperation, client: string): string {
  return `- ${callOf(op, client)} — ${op.method} ${op.path}${op.summary ? ` — ${flat(op.summary, 90)}` : ''}`;
}

function flat(text: string, max: number): string {
  const one = plainText(text)
    .replace(/\s+/g, ' ')
    .replace(/[*`]/g, (m) => (m === '`' ? '' : ''))
    .trim();
  return one.length > max ? one.slice(0, max - 1).replace(/\s+\S*$/, '') + '…' : one;
}

/** Cuts a card at a line boundary when it exceeds its share of the budget. */
function fitCard(card: string, max: number): string {
  if (bytes(card) <= max) return card;
  const lines = card.split('\n');
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + bytes(line) + 1 > max - 40) break;
    kept.push(line);
    size += bytes(line) + 1;
  }
  return kept.join('\n') + '\n  … (card shortened; search for this operation alone for the rest)';
}

/**
 * Cards are a function of the operation, whether it ranks first (which sets
 * the detail), the compact flag, the alias and which parameters the query
 * makes notable: the same card is rendered once and kept with the operation
 * (a WeakMap, so it goes with the catalogue). Only the heading carries the rank.
 */
const cardCache = new WeakMap<ApiOperation, Map<string, string>>();

function renderCard(op: ApiOperation, rank: number, catalogue: Catalogue, queryTerms: Set<string>, options: RenderOptions, compact = false): string {
  const maxNotable = rank === 0 ? 12 : 6;
  const notable = new Map<ApiParameter['in'], { params: ApiParameter[]; notable: ApiParameter[] }>();
  for (const where of ['path', 'query', 'header', 'cookie'] as const) {
    const params = op.parameters.filter((p) => p.in === where && !isCredential(p, catalogue));
    if (params.length > 0) notable.set(where, { params, notable: pickNotable(params, queryTerms, maxNotable) });
  }
  const key = [
    rank === 0 ? 'first' : 'other',
    compact ? 'compact' : 'full',
    options.alias ?? '',
    options.client ?? 'api',
    ...[...notable.values()].map((n) => (n.notable.length === n.params.length ? '*' : n.notable.map((p) => p.name).join(','))),
  ].join('\u0000');
  let cards = cardCache.get(op);
  if (!cards) cardCache.set(op, (cards = new Map()));
  let rest = cards.get(key);
  if (rest === undefined) {
    rest = cardBody(op, rank === 0, catalogue, notable, options, compact);
    cards.set(key, rest);
  }
  return `## ${rank + 1}. ${callOf(op, options.client)} — ${op.method} ${op.path}${op.deprecated ? ' (deprecated)' : ''}\n${rest}`;
}

function cardBody(
  op: ApiOperation,
  first: boolean,
  catalogue: Catalogue,
  notableByIn: Map<ApiParameter['in'], { params: ApiParameter[]; notable: ApiParameter[] }>,
  options: RenderOptions,
  compact: boolean,
): string {
  const refNames = catalogue.refNames;
  const lines: string[] = [];
  const summary = op.summary ? flat(op.summary, 200) : '';
  const description = op.description ? flat(op.description, first ? 420 : 220) : '';
  if (summary || description) lines.push([summary, description && description !== summary ? description : ''].filter(Boolean).join('. '));
  if (op.mutation) lines.push("Mutation: needs approval under the profile's policy.");
  lines.push(`Call: await ${callOf(op, options.client)}(${callArgsSkeleton(op, catalogue)})`);

  for (const [where, { params, notable }] of notableByIn) {
    lines.push(
      `${where[0]!.toUpperCase()}${where.slice(1)} parameters${params.length > notable.length ? ` (${notable.length} of ${params.length} shown)` : ''}:`,
    );
    for (const p of notable) lines.push(`  ${paramLine(p, refNames, first ? 110 : 70)}`);
    const rest = params.filter((p) => !notable.includes(p)).map((p) => p.name);
    if (rest.length > 0) lines.push(`  also: ${rest.join(', ')}`);
  }
  const body = shownBody(op);
  if (body) {
    const shape = schemaShape(body.schema, { refNames, depth: first ? 2 : 1, omit: 'readOnly', maxProps: first ? 16 : 10 });
    lines.push(`Body (${body.contentType}${body.required ? ', required' : ''}): ${shape}`);
    lines.push(...howToPass(body));
  }
  const ok = op.responses.find((r) => /^2/.test(r.status));
  if (ok) {
    const name = ok.schema ? refNames.get(ok.schema) : undefined;
    // Compact: a huge response shape (unions of large objects) would push the example out of the card: shallower, then cut.
    const shapeAt = (depth: number) => (ok.schema ? schemaShape(ok.schema, { refNames, depth, omit: 'writeOnly', maxProps: 10 }) : 'no body');
    let shape = shapeAt(first ? 2 : 1);
    if (compact && bytes(shape) > RETURNS_MAX && first) shape = shapeAt(1);
    if (compact && bytes(shape) > RETURNS_MAX) shape = shape.slice(0, RETURNS_MAX).replace(/[;|,]?\s*[^;|,]*$/, '') + ' …';
    lines.push(`Returns ${ok.status}${name ? ` ${name}` : ''}: ${shape}`);
  }
  const errors = op.responses.filter((r) => !/^2/.test(r.status)).map((r) => r.status);
  if (errors.length > 0 && first) lines.push(`Errors: ${errors.join(', ')} (in \`error\`, with \`status\`)`);
  lines.push('Example:');
  lines.push(indent(example(op, options, catalogue)));
  return lines.join('\n') + '\n';
}

function paramLine(p: ApiParameter, refNames: WeakMap<object, string>, descMax: number): string {
  const type = describeParamSchema(p.schema, { refNames, maxEnum: 10, ...(p.description !== undefined ? { description: p.description } : {}) });
  const desc = p.description ? ` — ${flat(p.description, descMax)}` : '';
  return `${p.name}${p.required ? ' (required)' : ''}: ${type}${p.deprecated ? ' (deprecated)' : ''}${desc}`;
}

/** A parameter's words (name, enum and listed values), kept with the parameter. */
const wordsOfParam = new WeakMap<ApiParameter, string[]>();
function paramWords(p: ApiParameter): string[] {
  let words = wordsOfParam.get(p);
  if (!words) {
    words = terms(`${p.name} ${enumText(p.schema)} ${(p.schema && listedValues(p.schema, p.description)?.values.join(' ')) ?? ''}`);
    wordsOfParam.set(p, words);
  }
  return words;
}

/** Required ones, then those the query mentions, then those with enums or defaults, in document order. */
function pickNotable(params: ApiParameter[], queryTerms: Set<string>, max: number): ApiParameter[] {
  const score = (p: ApiParameter): number => {
    if (p.required) return 3;
    if (paramWords(p).some((w) => queryTerms.has(w))) return 2;
    if (p.deprecated) return -1;
    return 0;
  };
  const ranked = params.map((p, i) => ({ p, i, s: score(p) })).sort((a, b) => b.s - a.s || a.i - b.i);
  const chosen = new Set(ranked.slice(0, max).map((r) => r.p));
  return params.filter((p) => chosen.has(p));
}

function enumText(schema: JsonSchema | undefined): string {
  if (!schema) return '';
  const values = [...(Array.isArray(schema.enum) ? schema.enum : []), ...(Array.isArray(schema.items?.enum) ? schema.items.enum : [])];
  return values.filter((v) => typeof v === 'string').join(' ');
}

/** A parameter the document also declares as its API key: Airlock sends it; the card never asks for it. */
function isCredential(p: ApiParameter, catalogue: Catalogue): boolean {
  if (p.in === 'path') return false;
  return Object.values(catalogue.securitySchemes).some(
    (s) => s && typeof s === 'object' && s.type === 'apiKey' && s.in === p.in && String(s.name).toLowerCase() === p.name.toLowerCase(),
  );
}

/** Required header and cookie parameters: what the call must carry besides path, query and body. */
function requiredExtras(op: ApiOperation, catalogue: Catalogue, where: 'header' | 'cookie'): ApiParameter[] {
  return op.parameters.filter((p) => p.in === where && p.required && !isCredential(p, catalogue));
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function callArgsSkeleton(op: ApiOperation, catalogue: Catalogue): string {
  const parts: string[] = [];
  const path = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  if (path.length > 0) parts.push(`path: { ${path.join(', ')} }`);
  const query = op.parameters.filter((p) => p.in === 'query');
  if (query.length > 0) {
    const req = query.filter((p) => p.required).map((p) => p.name);
    parts.push(`query: { ${[...req, ...(query.length > req.length ? ['…'] : [])].join(', ')} }`);
  }
  const headers = requiredExtras(op, catalogue, 'header');
  if (headers.length > 0) parts.push(`headers: { ${headers.map((p) => propertyKey(p.name)).join(', ')} }`);
  const cookies = requiredExtras(op, catalogue, 'cookie');
  if (cookies.length > 0) parts.push(`cookies: { ${cookies.map((p) => propertyKey(p.name)).join(', ')} }`);
  if (shownBody(op)) parts.push('body');
  return parts.length > 0 ? `{ ${parts.join(', ')} }` : '';
}

function indent(code: string): string {
  return code
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** The document's JS/TS sample for this call when it has one, else a generated skeleton. */
function example(op: ApiOperation, options: RenderOptions, catalogue: Catalogue): string {
  const client = options.client ?? 'api';
  // One API: `api` and its alias are both its client. Several: only the API's own name is.
  const receivers = new Set(client === 'api' ? ['api', ...(options.alias ? [options.alias] : [])] : [client]);
  const callRe = new RegExp(`\\b([A-Za-z_$][\\w$]*)\\.${op.callPath.map(escapeRe).join('\\.')}\\s*\\(`);
  for (const sample of op.codeSamples) {
    if (!/^(js|javascript|ts|typescript|node)/i.test(sample.lang)) continue;
    const m = callRe.exec(sample.source);
    if (!m) continue;
    const source = receivers.has(m[1]!) ? sample.source : sample.source.replace(new RegExp(`\\b${escapeRe(m[1]!)}\\.`, 'g'), `${client}.`);
    return source.length > 900 ? source.slice(0, 900) + '\n// …' : source;
  }
  return generatedExample(op, catalogue, client);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function generatedExample(op: ApiOperation, catalogue: Catalogue, client: string): string {
  const fields: string[] = [];
  const path = op.parameters.filter((p) => p.in === 'path');
  if (path.length > 0) fields.push(`path: { ${path.map((p) => `${p.name}: ${sampleValue(p.schema, p.example, p.description)}`).join(', ')} }`);
  const query = op.parameters.filter((p) => p.in === 'query' && p.required);
  if (query.length > 0) fields.push(`query: { ${query.map((p) => `${p.name}: ${sampleValue(p.schema, p.example, p.description)}`).join(', ')} }`);
  for (const [where, key] of [
    ['header', 'headers'],
    ['cookie', 'cookies'],
  ] as const) {
    const extras = requiredExtras(op, catalogue, where);
    // Header values are strings on the wire; cookies take the parameter's own type.
    if (extras.length > 0)
      fields.push(
        `${key}: { ${extras.map((p) => `${propertyKey(p.name)}: ${where === 'header' ? JSON.stringify(String(p.example ?? p.schema?.example ?? p.schema?.enum?.[0] ?? '…')) : sampleValue(p.schema, p.example)}`).join(', ')} }`,
      );
  }
  const body = shownBody(op);
  if (body) fields.push(`body: ${documentExample(body) ?? sampleBody(body)}`);
  const args = fields.length > 0 ? `{\n  ${fields.join(',\n  ')},\n}` : '';
  return `const { data, error } = await ${callOf(op, client)}(${args});\nif (error) throw new Error(JSON.stringify(error));\nreturn data;`;
}

function sampleValue(schema: JsonSchema | undefined, example?: unknown, description?: string): string {
  if (example !== undefined) return JSON.stringify(example);
  if (!schema) return '"…"';
  if (schema.example !== undefined) return JSON.stringify(schema.example);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return JSON.stringify(schema.examples[0]);
  if (schema.default !== undefined) return JSON.stringify(schema.default);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return JSON.stringify(schema.enum[0]);
  if (schema.format === 'binary') return FILE_SAMPLE;
  const listed = listedValues(schema, description);
  if (listed) return listed.array ? `[${JSON.stringify(listed.values[0])}]` : JSON.stringify(listed.values[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'true';
    case 'array':
      return `[${sampleValue(schema.items)}]`;
    case 'object':
      return '{}';
    default:
      return schema.format === 'date-time' ? '"2025-01-01T00:00:00Z"' : schema.format === 'date' ? '"2025-01-01"' : '"…"';
  }
}

/** The document's own request example, when it is small enough to show whole and fits its media type (text and bytes are strings). */
function documentExample(body: ApiRequestBody): string | undefined {
  const example = body.example;
  if (example === undefined) return undefined;
  const kind = essence(body.contentType);
  const structured = isJsonMediaType(kind) || kind === 'application/x-www-form-urlencoded' || kind === 'multipart/form-data';
  if (!structured && typeof example !== 'string' && !isFileValue(example)) return undefined;
  const json = JSON.stringify(example);
  return json !== undefined && json.length <= 400 ? json : undefined;
}

function sampleBody(body: ApiRequestBody): string {
  const schema = body.schema;
  const kind = essence(body.contentType);
  if (!isJsonMediaType(kind) && kind !== 'application/x-www-form-urlencoded' && kind !== 'multipart/form-data')
    return isTextual(kind) ? '"…"' : `{ base64: "…", contentType: ${JSON.stringify(kind.includes('*') ? 'application/octet-stream' : kind)} }`;
  if (!schema) return '{}';
  if (schema.example !== undefined && JSON.stringify(schema.example).length < 300) return JSON.stringify(schema.example);
  const s = Array.isArray(schema.allOf) ? mergeAllOf(schema) : schema;
  const required: string[] = Array.isArray(s.required) ? s.required : [];
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).filter(([k, v]) => required.includes(k) && !v?.readOnly);
  if (props.length === 0) return '{ /* see Body above */ }';
  return `{ ${props
    .slice(0, 8)
    .map(
      ([k, v]) =>
        `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${kind === 'multipart/form-data' && looksLikeFile(k, v) ? FILE_SAMPLE : sampleValue(v, undefined, v?.description)}`,
    )
    .join(', ')} }`;
}

const FILE_SAMPLE = '{ filename: "file.txt", contentType: "text/plain", text: "…" }';

/** A multipart field that takes a file: binary, or a plain string field named like one (Stripe's `file` is `type: string`). */
function looksLikeFile(name: string, schema: JsonSchema | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (schema.format === 'binary' || (typeof schema.contentMediaType === 'string' && schema.contentEncoding === undefined)) return true;
  return schema.type === 'string' && !schema.format && !schema.enum && /^(?:files?|uploads?|attachments?|documents?|images?|photos?|media)$/i.test(name);
}

function essence(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

function isTextual(kind: string): boolean {
  return kind.startsWith('text/') || /[/+]xml$/.test(kind);
}

/** The body a card shows: none when the document defines none, or one that can carry nothing (an empty object closed to extra fields, as Stripe's GETs declare). */
function shownBody(op: ApiOperation): ApiRequestBody | undefined {
  const body = op.requestBody;
  if (!body || body.required) return body;
  const s = body.schema && Array.isArray(body.schema.allOf) ? mergeAllOf(body.schema) : body.schema;
  const empty =
    !!s &&
    s.additionalProperties === false &&
    Object.keys(s.properties ?? {}).length === 0 &&
    !s.oneOf &&
    !s.anyOf &&
    !s.patternProperties &&
    (s.type === undefined || s.type === 'object');
  return empty ? undefined : body;
}

/** How to pass a body that is not plain JSON, said the way the egress gate will write it (bodyEncoding.ts). */
function howToPass(body: ApiRequestBody): string[] {
  const kind = essence(body.contentType);
  const lines: string[] = [];
  if (kind === 'application/x-www-form-urlencoded') {
    const rules = fieldRules(body, false);
    lines.push(`  Pass a plain object; Airlock sends it form-encoded${rules.length > 0 ? `: ${rules.join('; ')}` : ''}.`);
  } else if (kind === 'multipart/form-data') {
    const rules = fieldRules(body, true);
    lines.push(
      `  Pass a plain object, one part per field${rules.length > 0 ? ` (${rules.join('; ')})` : ''}; a file is { filename, contentType, base64 } (or text instead of base64), or a plain string for a binary field.`,
    );
  } else if (!isJsonMediaType(kind)) {
    lines.push(isTextual(kind) ? '  Pass the text as a string.' : '  Pass the bytes as { base64, contentType } (or a string of text).');
  }
  const others = (body.content ?? []).slice(1).map((m) => m.contentType);
  if (others.length > 0) lines.push(`  Also takes ${others.join(', ')}: set headers: { "content-type": … } to send one.`);
  return lines;
}

/** What the Encoding Object does to this body's structured fields, in a few words each. */
function fieldRules(body: ApiRequestBody, multipart: boolean): string[] {
  const s = body.schema && Array.isArray(body.schema.allOf) ? mergeAllOf(body.schema) : body.schema;
  const rules = new Set<string>();
  for (const [name, prop] of Object.entries((s?.properties ?? {}) as Record<string, JsonSchema>)) {
    const kinds = structuredKinds(prop);
    if (kinds.size === 0) continue;
    const enc = body.encoding?.[name];
    const styled = !!enc && (enc.style !== undefined || enc.explode !== undefined || enc.allowReserved !== undefined);
    if (styled) {
      const style = enc.style ?? 'form';
      const explode = enc.explode ?? style === 'form';
      if (style === 'deepObject')
        rules.add(multipart ? 'objects and arrays nest as key[sub] and key[0] parts' : 'objects and arrays nest as key[sub]=v, key[0]=v');
      else if (kinds.has('array'))
        rules.add(explode ? 'arrays repeat the key' : `arrays as key=a${style === 'pipeDelimited' ? '|' : style === 'spaceDelimited' ? ' ' : ','}b`);
      else rules.add(explode ? 'object fields become top-level fields' : 'objects as key=k1,v1,k2,v2');
    } else if (enc?.contentType && enc.contentType.split(',').some((t) => isJsonMediaType(t.trim()))) {
      rules.add(`${name} as JSON${multipart ? '' : ' text'}`);
    } else if (kinds.has('array') && !kinds.has('objectItems')) {
      rules.add(multipart ? 'arrays as one part per item' : 'arrays repeat the key (key=a&key=b)');
    } else {
      rules.add(multipart ? 'objects as JSON parts' : 'objects as JSON text');
    }
  }
  return [...rules];
}

function structuredKinds(schema: JsonSchema | undefined): Set<string> {
  const kinds = new Set<string>();
  if (!schema || typeof schema !== 'object') return kinds;
  for (const branch of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as JsonSchema[]) {
    const type = branch?.type ?? (branch?.properties ? 'object' : branch?.items ? 'array' : undefined);
    if (type === 'object') kinds.add('object');
    if (type === 'array') {
      kinds.add('array');
      const item = branch.items;
      if (item && (item.type === 'object' || item.properties)) kinds.add('objectItems');
    }
  }
  return kinds;
}
