// Recall's arithmetic, done once per index word. MiniSearch scores a query by
// walking, for every word the query reaches (the word itself, its prefix
// matches, its fuzzy matches), every field that holds it, computing BM25 for
// each operation there and building a record of which field matched which
// word. Nothing of that depends on the query but a word's weight: the index
// never changes once built. So each word's postings are turned once into
// (operation, field boost, BM25) triples, and a query only multiplies and
// adds. The sums are made in MiniSearch's order, term by term and field by
// field, and the results are combined as its OR combines them, so the scores
// and the order of ties are the same to the last bit
// (test/unit/recallEngine.test.ts compares the two on every evaluation
// request). It reads a served API's compact index (compactIndex.ts), or a
// MiniSearch index's internals through `IndexInternals`; a MiniSearch index
// these do not describe, or one with removed documents, is searched by
// MiniSearch itself.
import type { SearchResult } from 'minisearch';
import type { CompactIndex } from './compactIndex.ts';
import type { FieldTermData, IndexInternals, SearchDefaults } from './miniSearchInternals.ts';

/** An operation recall found (`id`: its position in the catalogue) and its BM25 score. */
export type RecallHit = Pick<SearchResult, 'id' | 'score'>;

/** A word's postings, scored: entry i is operation `docs[i]` with BM25 `scores[i]`, field by field in order (each field's entries end at its `end`). */
interface ScoredPostings {
  docs: Int32Array;
  scores: Float64Array;
  fields: { boost: number; end: number }[];
}

/** What the engine reads of an index: a word's postings (of type T) by word, prefix or fuzzy match, field by field. */
interface RecallSource<T> {
  get(term: string): T | undefined;
  atPrefix(prefix: string): Iterable<[string, T]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [T, number]>;
  /** A word's operations and frequencies in one field, in index order. */
  fieldPostings(data: T, fieldId: number): { docs: ArrayLike<number>; freqs: ArrayLike<number> } | undefined;
  fieldLength(doc: number, fieldId: number): number;
  avgFieldLength: ArrayLike<number>;
  documentCount: number;
  /** One more than the highest operation number. */
  size: number;
  documentId(doc: number): unknown;
  options: IndexInternals['_options'];
}

/** A MiniSearch index's internals as a recall source. */
function miniSearchSource(inside: IndexInternals): RecallSource<FieldTermData> {
  return {
    get: (term) => inside._index.get(term),
    atPrefix: (prefix) => inside._index.atPrefix(prefix),
    fuzzyGet: (term, maxDistance) => inside._index.fuzzyGet(term, maxDistance),
    fieldPostings: (data, fieldId) => {
      const freqs = data.get(fieldId);
      return freqs ? { docs: [...freqs.keys()], freqs: [...freqs.values()] } : undefined;
    },
    fieldLength: (doc, fieldId) => inside._fieldLength.get(doc)![fieldId]!,
    avgFieldLength: inside._avgFieldLength,
    documentCount: inside._documentCount,
    size: inside._nextId,
    documentId: (doc) => inside._documentIds.get(doc),
    options: inside._options,
  };
}

/** A compact index as a recall source, searched with a MiniSearch index's options (its defaults merged as it merges them). */
function compactSource(index: CompactIndex, options: IndexInternals['_options']): RecallSource<number> {
  return {
    get: (term) => index.get(term),
    atPrefix: (prefix) => index.atPrefix(prefix),
    fuzzyGet: (term, maxDistance) => index.fuzzyGet(term, maxDistance),
    fieldPostings: (at, fieldId) => index.fieldPostings(at, fieldId),
    fieldLength: (doc, fieldId) => index.fieldLength(doc, fieldId),
    avgFieldLength: index.avgFieldLength,
    documentCount: index.documentCount,
    size: index.size,
    documentId: (doc) => index.documentId(doc),
    options,
  };
}

/** What a query spec reaches: its own word, its prefix matches and its fuzzy matches, each with its weight. */
type Reached = { postings: ScoredPostings; weight: number }[];

/** The most query words whose prefix or fuzzy matches are kept (any word may be asked; index words are bounded by the index). */
const MATCH_CACHE_MAX = 4096;

/** The index-wide search options this module applies exactly as MiniSearch does. */
const SEARCH_OPTIONS_APPLIED = new Set(['combineWith', 'prefix', 'fuzzy', 'maxFuzzy', 'boost', 'weights', 'bm25']);

const NONE: ScoredPostings = { docs: new Int32Array(0), scores: new Float64Array(0), fields: [] };

/** A query string's options, as MiniSearch merges them: the index's defaults, then the query's own. */
interface SubqueryOptions {
  prefix?: SearchDefaults['prefix'];
  fuzzy?: SearchDefaults['fuzzy'];
  boostTerm?: (term: string, i: number, terms: string[]) => number;
}

export class RecallEngine {
  private readonly source: RecallSource<unknown>;
  /** The MiniSearch index read, when the source is one (`fits` checks it is unchanged). */
  private readonly internals: IndexInternals | undefined;
  private readonly fieldBoosts: [fieldId: number, boost: number][];
  private readonly postings = new Map<string, ScoredPostings>();
  private readonly prefixes = new Map<string, [string, ScoredPostings][]>();
  private readonly fuzzies = new Map<string, [string, ScoredPostings, number][]>();
  /** One more than the highest short id. */
  private readonly size: number;
  /** How many documents the index held when this engine read it. */
  private readonly documents: number;
  private levels: { terms: number; word: Sums; subquery: Sums; total: Sums } | undefined;

  private constructor(source: RecallSource<unknown>, fieldIds: Record<string, number>, internals?: IndexInternals) {
    this.source = source;
    this.internals = internals;
    const boost = source.options.searchOptions.boost ?? {};
    this.size = source.size;
    this.documents = source.documentCount;
    this.fieldBoosts = source.options.fields.map((field) => [fieldIds[field]!, (Object.hasOwn(boost, field) ? boost[field] : 0) || 1]);
  }

  /** The engine for a compact index, searched with the options of `like` (a MiniSearch index made with the options it was built with). */
  static forCompact(index: CompactIndex, like: object): RecallEngine {
    const options = (like as Partial<IndexInternals>)._options;
    if (!options) throw new Error('no MiniSearch options to search a compact index with');
    return new RecallEngine(compactSource(index, options) as RecallSource<unknown>, index.fieldIds);
  }

  /** The engine for an index, or undefined when its internals are not the ones this module knows (MiniSearch then searches). */
  static for(index: object): RecallEngine | undefined {
    const inside = index as unknown as Partial<IndexInternals>;
    const options = inside._options?.searchOptions as Record<string, unknown> | undefined;
    const { weights, bm25 } = (options ?? {}) as Partial<SearchDefaults>;
    const ok =
      inside._index !== undefined &&
      typeof inside._index.get === 'function' &&
      typeof inside._index.atPrefix === 'function' &&
      typeof inside._index.fuzzyGet === 'function' &&
      inside._fieldLength instanceof Map &&
      inside._documentIds instanceof Map &&
      Array.isArray(inside._avgFieldLength) &&
      Array.isArray(inside._options?.fields) &&
      Number.isSafeInteger(inside._nextId) &&
      inside._dirtCount === 0 &&
      // Only the search options this module applies as MiniSearch does (a boostTerm, filter or boostDocument for the whole index would not be).
      options !== undefined &&
      Object.keys(options).every((key) => SEARCH_OPTIONS_APPLIED.has(key)) &&
      typeof weights?.fuzzy === 'number' &&
      typeof weights.prefix === 'number' &&
      [bm25?.k, bm25?.b, bm25?.d].every((n) => typeof n === 'number');
    return ok ? new RecallEngine(miniSearchSource(inside as IndexInternals) as RecallSource<unknown>, inside._fieldIds!, inside as IndexInternals) : undefined;
  }

  /** Whether the index is still the one this engine read (no document added or removed since; a compact index never changes). */
  fits(index: object): boolean {
    if (!this.internals) return true;
    const inside = index as unknown as IndexInternals;
    return inside === this.internals && inside._dirtCount === 0 && inside._documentCount === this.documents && inside._nextId === this.size;
  }

  /**
   * The first `limit` of what `index.search({ combineWith: 'OR', queries })` gives, for queries of one string each:
   * best first, a tie in the order MiniSearch's stable sort leaves it (first reached first).
   */
  search(queries: (SubqueryOptions & { queries: [string] })[], limit: number): RecallHit[] {
    if (limit < 1) return [];
    const { tokenize, processTerm, searchOptions } = this.source.options;
    const termIds = new Map<string, number>();
    // Each query string's words, with what MiniSearch would make of each: prefix, fuzzy, boost.
    const subqueries = queries.map((own) => {
      const prefix = own.prefix ?? searchOptions.prefix;
      const fuzzy = own.fuzzy ?? searchOptions.fuzzy;
      const words = tokenize(own.queries[0])
        .flatMap((t) => processTerm(t))
        .filter((t): t is string => !!t);
      return words.map((term, i) => {
        if (!termIds.has(term)) termIds.set(term, termIds.size);
        return {
          termId: termIds.get(term)!,
          reached: this.reach(
            term,
            typeof prefix === 'function' ? prefix(term, i, words) : prefix === true,
            typeof fuzzy === 'function' ? fuzzy(term, i, words) : fuzzy || false,
          ),
          boost: own.boostTerm ? own.boostTerm(term, i, words) : 1,
        };
      });
    });
    const { word, subquery, total } = this.sums(termIds.size);
    const best: { doc: number; score: number }[] = [];
    try {
      // Summed as MiniSearch sums: within a query word, reached word by reached word and field by field; then the
      // query words of a string, in order; then the strings. Each level starts from 0, and 0 + x is x to the bit.
      for (const specs of subqueries) {
        for (const { termId, reached, boost } of specs) {
          for (const { postings, weight } of reached) word.add(postings, weight * boost);
          word.moveInto(subquery, termId);
        }
        subquery.moveInto(total);
      }
      total.forEach((doc, score, terms) => {
        const scored = score * (terms || 1);
        if (best.length === limit && !(scored > best[limit - 1]!.score)) return;
        // After every kept one that scores as much: a later tie never passes an earlier one.
        let at = best.length;
        while (at > 0 && best[at - 1]!.score < scored) at--;
        best.splice(at, 0, { doc, score: scored });
        if (best.length > limit) best.pop();
      });
    } finally {
      // The sums are kept for the next search: whatever happened, they start it at 0.
      word.clear();
      subquery.clear();
      total.clear();
    }
    return best.map(({ doc, score }) => ({ id: this.source.documentId(doc), score }));
  }

  /** The three levels of sums, kept between searches (cleared after each), sized for this index and `terms` query words. */
  private sums(terms: number): { word: Sums; subquery: Sums; total: Sums } {
    const size = this.size;
    if (!this.levels || this.levels.terms < terms)
      this.levels = { terms, word: new Sums(size, 0), subquery: new Sums(size, terms), total: new Sums(size, terms) };
    return this.levels;
  }

  /** The words a query word reaches, in MiniSearch's order: itself, its prefix matches, then its other fuzzy matches. */
  private reach(term: string, prefix: boolean, fuzzy: boolean | number): Reached {
    const reached: Reached = [{ postings: this.scored(term, this.source.get(term)), weight: 1 }];
    const { weights, maxFuzzy } = this.source.options.searchOptions;
    const prefixed = prefix ? this.prefixMatches(term) : [];
    for (const [word, postings] of prefixed) {
      const distance = word.length - term.length;
      reached.push({ postings, weight: (weights.prefix * word.length) / (word.length + 0.3 * distance) });
    }
    if (fuzzy !== false) {
      const f = fuzzy === true ? 0.2 : fuzzy;
      const maxDistance = f < 1 ? Math.min(maxFuzzy, Math.round(term.length * f)) : f;
      if (maxDistance) {
        const skip = new Set(prefixed.map(([word]) => word));
        for (const [word, postings, distance] of this.fuzzyMatches(term, maxDistance)) {
          if (!skip.has(word)) reached.push({ postings, weight: (weights.fuzzy * word.length) / (word.length + distance) });
        }
      }
    }
    return reached;
  }

  private prefixMatches(term: string): [string, ScoredPostings][] {
    let found = this.prefixes.get(term);
    if (!found) {
      found = [];
      for (const [word, data] of this.source.atPrefix(term)) if (word.length !== term.length) found.push([word, this.scored(word, data)]);
      if (this.prefixes.size >= MATCH_CACHE_MAX) this.prefixes.clear();
      this.prefixes.set(term, found);
    }
    return found;
  }

  private fuzzyMatches(term: string, maxDistance: number): [string, ScoredPostings, number][] {
    const key = `${maxDistance}:${term}`;
    let found = this.fuzzies.get(key);
    if (!found) {
      found = [];
      for (const [word, [data, distance]] of this.source.fuzzyGet(term, maxDistance)) if (distance) found.push([word, this.scored(word, data), distance]);
      if (this.fuzzies.size >= MATCH_CACHE_MAX) this.fuzzies.clear();
      this.fuzzies.set(key, found);
    }
    return found;
  }

  /** A word's postings with BM25 worked out, once. */
  private scored(word: string, data: unknown): ScoredPostings {
    if (data === undefined) return NONE;
    const known = this.postings.get(word);
    if (known) return known;
    const source = this.source;
    const { avgFieldLength: avg, documentCount: count } = source;
    const { k, b, d } = source.options.searchOptions.bm25;
    const docs: number[] = [];
    const fields: ScoredPostings['fields'] = [];
    const scores: number[] = [];
    for (const [fieldId, boost] of this.fieldBoosts) {
      const postings = source.fieldPostings(data, fieldId);
      if (!postings) continue;
      const matching = postings.docs.length;
      const idf = Math.log(1 + (count - matching + 0.5) / (matching + 0.5));
      for (let i = 0; i < matching; i++) {
        const doc = postings.docs[i]!;
        const tf = postings.freqs[i]!;
        docs.push(doc);
        scores.push(idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * source.fieldLength(doc, fieldId)) / avg[fieldId]!))));
      }
      fields.push({ boost, end: docs.length });
    }
    const out = { docs: Int32Array.from(docs), scores: Float64Array.from(scores), fields };
    this.postings.set(word, out);
    return out;
  }
}

/**
 * Running sums over an index's operations, with the order each was first reached in (MiniSearch's results are Maps:
 * their order is that order, and ties keep it) and, from the query-string level up, which query words reached each.
 */
class Sums {
  private readonly scores: Float64Array;
  private readonly reached: Uint8Array;
  private readonly order: Int32Array;
  private count = 0;
  /** `words` bits a operation: which query words reached it (their number is the quality MiniSearch multiplies by). */
  private readonly words: Uint32Array;
  private readonly wordBlocks: number;

  constructor(size: number, words: number) {
    this.scores = new Float64Array(size);
    this.reached = new Uint8Array(size);
    this.order = new Int32Array(size);
    this.wordBlocks = Math.ceil(words / 32);
    this.words = new Uint32Array(size * this.wordBlocks);
  }

  private touch(doc: number): void {
    if (this.reached[doc]) return;
    this.reached[doc] = 1;
    this.order[this.count++] = doc;
  }

  /** One reached word's scores, as MiniSearch's termResults adds them (term weight × boost × field boost × BM25). */
  add({ docs, scores, fields }: ScoredPostings, weight: number): void {
    let i = 0;
    for (const { boost, end } of fields) {
      const weightInField = weight * boost;
      for (; i < end; i++) {
        const doc = docs[i]!;
        this.touch(doc);
        this.scores[doc] = this.scores[doc]! + weightInField * scores[i]!;
      }
    }
  }

  /**
   * Adds these sums into `into` as MiniSearch's OR combines two results (its score plus ours, our new ones after its
   * own), with query word `word` for each when these are one query word's, and clears these.
   */
  moveInto(into: Sums, word?: number): void {
    for (let k = 0; k < this.count; k++) {
      const doc = this.order[k]!;
      into.touch(doc);
      into.scores[doc] = into.scores[doc]! + this.scores[doc]!;
      if (word !== undefined) {
        const at = doc * into.wordBlocks + (word >>> 5);
        into.words[at] = into.words[at]! | (1 << (word & 31));
      } else
        for (let b = 0; b < this.wordBlocks; b++)
          into.words[doc * into.wordBlocks + b] = into.words[doc * into.wordBlocks + b]! | this.words[doc * this.wordBlocks + b]!;
    }
    this.clear();
  }

  /** Each operation reached, in order, with its sum and how many query words reached it. */
  forEach(visit: (doc: number, score: number, words: number) => void): void {
    for (let k = 0; k < this.count; k++) {
      const doc = this.order[k]!;
      let n = 0;
      for (let b = 0; b < this.wordBlocks; b++) n += bitCount(this.words[doc * this.wordBlocks + b]!);
      visit(doc, this.scores[doc]!, n);
    }
  }

  clear(): void {
    for (let k = 0; k < this.count; k++) {
      const doc = this.order[k]!;
      this.scores[doc] = 0;
      this.reached[doc] = 0;
      for (let b = 0; b < this.wordBlocks; b++) this.words[doc * this.wordBlocks + b] = 0;
    }
    this.count = 0;
  }
}

function bitCount(n: number): number {
  n = n - ((n >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
