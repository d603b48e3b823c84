// search_docs' ranking, in two stages, over a catalogue's operations:
// 1. Recall (searchIndex.ts): a BM25 index over the operations' names and
//    prose, searched with the query's words and, at lower weights, their typo
//    fixes (typoCorrection.ts), built-in synonyms (synonyms.ts) and the API's
//    own vocabulary learnt from its prose (documentVocabulary.ts).
// 2. Precision (scoring.ts): the best candidates are re-ranked on what the
//    query asks, read once (queryParsing.ts), against what each operation is
//    and does (operationFeatures.ts); every weight is named in weights.ts.
// The state (index and learnt vocabulary) can be saved as plain data and
// restored without indexing again (toJSON / OperationSearch.restore).
import type { ApiOperation, Catalogue } from '../openapi/catalogue.ts';
import { terms } from './textProcessing.ts';
import { isBuiltInWord } from './synonyms.ts';
import { type LearnedVocabulary, learnVocabulary, withApiWords } from './documentVocabulary.ts';
import { compactSearchIndex, recall, tagTexts } from './searchIndex.ts';
import { CompactIndex } from './compactIndex.ts';
import { type OperationFeatures, featuresToJson, operationFeatures, selfParameters } from './operationFeatures.ts';
import { descriptionTexts } from './operationText.ts';
import { readQuery } from './queryParsing.ts';
import { typoCorrections } from './typoCorrection.ts';
import { scoreCandidate } from './scoring.ts';

export interface SearchHit {
  op: ApiOperation;
  score: number;
}

/** A hit with the parts of its score (see scoring.ts). */
export interface RankedHit extends SearchHit {
  parts: Record<string, number>;
}

/** What the document says beside its operations: its tags (name, description, x-displayName). */
export interface SearchDocumentInfo {
  tags?: unknown;
  /** Told how many operations are indexed so far, now and then while a large catalogue is indexed. */
  onProgress?(indexed: number): void;
}

/** A search restored from a prepared store: its index, what it learnt, and each operation's features read on demand. */
export interface RestoredSearch {
  index: CompactIndex;
  vocabulary: string[];
  learned: LearnedVocabulary;
  tags: Record<string, string>;
  selfParams: string[];
  /** Operation `position`'s features (re-ranking reads those of the candidates it meets); absent, they are worked out from the catalogue. */
  features?(position: number): OperationFeatures;
}

/** Features of a restored search kept before the next read starts afresh. */
const KEPT_FEATURES = 4096;

/** Plain data (JSON-safe) from which OperationSearch.restore rebuilds a search without indexing again. */
export interface OperationSearchState {
  format: number;
  operations: number;
  /** The compact index's JSON form. */
  index: unknown;
  /** Terms of the operations' names and parameters (what typo correction corrects to). */
  vocabulary: string[];
  learned: LearnedVocabulary;
  tags: Record<string, string>;
  /** Path parameters the document says take "me" (the caller). */
  selfParams: string[];
}

const STATE_FORMAT = 2;

export class OperationSearch {
  private readonly index: CompactIndex;
  private readonly operations: ApiOperation[];
  private features: (OperationFeatures | undefined)[] | Map<number, OperationFeatures>;
  private readonly readFeatures: ((position: number) => OperationFeatures) | undefined;
  private readonly vocabulary: Set<string>;
  private readonly learned: LearnedVocabulary;
  /** What a query is read with: the document's learnt words, and this API's own (its profile's `words`) first. */
  private queryWords: LearnedVocabulary | undefined;
  private readonly tags: Record<string, string>;
  private readonly selfParams: Set<string>;

  constructor(catalogue: Catalogue, info: SearchDocumentInfo = {}, restored?: RestoredSearch) {
    this.operations = catalogue.operations;
    this.tags = restored ? restored.tags : tagTexts(info.tags);
    this.index = restored ? restored.index : compactSearchIndex(catalogue, this.tags, info.onProgress);
    this.readFeatures = restored?.features;
    this.features = this.readFeatures ? new Map() : new Array<OperationFeatures | undefined>(this.operations.length);
    this.selfParams = new Set(restored ? restored.selfParams : selfParameters(this.operations));
    if (restored) {
      this.vocabulary = new Set(restored.vocabulary);
      this.learned = restored.learned;
      return;
    }
    // What typo correction corrects to (every operation's name and parameter terms, in order), and what the prose teaches.
    this.vocabulary = new Set();
    const names: Set<string>[] = [];
    const prose: Set<string>[] = [];
    this.operations.forEach((op, i) => {
      const f = this.feature(i);
      names.push(f.names);
      for (const t of f.all) this.vocabulary.add(t);
      prose.push(new Set(terms(descriptionTexts(op, this.tags).join(' '))));
    });
    this.learned = learnVocabulary({ names, prose, ignore: isBuiltInWord });
  }

  /** What re-ranking needs of an operation, worked out on first use (a restored search reads it from its store). */
  private feature(i: number): OperationFeatures {
    const features = this.features;
    if (Array.isArray(features)) return (features[i] ??= operationFeatures(this.operations[i]!, this.tags, this.selfParams));
    let f = features.get(i);
    if (!f) {
      if (features.size >= KEPT_FEATURES) this.features = new Map();
      f = this.readFeatures!(i);
      (this.features as Map<number, OperationFeatures>).set(i, f);
    }
    return f;
  }

  /** Operation `position`'s features as JSON text (what a prepared store keeps). */
  featuresJson(position: number): string {
    return featuresToJson(this.feature(position));
  }

  /** Rebuilds a search from `toJSON()`'s data for the same catalogue, without indexing again. */
  static restore(catalogue: Catalogue, state: OperationSearchState): OperationSearch {
    if (!state || state.format !== STATE_FORMAT || state.operations !== catalogue.operations.length) {
      throw new Error('search index state does not fit this catalogue');
    }
    return new OperationSearch(catalogue, {}, { ...state, index: CompactIndex.fromJSON(state.index) });
  }

  /** The compact index (a prepared store writes its parts). */
  compactIndex(): CompactIndex {
    return this.index;
  }

  /** Whether a state (as `toJSON()` wrote it, its index aside) is one this code restores, for a catalogue of `operations`. */
  static fits(state: Omit<OperationSearchState, 'index'>, operations: number): boolean {
    return !!state && state.format === STATE_FORMAT && state.operations === operations;
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

  /** Whether a term (as `terms()` gives it) is one of this API's words: its operations' names and parameters, or what its prose taught. */
  knows(term: string): boolean {
    return this.vocabulary.has(term) || Object.hasOwn(this.learned, term);
  }

  /** A tag's words as the document gives them (its display name and description), when it has any. */
  tagText(tag: string): string | undefined {
    return Object.hasOwn(this.tags, tag) ? this.tags[tag] : undefined;
  }

  /**
   * This API's own words (its profile's `words`: a word a request may use → the words the document uses), read at
   * each search before what the prose taught. They live with the API, never in the code of search: Stripe's
   * "payment" is a PaymentIntent, OpenAgenda's "upcoming" its `relative` filter.
   */
  useWords(words: Readonly<Record<string, readonly string[]>> | undefined): void {
    this.queryWords = words && Object.keys(words).length > 0 ? withApiWords(this.learned, words) : undefined;
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
    const read = readQuery(trimmed, { vocabulary: this.vocabulary, learned: this.queryWords ?? this.learned });
    const recalled = recall(this.index, read.request, read, (t) => this.vocabulary.has(t));
    if (recalled.length === 0) return [];
    const top = recalled[0]!.score;
    const scored = recalled.map((r) => {
      const id = r.id as number;
      const op = this.operations[id]!;
      return { op, ...scoreCandidate(op, this.feature(id), read, r.score / top) };
    });
    scored.sort((a, b) => b.score - a.score);
    return scored;
  }

  /** The typo fixes a query gets: each unknown word and the catalogue word it is read as. */
  corrected(query: string): Record<string, string> {
    return Object.fromEntries(typoCorrections(query, terms(query), this.vocabulary));
  }
}
