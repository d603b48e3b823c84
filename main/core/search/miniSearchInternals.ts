// The parts of a MiniSearch index's private state that the recall engine and
// the compact index read, as types (MiniSearch 7). One place, so neither of
// the two modules that read them imports the other for them.
/** A word's postings: field id → operation (short id) → how often. */
export type FieldTermData = Map<number, Map<number, number>>;

/** The parts of a MiniSearch index recallEngine.ts and compactIndex.ts read (MiniSearch 7). */
export interface IndexInternals {
  _index: {
    get(term: string): FieldTermData | undefined;
    atPrefix(prefix: string): Iterable<[string, FieldTermData]>;
    fuzzyGet(term: string, maxDistance: number): Map<string, [FieldTermData, number]>;
  };
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _fieldLength: Map<number, number[]>;
  _documentCount: number;
  _documentIds: Map<number, unknown>;
  _dirtCount: number;
  _nextId: number;
  _options: {
    fields: string[];
    tokenize: (text: string) => string[];
    processTerm: (term: string) => string | string[] | null | undefined | false;
    searchOptions: SearchDefaults;
  };
}

export interface SearchDefaults {
  boost?: Record<string, number>;
  prefix?: boolean | ((term: string, i: number, terms: string[]) => boolean);
  fuzzy?: boolean | number | ((term: string, i: number, terms: string[]) => boolean | number);
  maxFuzzy: number;
  weights: { fuzzy: number; prefix: number };
  bm25: { k: number; b: number; d: number };
  boostDocument?: unknown;
}

/** The MiniSearch release these internals are read from: package.json pins it, and test/unit/miniSearchInternals.test.ts checks both. */
export const MINISEARCH_VERSION = '7.2.0';
