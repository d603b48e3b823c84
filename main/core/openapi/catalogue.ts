// The operation catalogue: every operation of a (dereferenced) OpenAPI
// document, with the call path the sandbox client exposes, its parameters,
// request body, success response and code samples. Built once per profile;
// search, rendering, the sandbox client and the egress gate all read it.
import { callPathFromOperationId, callPathFromRoute, resolveCallPathCollisions } from './callPath.ts';
import type { OpenApiDocument } from './loadDocument.ts';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = Uppercase<(typeof HTTP_METHODS)[number]>;
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export type JsonSchema = Record<string, any>;

export interface ApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema?: JsonSchema;
  deprecated: boolean;
  style?: string;
  explode?: boolean;
  example?: unknown;
}

/** How one property of a form or multipart body is written (the OpenAPI Encoding Object, without its part headers). */
export interface ApiEncoding {
  contentType?: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
}

/** One media type a request body may be sent as. */
export interface ApiMediaType {
  contentType: string;
  schema?: JsonSchema;
  /** Form and multipart bodies: how each property is written, by property name. */
  encoding?: Record<string, ApiEncoding>;
}

export interface ApiRequestBody {
  required: boolean;
  /** The media type sent unless the call asks for another offered one (JSON first, then the document's order). */
  contentType: string;
  schema?: JsonSchema;
  encoding?: Record<string, ApiEncoding>;
  /** Every media type the document offers, the default one first. */
  content: ApiMediaType[];
  description?: string;
  /** The document's own example of this body (media type `example`, or the first of `examples`). */
  example?: unknown;
}

export interface ApiResponse {
  status: string;
  description?: string;
  contentType?: string;
  schema?: JsonSchema;
}

export interface CodeSample {
  lang: string;
  label?: string;
  source: string;
}

export interface ApiOperation {
  /**
   * What the sandbox client, the gate, search and the audit call it: the
   * operationId; `operationId#2`, `#3`… for later operations that repeat an
   * earlier one's operationId (document order, so stable); a synthesized
   * `METHOD /path` when the document gives none.
   */
  id: string;
  hasOperationId: boolean;
  /** The operationId as the document wrote it (it may repeat across operations). */
  operationId?: string;
  callPath: string[];
  /** `api.agendas.events.list` */
  call: string;
  method: HttpMethod;
  path: string;
  summary?: string;
  description?: string;
  tags: string[];
  parameters: ApiParameter[];
  requestBody?: ApiRequestBody;
  /** The first 2xx response (what `data` holds), then the documented errors. */
  responses: ApiResponse[];
  codeSamples: CodeSample[];
  synonyms: string[];
  deprecated: boolean;
  /** Not GET/HEAD/OPTIONS, or marked `x-airlock-mutation: true` in the document. */
  mutation: boolean;
}

export interface Catalogue {
  title: string;
  version: string;
  description?: string;
  servers: string[];
  operations: ApiOperation[];
  refNames: WeakMap<object, string>;
  /** Problems found while building it (e.g. repeated operationIds), to log once at load. */
  warnings: string[];
  securitySchemes: Record<string, JsonSchema>;
  byId(id: string): ApiOperation | undefined;
  byCall(call: string): ApiOperation | undefined;
  /** The operation a request targets; `pathname` is relative to the base URL's path. */
  match(method: string, pathname: string): ApiOperation | undefined;
}

interface RouteMatcher {
  op: ApiOperation;
  regex: RegExp;
  literalSegments: number;
}

export function buildCatalogue(document: OpenApiDocument, refNames: WeakMap<object, string> = new WeakMap()): Catalogue {
  const drafts: Omit<ApiOperation, 'callPath' | 'call'>[] = [];
  const candidates: string[][] = [];
  const seenIds = new Map<string, number>();
  const repeated = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!item || typeof item !== 'object') continue;
    const shared = asArray(item.parameters);
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!op || typeof op !== 'object') continue;
      const method = m.toUpperCase() as HttpMethod;
      const hasOperationId = typeof op.operationId === 'string' && op.operationId.trim().length > 0;
      const tags = asArray(op.tags).filter((t): t is string => typeof t === 'string');
      const operationId = hasOperationId ? (op.operationId as string).trim() : undefined;
      let id = operationId ?? `${method} ${path}`;
      const seen = (seenIds.get(id) ?? 0) + 1;
      seenIds.set(id, seen);
      if (seen > 1) {
        repeated.set(id, [...(repeated.get(id) ?? []), `${method} ${path}`]);
        id = `${id}#${seen}`;
      }
      drafts.push({
        id,
        hasOperationId,
        ...(operationId ? { operationId } : {}),
        method,
        path,
        ...(str(op.summary) !== undefined ? { summary: str(op.summary)! } : {}),
        ...(str(op.description) !== undefined ? { description: str(op.description)! } : {}),
        tags,
        parameters: mergeParameters(shared, asArray(op.parameters)),
        ...requestBodyOf(op.requestBody),
        responses: responsesOf(op.responses),
        codeSamples: codeSamplesOf(op['x-codeSamples'] ?? op['x-code-samples']),
        synonyms: asArray(op['x-synonyms']).filter((s): s is string => typeof s === 'string'),
        deprecated: op.deprecated === true,
        mutation: !READ_METHODS.has(method) || op['x-airlock-mutation'] === true,
      });
      candidates.push(hasOperationId ? callPathFromOperationId(op.operationId) : callPathFromRoute(method, path, tags[0]));
    }
  }
  const paths = resolveCallPathCollisions(candidates);
  const operations: ApiOperation[] = drafts.map((d, i) => ({ ...d, callPath: paths[i]!, call: ['api', ...paths[i]!].join('.') }));

  return catalogueFromData(
    {
      title: str(document.info?.title) ?? 'API',
      version: str(document.info?.version) ?? '',
      ...(str(document.info?.description) !== undefined ? { description: str(document.info?.description)! } : {}),
      servers: asArray(document.servers)
        .map((s) => (s && typeof s.url === 'string' ? expandServerVariables(s.url, s.variables) : undefined))
        .filter((u): u is string => !!u),
      operations,
      warnings: [...repeated].map(
        ([id, others]) =>
          `operationId '${id}' is used by ${others.length + 1} operations; the later ones are called ${others.map((o, i) => `'${id}#${i + 2}' (${o})`).join(', ')}`,
      ),
      securitySchemes: (document.components?.securitySchemes ?? {}) as Record<string, JsonSchema>,
    },
    refNames,
  );
}

/** What a catalogue holds, as plain data (structured-clonable: the on-disk cache stores it). */
export type CatalogueData = Omit<Catalogue, 'byId' | 'byCall' | 'match' | 'refNames'>;

/** A catalogue from its data: the lookups by id, call path and route are built here (the routes on first use). */
export function catalogueFromData(data: CatalogueData, refNames: WeakMap<object, string>): Catalogue {
  const { operations } = data;
  const ids = new Map(operations.map((o) => [o.id, o] as const));
  const calls = new Map(operations.map((o) => [o.call, o] as const));
  let matchers: RouteMatcher[] | undefined;
  return {
    ...data,
    refNames,
    byId: (id) => ids.get(id),
    byCall: (call) => calls.get(call.startsWith('api.') ? call : `api.${call}`),
    match(method, pathname) {
      matchers ??= operations
        .map((op) => ({ op, regex: templateRegex(op.path), literalSegments: op.path.split('/').filter((s) => s && !s.includes('{')).length }))
        .sort((a, b) => b.literalSegments - a.literalSegments);
      const upper = method.toUpperCase();
      const clean = pathname.replace(/\/+$/, '') || '/';
      return matchers.find((m) => m.op.method === upper && m.regex.test(clean))?.op;
    },
  };
}

/** The parts of an operation read only when asked (a call, a search answer's card): the rest is its outline. */
export const DETAIL_FIELDS = ['description', 'parameters', 'requestBody', 'responses', 'codeSamples'] as const;
export type OperationDetails = Pick<ApiOperation, (typeof DETAIL_FIELDS)[number]>;
/** An operation without its details: what a served API keeps in memory for every operation. */
export type OperationOutline = Omit<ApiOperation, (typeof DETAIL_FIELDS)[number] | 'call'>;

export function outlineOf(op: ApiOperation): OperationOutline {
  const { id, hasOperationId, operationId, callPath, method, path, summary, tags, synonyms, deprecated, mutation } = op;
  return {
    id,
    hasOperationId,
    ...(operationId !== undefined ? { operationId } : {}),
    callPath,
    method,
    path,
    ...(summary !== undefined ? { summary } : {}),
    tags,
    synonyms,
    deprecated,
    mutation,
  };
}

export function detailsOf(op: ApiOperation): OperationDetails {
  const { description, parameters, requestBody, responses, codeSamples } = op;
  return { ...(description !== undefined ? { description } : {}), parameters, ...(requestBody ? { requestBody } : {}), responses, codeSamples };
}

/**
 * Operations that hold their outlines and read their details (`details(i)`, i an operation's position) the first
 * time one is used: a factory that makes operation i from its outline. The detail fields are getters of the
 * operations' prototype (one per catalogue), so making one costs no more than copying its outline.
 */
export function outlinedOperations(details: (position: number) => OperationDetails): (outline: OperationOutline, position: number) => ApiOperation {
  class OutlinedOperation {
    readonly position: number;
    constructor(outline: OperationOutline, position: number) {
      Object.assign(this, outline);
      (this as unknown as { call: string }).call = ['api', ...outline.callPath].join('.');
      this.position = position;
    }
    get description() {
      return details(this.position).description;
    }
    get parameters() {
      return details(this.position).parameters;
    }
    get requestBody() {
      return details(this.position).requestBody;
    }
    get responses() {
      return details(this.position).responses;
    }
    get codeSamples() {
      return details(this.position).codeSamples;
    }
  }
  Object.defineProperty(OutlinedOperation.prototype, 'position', { enumerable: false });
  return (outline, position) => new OutlinedOperation(outline, position) as unknown as ApiOperation;
}

function templateRegex(path: string): RegExp {
  const body = path
    .replace(/\/+$/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body || '/'}$`);
}

function expandServerVariables(url: string, variables: Record<string, any> | undefined): string {
  return url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = variables?.[name]?.default;
    return typeof v === 'string' ? v : whole;
  });
}

function mergeParameters(shared: any[], own: any[]): ApiParameter[] {
  const byKey = new Map<string, ApiParameter>();
  for (const p of [...shared, ...own]) {
    if (!p || typeof p !== 'object' || typeof p.name !== 'string') continue;
    const location = p.in as ApiParameter['in'];
    if (!['path', 'query', 'header', 'cookie'].includes(location)) continue;
    byKey.set(`${location}:${p.name}`, {
      name: p.name,
      in: location,
      required: location === 'path' ? true : p.required === true,
      ...(str(p.description) !== undefined ? { description: str(p.description)! } : {}),
      ...(p.schema && typeof p.schema === 'object' ? { schema: p.schema } : schemaFromContent(p.content)),
      deprecated: p.deprecated === true,
      ...(typeof p.style === 'string' ? { style: p.style } : {}),
      ...(typeof p.explode === 'boolean' ? { explode: p.explode } : {}),
      ...(p.example !== undefined ? { example: p.example } : {}),
    });
  }
  return [...byKey.values()];
}

function schemaFromContent(content: any): { schema?: JsonSchema } {
  const first = content && typeof content === 'object' ? Object.values(content)[0] : undefined;
  return first && typeof first === 'object' && (first as any).schema ? { schema: (first as any).schema } : {};
}

function pickContent(content: any): { contentType: string; schema?: JsonSchema } | undefined {
  if (!content || typeof content !== 'object') return undefined;
  const types = Object.keys(content);
  const type = types.find((t) => /json/i.test(t)) ?? types[0];
  if (!type) return undefined;
  const schema = content[type]?.schema;
  return { contentType: type, ...(schema && typeof schema === 'object' ? { schema } : {}) };
}

/** A JSON media type: `application/json`, `text/json`, or any `…+json` (parameters ignored). */
export function isJsonMediaType(type: string): boolean {
  const essence = type.split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/.test(essence);
}

function requestBodyOf(body: any): { requestBody?: ApiRequestBody } {
  if (!body || typeof body !== 'object' || !body.content || typeof body.content !== 'object') return {};
  const types = Object.keys(body.content);
  if (types.length === 0) return {};
  const preferred = types.find(isJsonMediaType) ?? types[0]!;
  const content = [preferred, ...types.filter((t) => t !== preferred)].map((type) => mediaTypeOf(type, body.content[type]));
  const media = body.content[preferred];
  const examples = media?.examples && typeof media.examples === 'object' ? Object.values(media.examples as Record<string, { value?: unknown }>) : [];
  const example = media?.example !== undefined ? media.example : examples.find((e) => e && typeof e === 'object' && e.value !== undefined)?.value;
  return {
    requestBody: {
      required: body.required === true,
      ...content[0]!,
      content,
      ...(example !== undefined ? { example } : {}),
      ...(str(body.description) !== undefined ? { description: str(body.description)! } : {}),
    },
  };
}

function mediaTypeOf(contentType: string, media: any): ApiMediaType {
  const schema = media && typeof media === 'object' && media.schema && typeof media.schema === 'object' ? (media.schema as JsonSchema) : undefined;
  const encoding: Record<string, ApiEncoding> = {};
  for (const [name, e] of Object.entries((media?.encoding ?? {}) as Record<string, any>)) {
    if (!e || typeof e !== 'object') continue;
    encoding[name] = {
      ...(str(e.contentType) !== undefined ? { contentType: (e.contentType as string).trim() } : {}),
      ...(typeof e.style === 'string' ? { style: e.style } : {}),
      ...(typeof e.explode === 'boolean' ? { explode: e.explode } : {}),
      ...(typeof e.allowReserved === 'boolean' ? { allowReserved: e.allowReserved } : {}),
    };
  }
  return { contentType, ...(schema ? { schema } : {}), ...(Object.keys(encoding).length > 0 ? { encoding } : {}) };
}

function responsesOf(responses: any): ApiResponse[] {
  if (!responses || typeof responses !== 'object') return [];
  const statuses = Object.keys(responses).sort((a, b) => rankStatus(a) - rankStatus(b));
  return statuses.map((status) => {
    const r = responses[status] ?? {};
    const picked = pickContent(r.content);
    return {
      status,
      ...(str(r.description) !== undefined ? { description: str(r.description)! } : {}),
      ...(picked ?? {}),
    };
  });
}

function rankStatus(status: string): number {
  if (/^2/.test(status)) return Number(status.replace(/X/gi, '0')) || 200;
  if (status === 'default') return 2000;
  return 1000 + (Number(status.replace(/X/gi, '0')) || 999);
}

function codeSamplesOf(samples: any): CodeSample[] {
  return asArray(samples)
    .filter((s) => s && typeof s.source === 'string')
    .map((s) => ({ lang: String(s.lang ?? ''), ...(str(s.label) !== undefined ? { label: str(s.label)! } : {}), source: s.source }));
}

function asArray(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}
