// Recall, the first stage of search_docs: a MiniSearch (BM25) index over the
// catalogue with boosted fields (operationId, summary — or the description's
// first sentence when the document gives none —, path, tags, parameter names,
// schema names, x-synonyms), enum values and prose (descriptions of the
// operation, its parameters and its tags) at a low weight, prefix matching,
// fuzzy matching only for long terms the operations' names do not hold; the
// query's typo corrections, built-in synonyms and learnt vocabulary searched
// beside it at lower weights.
import MiniSearch, { type AsPlainObject, type Options, type Query } from 'minisearch';
import type { ApiOperation, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import { isPrefix, isStopWord, normalize, splitWords, stem } from './textProcessing.ts';
import { firstSentence, operationValues, returnedFields, searchableParams, summaryOf } from './operationText.ts';
import type { ReadQuery } from './queryParsing.ts';
import { RecallEngine, type RecallHit } from './recallEngine.ts';
import { CompactIndex } from './compactIndex.ts';
import { CANDIDATE_SHARE, CANDIDATES, FIELD_BOOSTS, RECALL_BOOSTS } from './weights.ts';

/** One operation as the index sees it: the text of each field. */
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
  returns: string;
  description: string;
  tagDocs: string;
}

export type SearchIndex = MiniSearch<IndexedOperation>;

/** The indexed fields, in the order the index's state numbers them. */
const FIELDS = ['operationId', 'summary', 'path', 'tags', 'params', 'schemas', 'enums', 'synonyms', 'paramDocs', 'returns', 'description', 'tagDocs'] as const;

const BOOST: Record<(typeof FIELDS)[number], number> = FIELD_BOOSTS;

/** Terms this long or longer also match index words one edit away (two for long words)… */
const FUZZY_MIN_LENGTH = 6;
/** …within this share of their length… */
const FUZZINESS = 0.2;
/** …and never more than this many edits. */
const MAX_FUZZY_EDITS = 2;
/** The most a tag's description contributes, in characters. */
const TAG_TEXT_MAX = 600;
/** The most of an operation's description indexed, in characters. */
const DESCRIPTION_MAX = 600;

function processTerm(term: string): string | null {
  const n = normalize(term);
  if (!n || isStopWord(n)) return null;
  return stem(n);
}

function indexOptions(): Options<IndexedOperation> {
  return {
    fields: [...FIELDS],
    storeFields: [],
    tokenize: (text) => splitWords(text),
    processTerm,
    searchOptions: {
      boost: BOOST,
      prefix: isPrefix,
      fuzzy: (term) => (term.length >= FUZZY_MIN_LENGTH ? FUZZINESS : false),
      maxFuzzy: MAX_FUZZY_EDITS,
    },
  };
}

/** Tag name → its description and display name, from the document's `tags`. */
export function tagTexts(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(tags)) return out;
  for (const tag of tags) {
    if (!tag || typeof tag !== 'object' || typeof tag.name !== 'string') continue;
    const display = typeof tag['x-displayName'] === 'string' ? tag['x-displayName'] : '';
    const description = typeof tag.description === 'string' ? tag.description.replace(/\s+/g, ' ').slice(0, TAG_TEXT_MAX) : '';
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
  const params = searchableParams(op);
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
    returns: returnedFields(op).join(' '),
    description: (op.description ?? '').slice(0, DESCRIPTION_MAX),
    tagDocs: op.tags.map((t) => tags[t] ?? '').join(' '),
  };
}

/** Operations indexed between two progress reports. */
const PROGRESS_EVERY = 500;

/** Indexes the catalogue's operations (ids are their positions in it); `onProgress` hears how many are done, now and then. */
export function buildSearchIndex(catalogue: Catalogue, tags: Record<string, string>, onProgress?: (indexed: number) => void): SearchIndex {
  const index = new MiniSearch<IndexedOperation>(indexOptions());
  const { operations } = catalogue;
  for (let start = 0; start < operations.length; start += PROGRESS_EVERY) {
    const end = Math.min(operations.length, start + PROGRESS_EVERY);
    for (let i = start; i < end; i++) index.add(toDocument(operations[i]!, i, catalogue, tags));
    onProgress?.(end);
  }
  return index;
}

/** An index from its saved state (`index.toJSON()`). */
export function loadSearchIndex(state: AsPlainObject): SearchIndex {
  return MiniSearch.loadJS<IndexedOperation>(state, indexOptions());
}

/** The index as a served API keeps it: compact (compactIndex.ts). */
export function compactSearchIndex(catalogue: Catalogue, tags: Record<string, string>, onProgress?: (indexed: number) => void): CompactIndex {
  return CompactIndex.of(buildSearchIndex(catalogue, tags, onProgress));
}

/** An empty index with the options every index is built with: what a compact index is searched with. */
let optionsHolder: SearchIndex | undefined;

/**
 * The best candidates for a query: its own words, then its typo fixes, synonyms and learnt words at lower weights.
 * Fuzzy matching is for words the operations' names do not hold (`known` says which they do): a word they hold is
 * meant as written, and matching its neighbours too only costs time (a fifth of a search on GitHub's document).
 */
export function recall(
  index: SearchIndex | CompactIndex,
  query: string,
  read: Pick<ReadQuery, 'corrections' | 'expansionTerms' | 'learnedTerms' | 'corpusTerms' | 'peopleTerms'>,
  known: (term: string) => boolean = () => false,
): RecallHit[] {
  const queries = recallQueries(query, read, known);
  let engine = engines.get(index);
  if (!engines.has(index) || (engine && !engine.fits(index)))
    engines.set(
      index,
      (engine = index instanceof CompactIndex ? RecallEngine.forCompact(index, (optionsHolder ??= new MiniSearch(indexOptions()))) : RecallEngine.for(index)),
    );
  const depth = candidates(index.documentCount);
  if (engine) return engine.search(queries, depth);
  if (index instanceof CompactIndex) throw new Error('a compact index is searched by the recall engine');
  return index.search({ combineWith: 'OR', queries }).slice(0, depth);
}

/**
 * How many of recall's best operations are re-ranked: CANDIDATES, or a share of a very large document's operations
 * (CANDIDATE_SHARE), where one action repeated under many paths (`/me/…`, `/users/{id}/…`, `/groups/{id}/…`) would
 * otherwise fill every place.
 */
export function candidates(operations: number): number {
  return Math.max(CANDIDATES, Math.ceil(operations * CANDIDATE_SHARE));
}

/** Each index's recall engine (undefined: MiniSearch searches it itself). */
const engines = new WeakMap<SearchIndex | CompactIndex, RecallEngine | undefined>();

/** Recall's queries, as MiniSearch takes them: the query, then its typo fixes, synonyms, learnt words and the words for people a "who" asks for, each of one string. */
export function recallQueries(
  query: string,
  read: Pick<ReadQuery, 'corrections' | 'expansionTerms' | 'learnedTerms' | 'corpusTerms' | 'peopleTerms'>,
  known: (term: string) => boolean,
): (Query & { queries: [string] })[] {
  const { corrections, expansionTerms, learnedTerms, corpusTerms, peopleTerms } = read;
  const queries: (Query & { queries: [string] })[] = [
    { queries: [query], fuzzy: (term: string) => (term.length >= FUZZY_MIN_LENGTH && !known(term) ? FUZZINESS : false) },
  ];
  if (corrections.size > 0)
    queries.push({ queries: [[...corrections.values()].join(' ')], boostTerm: () => RECALL_BOOSTS.correction, fuzzy: false, prefix: false });
  if (expansionTerms.size > 0)
    queries.push({ queries: [[...expansionTerms].join(' ')], boostTerm: () => RECALL_BOOSTS.expansion, fuzzy: false, prefix: false });
  if (learnedTerms.size > 0) queries.push({ queries: [[...learnedTerms].join(' ')], boostTerm: () => RECALL_BOOSTS.learned, fuzzy: false, prefix: false });
  if (corpusTerms.size > 0) queries.push({ queries: [[...corpusTerms].join(' ')], boostTerm: () => RECALL_BOOSTS.corpus, fuzzy: false, prefix: false });
  if (peopleTerms.length > 0) queries.push({ queries: [peopleTerms.join(' ')], boostTerm: () => RECALL_BOOSTS.people, fuzzy: false, prefix: false });
  return queries;
}
