// search_docs' answer text, modulated by rank: the best hits as full cards
// (exact call, parameters, body, response, a runnable example), the tail as
// one line each, the whole within a byte budget.
import type { ApiOperation, ApiParameter, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import { describeParamSchema, mergeAllOf, schemaShape } from '../openapi/schemaShape.ts';
import { terms } from './textProcessing.ts';
import type { SearchHit } from './operationSearch.ts';
import { plainText } from './plainText.ts';

export interface RenderOptions {
  /** How many hits get a full card. */
  full?: number;
  /** Upper bound of the whole answer, in bytes (UTF-8). */
  budget?: number;
  /** The profile's alias for `api` (e.g. `oa`), accepted in code samples. */
  alias?: string;
}

const CARD_BUDGETS = [3600, 2000, 1600];

export function renderSearchResults(query: string, hits: SearchHit[], catalogue: Catalogue, options: RenderOptions = {}): string {
  const budget = options.budget ?? 7800;
  const full = options.full ?? 3;
  if (hits.length === 0) {
    return `No operation of ${catalogue.title} matches "${query}". Try other words (an action and a resource, e.g. "list events", "delete location"), or fewer of them.`;
  }
  const queryTerms = new Set(terms(query));
  const head = `${hits.length} operation${hits.length === 1 ? '' : 's'} of ${catalogue.title} for "${query}", best first. Call them in \`execute\`: each method resolves to { data, error, status } and never throws on HTTP errors.\n`;
  const out: string[] = [head];
  let used = bytes(head);
  const tail: string[] = [];
  hits.forEach((hit, rank) => {
    if (rank < full) {
      const card = fitCard(renderCard(hit.op, rank, catalogue, queryTerms, options), CARD_BUDGETS[rank] ?? 1500);
      if (used + bytes(card) + 1 <= budget) {
        out.push(card);
        used += bytes(card) + 1;
        return;
      }
    }
    tail.push(oneLine(hit.op));
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

function oneLine(op: ApiOperation): string {
  return `- ${op.call} — ${op.method} ${op.path}${op.summary ? ` — ${flat(op.summary, 90)}` : ''}`;
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

function renderCard(op: ApiOperation, rank: number, catalogue: Catalogue, queryTerms: Set<string>, options: RenderOptions): string {
  const refNames = catalogue.refNames;
  const lines: string[] = [];
  lines.push(`## ${rank + 1}. ${op.call} — ${op.method} ${op.path}${op.deprecated ? ' (deprecated)' : ''}`);
  const summary = op.summary ? flat(op.summary, 200) : '';
  const description = op.description ? flat(op.description, rank === 0 ? 420 : 220) : '';
  if (summary || description) lines.push([summary, description && description !== summary ? description : ''].filter(Boolean).join('. '));
  if (op.mutation) lines.push("Mutation: needs approval under the profile's policy.");
  lines.push(`Call: await ${op.call}(${callArgsSkeleton(op, catalogue)})`);

  const byIn = (where: ApiParameter['in']) => op.parameters.filter((p) => p.in === where);
  const maxNotable = rank === 0 ? 12 : 6;
  for (const where of ['path', 'query', 'header', 'cookie'] as const) {
    const params = byIn(where).filter((p) => !isCredential(p, catalogue));
    if (params.length === 0) continue;
    const notable = pickNotable(params, queryTerms, maxNotable);
    lines.push(
      `${where[0]!.toUpperCase()}${where.slice(1)} parameters${params.length > notable.length ? ` (${notable.length} of ${params.length} shown)` : ''}:`,
    );
    for (const p of notable) lines.push(`  ${paramLine(p, refNames, rank === 0 ? 110 : 70)}`);
    const rest = params.filter((p) => !notable.includes(p)).map((p) => p.name);
    if (rest.length > 0) lines.push(`  also: ${rest.join(', ')}`);
  }
  if (op.requestBody) {
    const schema = op.requestBody.schema;
    const shape = schemaShape(schema, { refNames, depth: rank === 0 ? 2 : 1, omit: 'readOnly', maxProps: rank === 0 ? 16 : 10 });
    lines.push(`Body (${op.requestBody.contentType}${op.requestBody.required ? ', required' : ''}): ${shape}`);
  }
  const ok = op.responses.find((r) => /^2/.test(r.status));
  if (ok) {
    const name = ok.schema ? refNames.get(ok.schema) : undefined;
    const shape = ok.schema ? schemaShape(ok.schema, { refNames, depth: rank === 0 ? 2 : 1, omit: 'writeOnly', maxProps: 10 }) : 'no body';
    lines.push(`Returns ${ok.status}${name ? ` ${name}` : ''}: ${shape}`);
  }
  const errors = op.responses.filter((r) => !/^2/.test(r.status)).map((r) => r.status);
  if (errors.length > 0 && rank === 0) lines.push(`Errors: ${errors.join(', ')} (in \`error\`, with \`status\`)`);
  lines.push('Example:');
  lines.push(indent(example(op, options.alias, catalogue)));
  return lines.join('\n') + '\n';
}

function paramLine(p: ApiParameter, refNames: WeakMap<object, string>, descMax: number): string {
  const type = describeParamSchema(p.schema, { refNames, maxEnum: 10 });
  const desc = p.description ? ` — ${flat(p.description, descMax)}` : '';
  return `${p.name}${p.required ? ' (required)' : ''}: ${type}${p.deprecated ? ' (deprecated)' : ''}${desc}`;
}

/** Required ones, then those the query mentions, then those with enums or defaults, in document order. */
function pickNotable(params: ApiParameter[], queryTerms: Set<string>, max: number): ApiParameter[] {
  const score = (p: ApiParameter): number => {
    if (p.required) return 3;
    const words = terms(`${p.name} ${enumText(p.schema)}`);
    if (words.some((w) => queryTerms.has(w))) return 2;
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
  if (op.requestBody) parts.push('body');
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
function example(op: ApiOperation, alias: string | undefined, catalogue: Catalogue): string {
  const receivers = new Set(['api', ...(alias ? [alias] : [])]);
  const callRe = new RegExp(`\\b([A-Za-z_$][\\w$]*)\\.${op.callPath.map(escapeRe).join('\\.')}\\s*\\(`);
  for (const sample of op.codeSamples) {
    if (!/^(js|javascript|ts|typescript|node)/i.test(sample.lang)) continue;
    const m = callRe.exec(sample.source);
    if (!m) continue;
    const source = receivers.has(m[1]!) ? sample.source : sample.source.replace(new RegExp(`\\b${escapeRe(m[1]!)}\\.`, 'g'), 'api.');
    return source.length > 900 ? source.slice(0, 900) + '\n// …' : source;
  }
  return generatedExample(op, catalogue);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function generatedExample(op: ApiOperation, catalogue: Catalogue): string {
  const fields: string[] = [];
  const path = op.parameters.filter((p) => p.in === 'path');
  if (path.length > 0) fields.push(`path: { ${path.map((p) => `${p.name}: ${sampleValue(p.schema, p.example)}`).join(', ')} }`);
  const query = op.parameters.filter((p) => p.in === 'query' && p.required);
  if (query.length > 0) fields.push(`query: { ${query.map((p) => `${p.name}: ${sampleValue(p.schema, p.example)}`).join(', ')} }`);
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
  if (op.requestBody) fields.push(`body: ${documentExample(op.requestBody.example) ?? sampleBody(op.requestBody.schema)}`);
  const args = fields.length > 0 ? `{\n  ${fields.join(',\n  ')},\n}` : '';
  return `const { data, error } = await ${op.call}(${args});\nif (error) throw new Error(JSON.stringify(error));\nreturn data;`;
}

function sampleValue(schema: JsonSchema | undefined, example?: unknown): string {
  if (example !== undefined) return JSON.stringify(example);
  if (!schema) return '"…"';
  if (schema.example !== undefined) return JSON.stringify(schema.example);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return JSON.stringify(schema.examples[0]);
  if (schema.default !== undefined) return JSON.stringify(schema.default);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return JSON.stringify(schema.enum[0]);
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

/** The document's own request example, when it is small enough to show whole. */
function documentExample(example: unknown): string | undefined {
  if (example === undefined) return undefined;
  const json = JSON.stringify(example);
  return json !== undefined && json.length <= 400 ? json : undefined;
}

function sampleBody(schema: JsonSchema | undefined): string {
  if (!schema) return '{}';
  if (schema.example !== undefined && JSON.stringify(schema.example).length < 300) return JSON.stringify(schema.example);
  const s = Array.isArray(schema.allOf) ? mergeAllOf(schema) : schema;
  const required: string[] = Array.isArray(s.required) ? s.required : [];
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).filter(([k, v]) => required.includes(k) && !v?.readOnly);
  if (props.length === 0) return '{ /* see Body above */ }';
  return `{ ${props
    .slice(0, 8)
    .map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${sampleValue(v)}`)
    .join(', ')} }`;
}
