// search_docs' ranking, in two stages.
// 1. Recall: a MiniSearch (BM25) index over the catalogue with boosted fields
//    (operationId, summary — or the description's first sentence when the
//    document gives none —, path, tags, parameter names, schema names,
//    x-synonyms), enum values and prose (descriptions of the operation, its
//    parameters and its tags) at a low weight, prefix matching, fuzzy
//    matching only for long terms, typo corrections against the index
//    vocabulary, built-in synonyms and the API's own vocabulary learnt from
//    its prose (documentVocabulary.ts) at lower weights.
// 2. Precision: the best candidates are re-ranked on how much of the query an
//    operation explains (coverage: its names, then its prose), how much of its
//    summary the query explains (a short summary fully matched is a strong
//    signal) and whether the action asked for (create, list, delete…) is the
//    operation's.
// The state (index and learnt vocabulary) can be saved as plain data and
// restored without indexing again (toJSON / OperationSearch.restore).
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import type { ApiOperation, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import { isStopWord, normalize, splitWords, stem, terms } from './textProcessing.ts';
import { type Action, OTHER_VERBS, type TriggeredGroup, askedAction, isBuiltInWord, sameVerb, triggeredGroups } from './synonyms.ts';
import { isEnglishWord } from './englishWords.ts';
import { type LearnedVocabulary, learnVocabulary } from './documentVocabulary.ts';

export interface SearchHit {
  op: ApiOperation;
  score: number;
}

/** What the document says beside its operations: its tags (name, description, x-displayName). */
export interface SearchDocumentInfo {
  tags?: unknown;
}

/** Plain data (JSON-safe) from which OperationSearch.restore rebuilds a search without indexing again. */
export interface OperationSearchState {
  format: number;
  operations: number;
  index: AsPlainObject;
  /** Terms of the operations' names and parameters (what typo correction corrects to). */
  vocabulary: string[];
  learned: LearnedVocabulary;
  tags: Record<string, string>;
  /** Path parameters the document says take "me" (the caller). */
  selfParams: string[];
}

const STATE_FORMAT = 1;

interface IndexedOperation {
  id: number;
  operationId: string;
  summary: string;
  path: string;
  tags: string;
  params: string;
  schemas: string;
  enums: string;
  synonyms: string;
  paramDocs: string;
  description: string;
  tagDocs: string;
}

const FIELDS = ['operationId', 'summary', 'path', 'tags', 'params', 'schemas', 'enums', 'synonyms', 'paramDocs', 'description', 'tagDocs'] as const;

const BOOST: Record<(typeof FIELDS)[number], number> = {
  operationId: 3,
  summary: 3,
  synonyms: 2,
  path: 1.5,
  tags: 1.5,
  params: 1,
  schemas: 1,
  enums: 0.4,
  paramDocs: 0.3,
  description: 0.25,
  tagDocs: 0.15,
};

const CORRECTION_WEIGHT = 0.8;
const EXPANSION_WEIGHT = 0.35;
const LEARNED_WEIGHT = 0.5;
const CANDIDATES = 40;
const VALUE_COVERAGE = 0.3;
const ACTION_COVERAGE = 0.9;
const RESOURCE_WEIGHT = 0.08;
const MAX_ENUM_VALUES = 24;

interface OperationFeatures {
  names: Set<string>; // terms of id, summary, path, tags, synonyms
  params: Set<string>; // terms of parameter names
  values: Set<string>; // terms of the values its parameters and body take (enums, capped)
  all: Set<string>; // both
  prose: Set<string>; // terms of the descriptions (operation, tags, parameters)
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

function processTerm(term: string): string | null {
  const n = normalize(term);
  if (!n || isStopWord(n)) return null;
  return stem(n);
}

function enumValues(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 3) return [];
  const own = Array.isArray(schema.enum) ? schema.enum.filter((v: unknown) => typeof v === 'string') : [];
  const nested = [schema.items, ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((s) => enumValues(s, depth + 1));
  return [...own, ...nested];
}

/** The enum values of a request body's own properties (`type: reboot | resize | snapshot…`), each property capped. */
function bodyEnumValues(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 2) return [];
  const own = Object.values((schema.properties ?? {}) as Record<string, JsonSchema>).flatMap((p) => enumValues(p).slice(0, MAX_ENUM_VALUES));
  const nested = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].flatMap((s: JsonSchema) => bodyEnumValues(s, depth + 1));
  return [...new Set([...own, ...nested])];
}

/** Values an operation's parameters and body take, huge enums capped. */
function operationValues(op: ApiOperation): string[] {
  const params = op.parameters.filter((p) => p.in !== 'header' && p.in !== 'cookie');
  return [...params.flatMap((p) => enumValues(p.schema).slice(0, MAX_ENUM_VALUES)), ...bodyEnumValues(op.requestBody?.schema)].slice(0, 3 * MAX_ENUM_VALUES);
}

function firstSentence(text: string | undefined): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return (end > 0 ? flat.slice(0, end) : flat).slice(0, 200);
}

/** The summary, or the description's first sentence when the document gives none. */
function summaryOf(op: ApiOperation): string {
  return op.summary?.trim() || firstSentence(op.description);
}

/** Tag name → its description and display name, from the document's `tags`. */
function tagTexts(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(tags)) return out;
  for (const tag of tags) {
    if (!tag || typeof tag !== 'object' || typeof tag.name !== 'string') continue;
    const display = typeof tag['x-displayName'] === 'string' ? tag['x-displayName'] : '';
    const description = typeof tag.description === 'string' ? tag.description.replace(/\s+/g, ' ').slice(0, 600) : '';
    const text = `${display} ${description}`.trim();
    if (text) out[tag.name] = text;
  }
  return out;
}

function schemaNames(op: ApiOperation, catalogue: Catalogue): string[] {
  const out: string[] = [];
  const add = (schema: JsonSchema | undefined) => {
    if (!schema || typeof schema !== 'object') return;
    const name = catalogue.refNames.get(schema) ?? (schema.items ? catalogue.refNames.get(schema.items) : undefined);
    if (name) out.push(name);
  };
  add(op.requestBody?.schema);
  add(op.responses.find((r) => /^2/.test(r.status))?.schema);
  return out;
}

function toDocument(op: ApiOperation, id: number, catalogue: Catalogue, tags: Record<string, string>): IndexedOperation {
  const params = op.parameters.filter((p) => p.in !== 'header' && p.in !== 'cookie');
  const bodyProps = Object.keys(op.requestBody?.schema?.properties ?? {});
  return {
    id,
    operationId: `${op.hasOperationId ? op.id : ''} ${op.callPath.join(' ')}`,
    summary: summaryOf(op),
    path: op.path.replace(/[{}]/g, ' '),
    tags: op.tags.join(' '),
    params: [...params.map((p) => p.name), ...bodyProps].join(' '),
    schemas: schemaNames(op, catalogue).join(' '),
    // A huge enum (every event type, every country) says little about what the operation does.
    enums: operationValues(op).join(' '),
    synonyms: op.synonyms.join(' '),
    paramDocs: params.map((p) => firstSentence(p.description)).join(' '),
    description: (op.description ?? '').slice(0, 600),
    tagDocs: op.tags.map((t) => tags[t] ?? '').join(' '),
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
  const params = op.parameters.filter((p) => p.in !== 'header' && p.in !== 'cookie');
  return new Set(
    terms([(op.description ?? '').slice(0, 1000), ...op.tags.map((t) => tags[t] ?? ''), ...params.map((p) => firstSentence(p.description))].join(' ')),
  );
}

const ACTION_WORDS: Record<string, Action> = {
  show: 'list',
  list: 'list',
  search: 'list',
  find: 'list',
  browse: 'list',
  query: 'list',
  get: 'get',
  fetch: 'get',
  retrieve: 'get',
  read: 'get',
  check: 'get',
  download: 'get',
  create: 'create',
  add: 'create',
  new: 'create',
  post: 'create',
  insert: 'create',
  submit: 'create',
  update: 'update',
  edit: 'update',
  patch: 'update',
  modify: 'update',
  change: 'update',
  set: 'update',
  replace: 'replace',
  put: 'replace',
  delete: 'delete',
  remove: 'delete',
  destroy: 'delete',
  drop: 'delete',
};

/** The verb an operation is named after: its summary's first word, else its name's. */
function operationVerb(op: ApiOperation): string | undefined {
  const known = (w: string | undefined) => (w && (ACTION_WORDS[w] || OTHER_VERBS.has(w)) ? w : undefined);
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
  if (/\}\/?$/.test(op.path)) return false;
  const words = splitWords(op.summary ?? firstSentence(op.description)).map(normalize);
  const object = words.slice(1).find((w) => !isStopWord(w) && !['current', 'user', 'users', 'my'].includes(w));
  if (object && ['all', 'multiple', 'several', 'many'].includes(object)) return true;
  if (object && object.length > 3 && stem(object) !== object) return true;
  const segment = op.path.split(/[/.]/).filter(Boolean).pop() ?? '';
  const plural = segment.length > 3 && !segment.startsWith('{') && stem(normalize(segment)) !== normalize(segment);
  // "Get the customer's subscriptions" at /customers/{id}/subscriptions: a plural collection reads many, whatever the summary's object.
  return plural;
}

function operationAction(op: ApiOperation, verb: string | undefined): Action | undefined {
  if (verb && OTHER_VERBS.has(verb) && !ACTION_WORDS[verb]) return undefined;
  const named = verb ? ACTION_WORDS[verb] : undefined;
  if (named === 'get' && op.method === 'GET') return readsMany(op) ? 'list' : 'get';
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
      return /\}\/?$/.test(op.path) ? 'get' : 'list';
    default:
      return undefined;
  }
}

function resourceOf(op: ApiOperation): string | undefined {
  const segments = op.path.split('/').filter((x) => x && !x.startsWith('{'));
  const all = terms(segments[segments.length - 1] ?? '').filter((w) => !/^v?\d+$/.test(w));
  const words = all.filter((w) => !ACTION_WORDS[w] && !OTHER_VERBS.has(w));
  return words[words.length - 1] ?? all[all.length - 1];
}

/** Whether a word of `words` (at least `min` letters) starts with `prefix`. */
function someStartsWith(words: Iterable<string>, prefix: string, min = 0): boolean {
  for (const w of words) if (w.length >= min && w.startsWith(prefix)) return true;
  return false;
}

/** Whether `word` starts with one of `prefixes` of 3+ letters. */
function startsWithSome(word: string, prefixes: Iterable<string>): boolean {
  for (const t of prefixes) if (t.length >= 3 && word.startsWith(t)) return true;
  return false;
}

/** The terms of each literal segment of a path, versions and `api` left out. */
function pathSegments(path: string): string[][] {
  return path
    .split(/[/.]/)
    .filter((x) => x && !x.startsWith('{'))
    .map((x) => terms(x).filter((w) => !/^v?\d+$/.test(w) && w !== 'api'))
    .filter((t) => t.length > 0);
}

/** Words that place a thing in another: "tasks in a project", "subscriptions for a customer", "replies to a thread". */
const OWNER_PREPOSITIONS = new Set(['in', 'on', 'for', 'of', 'from', 'to', 'into', 'under', 'within', 'inside', 'dans', 'sur', 'pour', 'de', 'du', 'des']);
const OWNER_WEIGHT = 0.15;

/** The nouns after those words: the last word of each phrase that follows (stemmed). */
function ownerNouns(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!OWNER_PREPOSITIONS.has(words[i]!)) continue;
    let noun: string | undefined;
    for (let j = i + 1; j < words.length; j++) {
      const w = words[j]!;
      if (PHRASE_ENDS.has(w) || OWNER_PREPOSITIONS.has(w)) break;
      if (isStopWord(w) || LEADING.has(w) || /^\d+$/.test(w)) {
        if (noun) break;
        continue;
      }
      noun = stem(w);
    }
    if (noun) out.push(noun);
  }
  return out;
}

/** Words that end the noun a request starts with ("the tasks in a project" → tasks). */
const PHRASE_ENDS = new Set(
  'of in on for to from by with into onto about at under within between across inside over per via that which who where when whose so and or while'.split(' '),
);
const DETERMINER_WORDS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'their', 'its', 'every', 'each', 'all']);
/** Words before that noun that are not part of it. */
const LEADING = new Set(
  'a an the all every each any some my me mine our your this that these those what which who whose how is are am do does can could i we you please show give tell find one new existing current recent latest'.split(
    ' ',
  ),
);

/** The thing a request is about: the last word of its first noun phrase ("list workflow runs for a repo" → run). */
function headNoun(query: string, isVerb: (w: string) => boolean): string | undefined {
  const words = splitWords(normalize(query));
  let i = 0;
  let determined = false; // after "the", "a", "my"… a verb-like word is the noun ("get the lists")
  while (i < words.length && (LEADING.has(words[i]!) || (!determined && isVerb(stem(words[i]!))) || isStopWord(words[i]!))) {
    if (DETERMINER_WORDS.has(words[i]!)) determined = true;
    i++;
  }
  let head: string | undefined;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (PHRASE_ENDS.has(w) || (head && isStopWord(w))) break;
    if (!isStopWord(w) && !LEADING.has(w)) head = stem(w);
  }
  return head;
}

const SELF_SEGMENTS = new Set(['me', 'my', 'self', 'mine', '@me', 'current', 'whoami']);
/** A value that stands for the caller: 'me', "me", `me`. */
const SELF_VALUE = /["'`\u2018\u201c]me["'`\u2019\u201d]/;
const SELF_PARAM = /(["'`‘“]me["'`’”])|\b(current(ly)? (authenticated|logged[- ]in|signed[- ]in)|authenticated user|calling user|requesting user)\b/i;

function firstPathParam(op: ApiOperation): string | undefined {
  return /\{([^}]+)\}/.exec(op.path)?.[1];
}

/**
 * Path parameters that take "me": described so ("A user id, or 'me'"), or the
 * only parameter of an operation whose description says so (Trello's
 * "If you specify 'me' as the username…"). Every path they start acts on the
 * caller's own things then (`/members/{idMember}/boards`: my boards).
 */
function selfParameters(operations: ApiOperation[]): string[] {
  const out = new Set<string>();
  for (const op of operations) {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    for (const p of pathParams) if (SELF_PARAM.test(p.description ?? '')) out.add(p.name);
    if (pathParams.length === 1 && SELF_VALUE.test(`${op.summary ?? ''} ${(op.description ?? '').slice(0, 400)}`)) out.add(pathParams[0]!.name);
  }
  return [...out];
}

function actsOnSelf(op: ApiOperation, names: Set<string>): boolean {
  if (op.path.split(/[/.]/).some((s) => SELF_SEGMENTS.has(s.toLowerCase()))) return true;
  if (names.has('authenticated') || (names.has('current') && names.has('user')) || names.has('me') || names.has('whoami')) return true;
  if (SELF_PARAM.test(op.summary ?? '') || SELF_PARAM.test(firstSentence(op.description))) return true;
  return op.parameters.some((p) => p.in === 'path' && SELF_PARAM.test(p.description ?? ''));
}

function compatible(asked: Action, has: Action): boolean {
  if (asked === has) return true;
  if (asked === 'update' && has === 'replace') return true;
  if (asked === 'replace' && has === 'update') return true;
  return false;
}

/** Damerau-Levenshtein distance, capped: returns max+1 as soon as it is exceeded. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let rowMin = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
  }
  return d[a.length]![b.length]!;
}

function indexOptions(): Options<IndexedOperation> {
  return {
    fields: [...FIELDS],
    storeFields: [],
    tokenize: (text) => splitWords(text),
    processTerm,
    searchOptions: {
      boost: BOOST,
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      maxFuzzy: 2,
    },
  };
}

/** What a query asks, once read: its terms and what they stand for. */
interface ReadQuery {
  queryTerms: string[];
  corrections: Map<string, string>;
  groups: TriggeredGroup[];
  expansionTerms: Set<string>;
  /** query term → name terms the document's prose says it stands for */
  learned: Map<string, string[]>;
  learnedTerms: Set<string>;
  asked: Action | undefined;
  /** The thing the query is about, and the words that may name it (synonyms, learnt vocabulary). */
  head: string | undefined;
  heads: Set<string>;
  /** Words for the action the query asks (its verbs' synonyms). */
  verbTerms: Set<string>;
  /** The query's first word when it is used as a verb ("star a board", "comment on an issue"). */
  verbLike: string | undefined;
  /** The first verb of the query (stemmed). */
  verb: string | undefined;
  /** The query is about the asker's own things ("my boards", "who am I"). */
  self: boolean;
  /** A question that names no action ("who is on this team?", "which regions are there"): it reads. */
  question: boolean;
  /** Every word the query says or stands for (its terms, typo fixes, synonyms, learnt words, its action's words). */
  explained: Set<string>;
  /** The things the query places its object in ("tasks in a project", "subscriptions for a customer" → project, customer), and their synonyms. */
  owners: Set<string>;
  /** The triggered groups with their words and expansions stemmed, worked out once per query. */
  stemmedGroups: { words: Set<string>; expansions: string[]; action: Action | undefined }[];
}

/** Words that follow a verb, not a noun: "star a board", "comment on an issue". */
const VERB_FOLLOWERS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'their', 'its', 'some', 'every', 'each', 'on']);

/** Words a question starts with: one that names no action asks to read something. */
const QUESTION_WORDS = new Set([
  'what',
  'which',
  'who',
  'whom',
  'whose',
  'where',
  'when',
  'is',
  'are',
  'am',
  'was',
  'were',
  'does',
  'do',
  'did',
  'has',
  'have',
  'quel',
  'quelle',
  'quels',
  'quelles',
  'qui',
  'ou',
  'quand',
  'combien',
  'est',
]);
const QUESTION_WEIGHT = 0.15;

const SELF_WORDS = new Set(['my', 'me', 'mine', 'myself', 'whoami', 'mes', 'mon', 'ma', 'moi']);

export interface RankedHit extends SearchHit {
  parts: Record<string, number>;
}

export class OperationSearch {
  private readonly index: MiniSearch<IndexedOperation>;
  private readonly operations: ApiOperation[];
  private readonly features: (OperationFeatures | undefined)[];
  private readonly vocabulary: Set<string>;
  private readonly learned: LearnedVocabulary;
  private readonly tags: Record<string, string>;
  private readonly selfParams: Set<string>;

  constructor(catalogue: Catalogue, info: SearchDocumentInfo = {}, restored?: OperationSearchState) {
    this.operations = catalogue.operations;
    this.tags = restored ? restored.tags : tagTexts(info.tags);
    if (restored) {
      this.index = MiniSearch.loadJS<IndexedOperation>(restored.index, indexOptions());
    } else {
      this.index = new MiniSearch<IndexedOperation>(indexOptions());
      this.index.addAll(this.operations.map((op, i) => toDocument(op, i, catalogue, this.tags)));
    }
    this.features = new Array<OperationFeatures | undefined>(this.operations.length);
    this.selfParams = new Set(restored ? restored.selfParams : selfParameters(this.operations));
    if (restored) {
      this.vocabulary = new Set(restored.vocabulary);
      this.learned = restored.learned;
      return;
    }
    this.vocabulary = new Set();
    const names: Set<string>[] = [];
    const learnFrom: Set<string>[] = [];
    this.operations.forEach((op, i) => {
      const f = this.feature(i);
      names.push(f.names);
      for (const t of f.all) this.vocabulary.add(t);
      learnFrom.push(new Set(terms([(op.description ?? '').slice(0, 1000), ...op.tags.map((t) => this.tags[t] ?? '')].join(' '))));
    });
    this.learned = learnVocabulary({ names, prose: learnFrom, ignore: isBuiltInWord });
  }

  /** What re-ranking needs of an operation, worked out on first use (a restored search only for the candidates it meets). */
  private feature(i: number): OperationFeatures {
    const cached = this.features[i];
    if (cached) return cached;
    const op = this.operations[i]!;
    const names = nameTerms(op);
    const params = new Set(terms(op.parameters.map((p) => p.name).join(' ')));
    const verb = operationVerb(op);
    const f: OperationFeatures = {
      names,
      params,
      values: new Set(terms(operationValues(op).join(' '))),
      all: new Set([...names, ...params]),
      prose: proseTerms(op, this.tags),
      summary: terms(summaryOf(op)),
      action: operationAction(op, verb),
      verb,
      self: actsOnSelf(op, names) || this.selfParams.has(firstPathParam(op) ?? ''),
      resource: resourceOf(op),
      segments: pathSegments(op.path),
      where: terms(`${op.id} ${op.path} ${op.tags.join(' ')}`),
    };
    this.features[i] = f;
    return f;
  }

  /** Rebuilds a search from `toJSON()`'s data for the same catalogue, without indexing again. */
  static restore(catalogue: Catalogue, state: OperationSearchState): OperationSearch {
    if (!state || state.format !== STATE_FORMAT || state.operations !== catalogue.operations.length) {
      throw new Error('search index state does not fit this catalogue');
    }
    return new OperationSearch(catalogue, {}, state);
  }

  /** The search's state as plain data (JSON-safe): the index and what it learnt from the document. */
  toJSON(): OperationSearchState {
    return {
      format: STATE_FORMAT,
      operations: this.operations.length,
      index: this.index.toJSON(),
      vocabulary: [...this.vocabulary],
      learned: this.learned,
      tags: this.tags,
      selfParams: [...this.selfParams],
    };
  }

  get size(): number {
    return this.operations.length;
  }

  /** Words the document's prose taught this search, each with the name words it stands for. */
  learnedVocabulary(): LearnedVocabulary {
    return this.learned;
  }

  search(query: string, limit = 10): SearchHit[] {
    return this.rank(query)
      .slice(0, limit)
      .map(({ op, score }) => ({ op, score }));
  }

  /** Every recalled candidate, best first, with the parts of its score. */
  rank(query: string): RankedHit[] {
    const trimmed = query.trim();
    if (!trimmed) return [];
    const read = this.read(trimmed);
    const { queryTerms, corrections, groups, expansionTerms, learnedTerms } = read;

    const queries: any[] = [trimmed];
    if (corrections.size > 0) queries.push({ queries: [[...corrections.values()].join(' ')], boostTerm: () => CORRECTION_WEIGHT, fuzzy: false });
    if (expansionTerms.size > 0) queries.push({ queries: [[...expansionTerms].join(' ')], boostTerm: () => EXPANSION_WEIGHT, fuzzy: false });
    if (learnedTerms.size > 0) queries.push({ queries: [[...learnedTerms].join(' ')], boostTerm: () => LEARNED_WEIGHT, fuzzy: false });
    const recalled = this.index.search({ combineWith: 'OR', queries }).slice(0, CANDIDATES);
    if (recalled.length === 0) return [];

    const top = recalled[0]!.score;
    const scored = recalled.map((r) => {
      const op = this.operations[r.id as number]!;
      const f = this.feature(r.id as number);
      const parts = {
        recall: 0.5 * (r.score / top),
        coverage: 0.8 * this.coverage(read, f),
        summary: 1.0 * summaryFit(f, queryTerms, corrections, expansionTerms, learnedTerms, read.verbTerms),
        action: read.asked ? actionScore(read.asked, f.action) : read.question ? (op.method === 'GET' ? QUESTION_WEIGHT : -QUESTION_WEIGHT) : 0,
        verb: verbFit(read, f),
        self: read.self && f.self ? 0.2 : 0,
        resource: f.resource && (read.heads.has(f.resource) || (read.head && f.resource.startsWith(read.head))) ? RESOURCE_WEIGHT : 0,
        niche: -niche(op, f.where, queryTerms),
        owner: read.owners.size > 0 && f.segments.slice(0, -1).some((seg) => seg.some((w) => read.owners.has(w))) ? OWNER_WEIGHT : 0,
        unexplained: -UNEXPLAINED_SEGMENT * Math.min(3, unexplainedSegments(f.segments, read.explained, queryTerms)),
      };
      void groups;
      const s = Object.values(parts).reduce((a, b) => a + b, 0);
      return { op, score: Math.round(s * 1000) / 1000, parts };
    });
    scored.sort((a, b) => b.score - a.score);
    return scored;
  }

  private read(query: string): ReadQuery {
    const queryTerms = terms(query);
    const corrections = this.corrections(query, queryTerms);
    const correctedQuery = [query, ...corrections.values()].join(' ');
    const groups = triggeredGroups(correctedQuery);
    const asked = askedAction(groups);
    const verb = queryTerms.find((t) => ACTION_WORDS[t] || OTHER_VERBS.has(t) || groups.some((g) => g.action && g.words.some((w) => stem(w) === t)));
    const words = splitWords(normalize(query));
    const self = words.some((w, i) => SELF_WORDS.has(w) || (w === 'i' && ['am', 'm'].includes(words[i + 1] ?? '')) || (w === 'am' && words[i + 1] === 'i'));
    const expansions = [...new Set(groups.flatMap((g) => g.expansions))].filter((e) => !queryTerms.includes(stem(normalize(e))));
    const expansionTerms = new Set(expansions.flatMap((e) => terms(e)));
    const learned = new Map<string, string[]>();
    const learnedTerms = new Set<string>();
    for (const t of queryTerms) {
      const words = this.learned[corrections.get(t) ?? t];
      if (!words) continue;
      learned.set(t, words);
      for (const w of words) if (!queryTerms.includes(w)) learnedTerms.add(w);
    }
    const verbLike = VERB_FOLLOWERS.has(words[1] ?? '') && !isStopWord(words[0] ?? '') ? stem(words[0]!) : undefined;
    const verbTerms = new Set(groups.filter((g) => g.action).flatMap((g) => g.expansions.map((e) => stem(normalize(e)))));
    const rawHead = headNoun(query, (w) => !!ACTION_WORDS[w] || OTHER_VERBS.has(w) || groups.some((g) => g.action && g.words.some((x) => stem(x) === w)));
    const head = rawHead && (corrections.get(rawHead) ?? rawHead);
    const heads = new Set<string>(head ? [head, ...(learned.get(rawHead!) ?? this.learned[head] ?? [])] : []);
    if (verbLike) heads.add(verbLike); // "fork a repository": a fork is what it makes
    if (head) for (const g of groups) if (!g.action && g.words.some((w) => stem(w) === rawHead)) for (const e of g.expansions) heads.add(stem(normalize(e)));
    const question = QUESTION_WORDS.has(words[0] ?? '') || (words[0] === 'how' && ['many', 'much'].includes(words[1] ?? ''));
    const owners = new Set<string>();
    for (const o of ownerNouns(words)) {
      const t = corrections.get(o) ?? o;
      owners.add(t);
      for (const w of learned.get(o) ?? this.learned[t] ?? []) owners.add(w);
      for (const g of groups) if (!g.action && g.words.some((w) => stem(w) === o)) for (const e of g.expansions) owners.add(stem(normalize(e)));
    }
    const explained = new Set([...queryTerms, ...corrections.values(), ...expansionTerms, ...learnedTerms, ...heads, ...verbTerms]);
    const stemmedGroups = groups.map((g) => ({ words: new Set(g.words.map(stem)), expansions: g.expansions.map((e) => stem(normalize(e))), action: g.action }));
    return {
      stemmedGroups,
      queryTerms,
      corrections,
      groups,
      expansionTerms,
      learned,
      learnedTerms,
      asked,
      verb,
      self,
      question,
      explained,
      owners,
      verbTerms,
      verbLike,
      head,
      heads,
    };
  }

  /** The typo fixes a query gets: each unknown word and the catalogue word it is read as. */
  corrected(query: string): Record<string, string> {
    return Object.fromEntries(this.corrections(query, terms(query)));
  }

  /**
   * Query terms unknown to the index mapped to a known term one edit away (two for long words).
   * A real English word is never "corrected": the person meant it, the catalogue just lacks it.
   */
  private corrections(query: string, queryTerms: string[]): Map<string, string> {
    const out = new Map<string, string>();
    const words = new Set(
      splitWords(query)
        .map(normalize)
        .filter((w) => w.length >= 4),
    );
    const real = new Set([...words].filter((w) => !this.vocabulary.has(stem(w)) && isEnglishWord(w)).map(stem));
    for (const t of queryTerms) {
      if (t.length < 4 || this.vocabulary.has(t) || real.has(t) || /^\d+$/.test(t)) continue;
      if (someStartsWith(this.vocabulary, t, t.length + 1)) continue; // a prefix, not a typo
      const max = t.length >= 8 ? 2 : 1;
      let best: string | undefined;
      let bestDistance = max + 1;
      for (const v of this.vocabulary) {
        if (Math.abs(v.length - t.length) > max || (v[0] !== t[0] && v[1] !== t[1])) continue;
        const d = editDistance(t, v, max);
        if (d < bestDistance) {
          best = v;
          bestDistance = d;
        }
      }
      if (best) out.set(t, best);
    }
    return out;
  }

  /** Share of the query's terms the operation accounts for (directly, through a typo fix, a synonym, its learnt vocabulary or its prose). */
  private coverage(read: ReadQuery, f: OperationFeatures): number {
    const { queryTerms, corrections, stemmedGroups, learned } = read;
    if (queryTerms.length === 0) return 0;
    let sum = 0;
    for (const t of queryTerms) {
      const direct = corrections.get(t) ?? t;
      if (f.names.has(direct) || (direct.length >= 3 && someStartsWith(f.names, direct))) {
        sum += 1;
        continue;
      }
      let best = 0;
      for (const g of stemmedGroups) {
        if (!g.words.has(t) && !g.words.has(direct)) continue;
        if (g.expansions.some((e) => f.names.has(e))) best = Math.max(best, g.action ? 0.95 : 0.7);
        // "list" is what a GET on a collection does, whatever its name says ("Get multiple workspaces").
        else if (g.action && f.action && compatible(g.action, f.action)) best = Math.max(best, ACTION_COVERAGE);
      }
      if (learned.get(t)?.some((w) => f.names.has(w))) best = Math.max(best, 0.7);
      if (f.params.has(direct)) best = Math.max(best, 0.5);
      if (f.values.has(direct)) best = Math.max(best, VALUE_COVERAGE);
      if (f.prose.has(direct)) best = Math.max(best, 0.3);
      sum += best;
    }
    return sum / queryTerms.length;
  }
}

/**
 * The query's verb is the operation's ("copy" a project: duplicateProject), or
 * names the thing the operation creates ("fork a repository": create a fork,
 * "star a board": add a star).
 */
function verbFit(read: ReadQuery, f: OperationFeatures): number {
  if (read.verb && f.verb && sameVerb(read.verb, f.verb)) return 0.2;
  const first = read.verbLike;
  if (first && first !== read.verb && !ACTION_WORDS[first] && f.action === 'create' && f.names.has(first)) return 0.2;
  if (read.verb && OTHER_VERBS.has(read.verb) && !ACTION_WORDS[read.verb] && f.action === 'create' && f.names.has(read.verb)) return 0.2;
  return 0;
}

/** Share of the operation's summary the query accounts for. */
function summaryFit(
  f: OperationFeatures,
  queryTerms: string[],
  corrections: Map<string, string>,
  expansions: Set<string>,
  learned: Set<string>,
  verbs: Set<string>,
): number {
  if (f.summary.length === 0) return 0;
  const direct = new Set([...queryTerms, ...corrections.values()]);
  let sum = 0;
  for (const w of f.summary) {
    if (direct.has(w) || startsWithSome(w, direct)) sum += 1;
    else if (verbs.has(w)) sum += 0.5;
    else if (expansions.has(w) || learned.has(w)) sum += 0.5;
  }
  return sum / f.summary.length;
}

function actionScore(asked: Action | undefined, has: Action | undefined): number {
  if (!asked || !has) return 0;
  if (compatible(asked, has)) return 0.25;
  // "get the lists on a board" reads many; "list" then "get" one is a smaller mistake than writing.
  if (asked === 'get' && has === 'list') return 0.1;
  if (asked === 'list' && has === 'get') return -0.1;
  return -0.25;
}

const UNEXPLAINED_SEGMENT = 0.05;

/**
 * Path segments none of whose words the query says or stands for: `/apps/regions`
 * answers "which regions" less plainly than `/regions` does.
 */
function unexplainedSegments(segments: string[][], explained: Set<string>, queryTerms: string[]): number {
  let n = 0;
  for (const words of segments) {
    // Short plurals escape the stemmer (`ips`): their singular explains them too.
    if (!words.some((w) => explained.has(w) || (w.endsWith('s') && explained.has(w.slice(0, -1))) || queryTerms.some((t) => t.length >= 3 && w.startsWith(t))))
      n++;
  }
  return n;
}

const NICHE_WORDS = ['admin', 'enterprise'];

/**
 * Deprecated, admin and enterprise operations make way for the everyday ones
 * unless the query asks for them (the card still says "deprecated").
 */
function niche(op: ApiOperation, where: string[], queryTerms: string[]): number {
  let penalty = 0;
  if (op.deprecated && !queryTerms.includes('deprecat') && !queryTerms.includes('deprecated') && !queryTerms.includes('legacy')) penalty += 0.3;
  if (NICHE_WORDS.some((w) => where.includes(w) && !queryTerms.includes(w))) penalty += 0.15;
  return penalty;
}
