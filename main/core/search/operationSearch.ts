// search_docs' ranking, in two stages.
// 1. Recall: a MiniSearch (BM25) index over the catalogue with boosted fields
//    (operationId, summary, path, tags, parameter names, enum values,
//    x-synonyms), prefix matching, fuzzy matching only for long terms, typo
//    corrections against the index vocabulary and built-in synonyms at a lower
//    weight.
// 2. Precision: the best candidates are re-ranked on how much of the query an
//    operation explains (coverage), how much of its summary the query explains
//    (a short summary fully matched is a strong signal) and whether the action
//    asked for (create, list, delete…) is the operation's.
import MiniSearch from 'minisearch';
import type { ApiOperation, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import { isStopWord, normalize, splitWords, stem, terms } from './textProcessing.ts';
import { type Action, triggeredGroups } from './synonyms.ts';
import { isEnglishWord } from './englishWords.ts';

export interface SearchHit {
  op: ApiOperation;
  score: number;
}

interface IndexedOperation {
  id: number;
  operationId: string;
  summary: string;
  path: string;
  tags: string;
  params: string;
  enums: string;
  synonyms: string;
  paramDocs: string;
  description: string;
}

const FIELDS = ['operationId', 'summary', 'path', 'tags', 'params', 'enums', 'synonyms', 'paramDocs', 'description'] as const;

const BOOST: Record<(typeof FIELDS)[number], number> = {
  operationId: 3,
  summary: 3,
  synonyms: 2,
  path: 1.5,
  tags: 1.5,
  params: 1,
  enums: 0.8,
  paramDocs: 0.3,
  description: 0.25,
};

const CORRECTION_WEIGHT = 0.8;
const EXPANSION_WEIGHT = 0.35;
const CANDIDATES = 40;

interface OperationFeatures {
  all: Set<string>; // terms of id, summary, path, tags, synonyms, parameter names
  summary: string[];
  action: Action | undefined;
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

function firstSentence(text: string | undefined): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ');
  const end = flat.search(/[.!?](\s|$)/);
  return (end > 0 ? flat.slice(0, end) : flat).slice(0, 200);
}

function toDocument(op: ApiOperation, id: number): IndexedOperation {
  const params = op.parameters.filter((p) => p.in !== 'header' && p.in !== 'cookie');
  const bodyProps = Object.keys(op.requestBody?.schema?.properties ?? {});
  return {
    id,
    operationId: `${op.hasOperationId ? op.id : ''} ${op.callPath.join(' ')}`,
    summary: op.summary ?? '',
    path: op.path.replace(/[{}]/g, ' '),
    tags: op.tags.join(' '),
    params: [...params.map((p) => p.name), ...bodyProps].join(' '),
    enums: params
      .flatMap((p) => enumValues(p.schema))
      .slice(0, 200)
      .join(' '),
    synonyms: op.synonyms.join(' '),
    paramDocs: params.map((p) => firstSentence(p.description)).join(' '),
    description: (op.description ?? '').slice(0, 600),
  };
}

const ACTION_WORDS: Record<string, Action> = {
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

function operationAction(op: ApiOperation): Action | undefined {
  const last = op.callPath[op.callPath.length - 1] ?? '';
  const verb = splitWords(last)[0]?.toLowerCase();
  const named = verb ? ACTION_WORDS[verb] : undefined;
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

export class OperationSearch {
  private readonly index: MiniSearch<IndexedOperation>;
  private readonly operations: ApiOperation[];
  private readonly features: OperationFeatures[];
  private readonly vocabulary: Set<string>;

  constructor(catalogue: Catalogue) {
    this.operations = catalogue.operations;
    this.index = new MiniSearch<IndexedOperation>({
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
    });
    this.index.addAll(this.operations.map(toDocument));
    this.vocabulary = new Set();
    this.features = this.operations.map((op) => {
      const summary = terms(op.summary ?? '');
      const all = new Set([
        ...terms(`${op.hasOperationId ? op.id : ''} ${op.callPath.join(' ')}`),
        ...summary,
        ...terms(op.path),
        ...terms(op.tags.join(' ')),
        ...terms(op.synonyms.join(' ')),
        ...terms(op.parameters.map((p) => p.name).join(' ')),
      ]);
      for (const t of all) this.vocabulary.add(t);
      return { all, summary, action: operationAction(op) };
    });
  }

  get size(): number {
    return this.operations.length;
  }

  search(query: string, limit = 10): SearchHit[] {
    const trimmed = query.trim();
    if (!trimmed) return [];
    const queryTerms = terms(trimmed);
    const corrections = this.corrections(trimmed, queryTerms);
    const correctedQuery = [trimmed, ...corrections.values()].join(' ');
    const groups = triggeredGroups(correctedQuery);
    const expansions = [...new Set(groups.flatMap((g) => g.expansions))].filter((e) => !queryTerms.includes(stem(normalize(e))));

    const queries: any[] = [trimmed];
    if (corrections.size > 0) queries.push({ queries: [[...corrections.values()].join(' ')], boostTerm: () => CORRECTION_WEIGHT });
    if (expansions.length > 0) queries.push({ queries: [expansions.join(' ')], boostTerm: () => EXPANSION_WEIGHT });
    const recalled = this.index.search({ combineWith: 'OR', queries }).slice(0, CANDIDATES);
    if (recalled.length === 0) return [];

    const asked = groups.find((g) => g.action)?.action;
    const expansionTerms = new Set(expansions.map((e) => stem(normalize(e))));
    const top = recalled[0]!.score;
    const scored = recalled.map((r) => {
      const f = this.features[r.id as number]!;
      const s =
        0.5 * (r.score / top) +
        0.8 * this.coverage(queryTerms, corrections, groups, f) +
        1.0 * summaryFit(f, queryTerms, corrections, expansionTerms) +
        actionScore(asked, f.action) -
        niche(this.operations[r.id as number]!, queryTerms);
      return { op: this.operations[r.id as number]!, score: Math.round(s * 1000) / 1000 };
    });
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit);
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
      if ([...this.vocabulary].some((v) => v.length > t.length && v.startsWith(t))) continue; // a prefix, not a typo
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

  /** Share of the query's terms the operation accounts for (directly, through a typo fix, or through a synonym). */
  private coverage(queryTerms: string[], corrections: Map<string, string>, groups: ReturnType<typeof triggeredGroups>, f: OperationFeatures): number {
    if (queryTerms.length === 0) return 0;
    let sum = 0;
    for (const t of queryTerms) {
      const direct = corrections.get(t) ?? t;
      if (f.all.has(direct) || (direct.length >= 3 && [...f.all].some((w) => w.startsWith(direct)))) {
        sum += 1;
        continue;
      }
      const viaSynonym = groups.some(
        (g) => g.words.some((w) => stem(w) === t || stem(w) === direct) && g.expansions.some((e) => f.all.has(stem(normalize(e)))),
      );
      if (viaSynonym) sum += 0.7;
    }
    return sum / queryTerms.length;
  }
}

/** Share of the operation's summary the query accounts for. */
function summaryFit(f: OperationFeatures, queryTerms: string[], corrections: Map<string, string>, expansions: Set<string>): number {
  if (f.summary.length === 0) return 0;
  const direct = new Set([...queryTerms, ...corrections.values()]);
  let sum = 0;
  for (const w of f.summary) {
    if (direct.has(w) || [...direct].some((t) => t.length >= 3 && w.startsWith(t))) sum += 1;
    else if (expansions.has(w)) sum += 0.5;
  }
  return sum / f.summary.length;
}

function actionScore(asked: Action | undefined, has: Action | undefined): number {
  if (!asked || !has) return 0;
  return compatible(asked, has) ? 0.25 : -0.25;
}

const NICHE_WORDS = ['admin', 'enterprise'];

/**
 * Deprecated, admin and enterprise operations make way for the everyday ones
 * unless the query asks for them (the card still says "deprecated").
 */
function niche(op: ApiOperation, queryTerms: string[]): number {
  const asked = new Set(queryTerms);
  let penalty = 0;
  if (op.deprecated && !asked.has('deprecat') && !asked.has('deprecated') && !asked.has('legacy')) penalty += 0.3;
  const where = terms(`${op.id} ${op.path} ${op.tags.join(' ')}`);
  if (NICHE_WORDS.some((w) => where.includes(w) && !asked.has(w))) penalty += 0.15;
  return penalty;
}
