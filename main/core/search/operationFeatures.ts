// What re-ranking needs to know of an operation, worked out from the
// catalogue: its name words and prose words, the action it performs (list,
// get, create…) and the verb it is named after, the resource it reads or
// writes, its path's segments, and whether it acts on the caller's own
// account.
import type { ApiOperation } from '../openapi/catalogue.ts';
import { isPlural, isStopWord, normalize, splitWords, stem, terms } from './textProcessing.ts';
import { descriptionTexts, firstSentence, operationValues, returnedFields, searchableParams, summaryOf } from './operationText.ts';
import {
  ACTION_WORDS,
  type Action,
  GENERIC_FILLER,
  GENERIC_THINGS,
  MANY_WORDS,
  OTHER_VERBS,
  OWNER_NOT_OBJECT,
  READS_ONE,
  SELF_SEGMENTS,
  isVerb,
} from './wordLists.ts';

export interface OperationFeatures {
  names: Set<string>; // terms of id, summary, path, tags, synonyms
  params: Set<string>; // terms of parameter names
  values: Set<string>; // terms of the values its parameters and body take (enums, capped)
  returns: Set<string>; // terms of the names of the fields it returns
  verbValues: Set<string>; // the values it takes that are one word (`resize`, `reboot`), stemmed: what an action endpoint does
  all: Set<string>; // both
  prose: Set<string>; // terms of the descriptions (operation, tags, parameters)
  /** The terms of what it says it does: its summary, its description's first sentence, else its name. */
  summary: string[];
  action: Action | undefined;
  /** The verb the operation is named after (stemmed), if any. */
  verb: string | undefined;
  /** Acts on the caller's own account ("/me", "current user", a path parameter that takes "me"). */
  self: boolean;
  /** What it reads or writes: the last word of its path's last literal segment that is not a verb (`/boards/{id}/cards` → card). */
  resource: string | undefined;
  /** The terms of each literal segment of its path (`/v2/apps/{id}/deployments` → [app], [deployment]), versions left out. */
  segments: string[][];
  /** Terms of its id, path and tags (what marks it admin or enterprise). */
  where: string[];
}

/** The fields of OperationFeatures that are sets of terms (written as arrays). */
const SET_FIELDS = ['names', 'params', 'values', 'returns', 'verbValues', 'all', 'prose'] as const;

/** Features as JSON text (what a prepared store keeps per operation). */
export function featuresToJson(f: OperationFeatures): string {
  const out: Record<string, unknown> = { ...f };
  for (const field of SET_FIELDS) out[field] = [...f[field]];
  return JSON.stringify(out);
}

/** Features from `featuresToJson`'s text; a TypeError when the text is not of that shape. */
export function featuresFromJson(text: string): OperationFeatures {
  const raw = JSON.parse(text) as Record<string, unknown>;
  if (!raw || typeof raw !== 'object') throw new TypeError('features of an unexpected shape');
  const out = { ...raw } as Record<string, unknown>;
  for (const field of SET_FIELDS) {
    if (!Array.isArray(raw[field])) throw new TypeError(`features without ${field}`);
    out[field] = new Set(raw[field] as string[]);
  }
  if (!Array.isArray(raw.summary) || !Array.isArray(raw.segments) || !Array.isArray(raw.where)) throw new TypeError('features of an unexpected shape');
  return out as unknown as OperationFeatures;
}

/** What re-ranking needs of `op`; `tags` are the document's tag texts, `selfParams` the path parameters that take "me". */
export function operationFeatures(operation: ApiOperation, tags: Record<string, string>, selfParams: Set<string>): OperationFeatures {
  // `/order.list.json`, `/statuses/show/{id}.json`: the format a path answers in is not a thing it acts on.
  // A view of the operation with its path changed: every other field (details read on demand among them) from the operation.
  const op = Object.create(operation, { path: { value: withoutFormat(operation.path), enumerable: true } }) as ApiOperation;
  const names = nameTerms(op);
  const params = new Set(terms(op.parameters.map((p) => p.name).join(' ')));
  const verb = operationVerb(op);
  const values = operationValues(op);
  return {
    names,
    params,
    values: new Set(terms(values.join(' '))),
    verbValues: new Set(values.filter((v) => /^\p{L}+$/u.test(v)).map((v) => stem(normalize(v)))),
    returns: new Set(terms(returnedFields(op).join(' '))),
    all: new Set([...names, ...params]),
    prose: proseTerms(op, tags),
    summary: summaryTerms(op),
    action: operationAction(op, verb),
    verb,
    self: actsOnSelf(op, names) || selfParams.has(firstPathParam(op) ?? ''),
    resource: resourceOf(op),
    segments: pathSegments(op.path),
    where: terms(`${op.id} ${op.path} ${op.tags.join(' ')}`),
  };
}

function nameTerms(op: ApiOperation): Set<string> {
  return new Set([
    ...terms(`${op.hasOperationId ? op.id : ''} ${op.callPath.join(' ')}`),
    ...terms(summaryOf(op)),
    ...terms(op.path),
    ...terms(op.tags.join(' ')),
    ...terms(op.synonyms.join(' ')),
  ]);
}

function proseTerms(op: ApiOperation, tags: Record<string, string>): Set<string> {
  return new Set(terms([...descriptionTexts(op, tags), ...searchableParams(op).map((p) => firstSentence(p.description))].join(' ')));
}

/** The verb an operation is named after: its summary's first word, else its name's. */
function operationVerb(op: ApiOperation): string | undefined {
  const known = (w: string | undefined) => (w && isVerb(w) ? w : undefined);
  // "Manually sets user presence": the first two words of the summary, then the name's words in order (usersSetPresence).
  const fromSummary = terms(op.summary ?? firstSentence(op.description)).slice(0, 2);
  const last = op.callPath[op.callPath.length - 1] ?? '';
  for (const w of [...fromSummary, ...terms(last)]) {
    const verb = known(w);
    if (verb) return verb;
  }
  return undefined;
}

/** A GET named "get" reads one thing or many: many when its object is plural ("Get tasks from a project") or its path is a collection. */
function readsMany(op: ApiOperation): boolean {
  if (endsWithOne(op.path)) return false;
  const words = splitWords(op.summary ?? firstSentence(op.description)).map(normalize);
  const object = words.slice(1).find((w) => !isStopWord(w) && !OWNER_NOT_OBJECT.includes(w));
  if (object && MANY_WORDS.includes(object)) return true;
  if (object && object.length > 3 && isPlural(object)) return true;
  const segment = lastPathWord(op.path);
  // `/order.list.json` with no summary: its last word says it lists.
  if (segment.toLowerCase() === 'list') return true;
  const plural = segment.length > 3 && !segment.startsWith('{') && isPlural(normalize(segment));
  // "Get the customer's subscriptions" at /customers/{id}/subscriptions: a plural collection reads many, whatever the summary's object.
  return plural;
}

/** The last word of a path (`/order.info` → info, `/users/{id}` → {id}). */
function lastPathWord(path: string): string {
  return path.split(/[/.]/).filter(Boolean).pop() ?? '';
}

/** Path parameters that filter a collection rather than name one of its things (`/orders/status/{status}`). */
const FILTER_PARAMS = /^(status|state|type|kind|category|filter|sort|order_?by|period|year|month|format|lang|language|locale)$/i;

/**
 * The path ends in a parameter that names one thing (`/users/{id}`, `/categories/{category}`), not in one that
 * filters a collection (`/orders/status/{status}`, `/orders/{status}`).
 */
function endsWithOne(path: string): boolean {
  const last = /(?:([^/{}]*)\/)?\{([^}]+)\}\/?$/.exec(path);
  if (!last) return false;
  const before = last[1] ?? '';
  const param = last[2]!;
  if (!FILTER_PARAMS.test(param)) return true;
  // The collection of those very things (`/categories/{category}`, `/statuses/{status}`): one of them.
  const p = param.toLowerCase();
  const plurals = [`${p}s`, `${p}es`, ...(p.endsWith('y') ? [`${p.slice(0, -1)}ies`] : [])];
  return plurals.includes(before.toLowerCase());
}

/** A call-style path whose last word says it reads one thing (`/order.info.json`, `/users.show`). */
function saysOne(op: ApiOperation): boolean {
  return READS_ONE.has(lastPathWord(op.path).toLowerCase());
}

/** A GET that requires the `id` of what it reads as a query parameter (`/product.info.json?id=…`). */
function takesId(op: ApiOperation): boolean {
  return op.parameters.some((p) => p.in === 'query' && p.required && p.name === 'id');
}

function operationAction(op: ApiOperation, verb: string | undefined): Action | undefined {
  if (verb && OTHER_VERBS.has(verb) && !ACTION_WORDS[verb]) return undefined;
  const named = verb ? ACTION_WORDS[verb] : undefined;
  if (named === 'get' && op.method === 'GET') return readsMany(op) && !saysOne(op) ? 'list' : 'get';
  if (named) return named === 'replace' && op.method === 'PATCH' ? 'update' : named;
  switch (op.method) {
    case 'POST':
      return 'create';
    case 'DELETE':
      return 'delete';
    case 'PUT':
      return 'replace';
    case 'PATCH':
      return 'update';
    case 'GET':
      // An `id` it requires names the one thing it reads, unless its summary or path says many (`/playlist.tracks?id=…` lists a playlist's tracks).
      return endsWithOne(op.path) || saysOne(op) || (takesId(op) && !readsMany(op)) ? 'get' : 'list';
    default:
      return undefined;
  }
}

/** File extensions some APIs end their paths with, written out or as a parameter (`/users/{id}.{format}`): the format of the answer. */
const FORMAT_SUFFIX = /\.(json|xml|ya?ml|csv|txt|html?|php|aspx?|atom|rss|\{[^}/]+\})(?=\/|$)/gi;

/** The path without the format extensions of its segments (`/order.list.json` → `/order.list`). */
function withoutFormat(path: string): string {
  return path.replace(FORMAT_SUFFIX, '');
}

/** Whether a path segment's word is an API version (`v2`, `2022`). */
function isVersion(word: string): boolean {
  return /^v?\d+$/.test(word);
}

function resourceOf(op: ApiOperation): string | undefined {
  const segments = op.path.split('/').filter((x) => x && !x.startsWith('{'));
  const all = terms(segments[segments.length - 1] ?? '').filter((w) => !isVersion(w));
  const words = all.filter((w) => !isVerb(w));
  return words[words.length - 1] ?? all[all.length - 1];
}

/** The terms of each literal segment of a path, versions and `api` left out. */
function pathSegments(path: string): string[][] {
  return path
    .split(/[/.]/)
    .filter((x) => x && !x.startsWith('{'))
    .map((x) => terms(x).filter((w) => !isVersion(w) && w !== 'api'))
    .filter((t) => t.length > 0);
}

/** A value that stands for the caller: 'me', "me", `me`. */
const SELF_VALUE = /["'`\u2018\u201c]me["'`\u2019\u201d]/;
const SELF_PARAM = /(["'`‘“]me["'`’”])|\b(current(ly)? (authenticated|logged[- ]in|signed[- ]in)|authenticated user|calling user|requesting user)\b/i;
/** How much of a description is searched for a 'me' value, in characters. */
const SELF_VALUE_SCOPE = 400;

function firstPathParam(op: ApiOperation): string | undefined {
  return /\{([^}]+)\}/.exec(op.path)?.[1];
}

/**
 * Path parameters that take "me": described so ("A user id, or 'me'"), or the
 * only parameter of an operation whose description says so (Trello's
 * "If you specify 'me' as the username…"). Every path they start acts on the
 * caller's own things then (`/members/{idMember}/boards`: my boards).
 */
export function selfParameters(operations: ApiOperation[]): string[] {
  const out = new Set<string>();
  for (const op of operations) {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    for (const p of pathParams) if (SELF_PARAM.test(p.description ?? '')) out.add(p.name);
    if (pathParams.length === 1 && SELF_VALUE.test(`${op.summary ?? ''} ${(op.description ?? '').slice(0, SELF_VALUE_SCOPE)}`)) out.add(pathParams[0]!.name);
  }
  return [...out];
}

function actsOnSelf(op: ApiOperation, names: Set<string>): boolean {
  if (op.path.split(/[/.]/).some((s) => SELF_SEGMENTS.has(s.toLowerCase()))) return true;
  if (names.has('authenticated') || (names.has('current') && names.has('user')) || names.has('me') || names.has('whoami')) return true;
  if (SELF_PARAM.test(op.summary ?? '') || SELF_PARAM.test(firstSentence(op.description))) return true;
  return op.parameters.some((p) => p.in === 'path' && SELF_PARAM.test(p.description ?? ''));
}

/**
 * A summary that could head any operation of its kind ("Inserts a new resource into this collection.", Google's
 * documents throughout): it calls the thing generically, says nothing else but its verb, and names no word of the
 * operation's path, where the thing is ("Update a customer record" names a customer, and is no such summary).
 */
function isGeneric(said: string[], op: ApiOperation): boolean {
  const pathWords = pathSegments(op.path).flat();
  return (
    said.some((w) => GENERIC_THINGS.has(w)) &&
    said.every((w) => GENERIC_THINGS.has(w) || GENERIC_FILLER.has(w) || isVerb(w)) &&
    pathWords.length > 0 &&
    !said.some((w) => pathWords.some((p) => p === w || p.startsWith(w) || w.startsWith(p)))
  );
}

/**
 * The terms of what the operation says it does: its summary, else its description's first sentence, else (when
 * neither is given, or the one given is generic) its name:
 * its operationId, or its method and its path's literal segments (`DELETE /users/{id}` → delete user).
 */
function summaryTerms(op: ApiOperation): string[] {
  const said = terms(summaryOf(op));
  if (said.length > 0 && !isGeneric(said, op)) return said;
  return terms(op.operationId ?? `${op.method.toLowerCase()} ${pathSegments(op.path).flat().join(' ')}`);
}
