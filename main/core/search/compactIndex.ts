// The search index as recall reads it, in a form that costs little memory
// and opens without parsing. A MiniSearch index keeps a Map per word and
// field with an entry per operation: Microsoft Graph's 1.3 million postings
// are ~60 MB of Maps. Here every posting is two numbers in one Uint32Array
// (per word: how many fields, then per field its id, how many operations,
// their ids, then how often the word occurs in each), the words are a radix
// tree (MiniSearch's own SearchableMap, for prefix and fuzzy matches) of
// offsets into it, and the field lengths one Uint32Array: ~11 MB for Graph,
// read from a prepared store as bytes.
//
// Built from a MiniSearch index (search/searchIndex.ts builds one), word by
// word in the order that index iterates its words, so prefix and fuzzy
// matches come in the same order and recall's sums are the same to the bit
// (test/unit/recallEngine.test.ts).
import SearchableMap from 'minisearch/SearchableMap';
import type MiniSearch from 'minisearch';
import type { IndexInternals } from './miniSearchInternals.ts';

/** What a compact index is made of: plain data (the JSON form) or bytes (a prepared store's sections). */
export interface CompactIndexParts {
  documentCount: number;
  /** One more than the highest operation number. */
  size: number;
  fieldIds: Record<string, number>;
  avgFieldLength: number[];
  /** The words, in the order their postings were written. */
  terms: string[];
  /** Where each word's postings start in `postings`. */
  offsets: Uint32Array;
  postings: Uint32Array;
  /** Operation × field: the field's length in words. */
  fieldLength: Uint32Array;
  /** Operation number → the id it was indexed with, when they differ (absent: the same). */
  documentIds?: number[];
}

/** The MiniSearch internals the compact form is read from: recall's, its words iterated in order. */
type MiniSearchInternals = Omit<IndexInternals, '_index' | '_options'> & { _index: Iterable<[string, Map<number, Map<number, number>>]> };

/** One field's postings of a word: operation numbers and how often the word occurs in each, in index order. */
export interface FieldPostings {
  docs: Uint32Array;
  freqs: Uint32Array;
}

export class CompactIndex {
  readonly documentCount: number;
  readonly size: number;
  readonly fieldIds: Record<string, number>;
  readonly avgFieldLength: number[];
  private readonly words: SearchableMap<number>;
  private readonly parts: CompactIndexParts;
  private readonly fields: number;

  constructor(parts: CompactIndexParts) {
    this.parts = parts;
    this.documentCount = parts.documentCount;
    this.size = parts.size;
    this.fieldIds = parts.fieldIds;
    this.avgFieldLength = parts.avgFieldLength;
    this.fields = Object.keys(parts.fieldIds).length;
    if (parts.terms.length !== parts.offsets.length) throw new TypeError('a compact index whose words and offsets differ in number');
    if (parts.fieldLength.length !== parts.size * this.fields) throw new TypeError('a compact index whose field lengths do not fit');
    this.words = new SearchableMap<number>();
    parts.terms.forEach((term, i) => {
      const at = parts.offsets[i]!;
      if (at >= parts.postings.length) throw new TypeError('a compact index whose offsets are out of bounds');
      this.words.set(term, at);
    });
  }

  /** The compact form of a MiniSearch index with no removed operations. */
  static of(index: MiniSearch<never> | MiniSearch<any>): CompactIndex {
    const inside = index as unknown as MiniSearchInternals;
    if (inside._dirtCount !== 0) throw new Error('an index with removed documents has no compact form');
    const fields = Object.keys(inside._fieldIds).length;
    const terms: string[] = [];
    const offsets: number[] = [];
    const postings: number[] = [];
    for (const [term, data] of inside._index) {
      terms.push(term);
      offsets.push(postings.length);
      postings.push(data.size);
      for (const [fieldId, freqs] of data) {
        postings.push(fieldId, freqs.size);
        for (const doc of freqs.keys()) postings.push(doc);
        for (const tf of freqs.values()) postings.push(tf);
      }
    }
    const fieldLength = new Uint32Array(inside._nextId * fields);
    for (const [doc, lengths] of inside._fieldLength) lengths.forEach((n, f) => (fieldLength[doc * fields + f] = n));
    let identity = true;
    for (const [doc, id] of inside._documentIds) if (doc !== id) identity = false;
    return new CompactIndex({
      documentCount: inside._documentCount,
      size: inside._nextId,
      fieldIds: { ...inside._fieldIds },
      avgFieldLength: [...inside._avgFieldLength],
      terms,
      offsets: Uint32Array.from(offsets),
      postings: Uint32Array.from(postings),
      fieldLength,
      ...(identity ? {} : { documentIds: Array.from({ length: inside._nextId }, (_, doc) => Number(inside._documentIds.get(doc) ?? doc)) }),
    });
  }

  /** What it is made of (a prepared store writes these). */
  toParts(): CompactIndexParts {
    return this.parts;
  }

  /** Where a word's postings are, if the index holds it. */
  get(term: string): number | undefined {
    return this.words.get(term);
  }

  /** The words that start with `prefix` (itself included), each with where its postings are. */
  atPrefix(prefix: string): Iterable<[string, number]> {
    return this.words.atPrefix(prefix);
  }

  /** The words within `maxDistance` edits of `term`, with where their postings are and the distance. */
  fuzzyGet(term: string, maxDistance: number): Map<string, [number, number]> {
    return this.words.fuzzyGet(term, maxDistance);
  }

  /** The word at `at` in field `fieldId`: its operations and frequencies, undefined when the field does not hold it. */
  fieldPostings(at: number, fieldId: number): FieldPostings | undefined {
    const { postings } = this.parts;
    const count = postings[at]!;
    let p = at + 1;
    for (let f = 0; f < count; f++) {
      const id = postings[p]!;
      const n = postings[p + 1]!;
      if (id === fieldId) return { docs: postings.subarray(p + 2, p + 2 + n), freqs: postings.subarray(p + 2 + n, p + 2 + 2 * n) };
      p += 2 + 2 * n;
    }
    return undefined;
  }

  /** An operation's length in words in one field. */
  fieldLength(doc: number, fieldId: number): number {
    return this.parts.fieldLength[doc * this.fields + fieldId]!;
  }

  /** The id an operation number was indexed with. */
  documentId(doc: number): number {
    return this.parts.documentIds ? this.parts.documentIds[doc]! : doc;
  }

  /** As plain JSON data (what `fromJSON` reads). */
  toJSON(): Record<string, unknown> {
    const p = this.parts;
    return { ...p, offsets: [...p.offsets], postings: [...p.postings], fieldLength: [...p.fieldLength] };
  }

  static fromJSON(data: unknown): CompactIndex {
    const d = data as Record<string, unknown>;
    const numbers = (key: string) => {
      const v = d?.[key];
      if (!Array.isArray(v) || !v.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff)) throw new TypeError(`a compact index without ${key}`);
      return Uint32Array.from(v as number[]);
    };
    if (!d || typeof d !== 'object' || !Array.isArray(d.terms) || !Array.isArray(d.avgFieldLength) || typeof d.fieldIds !== 'object')
      throw new TypeError('a compact index of an unexpected shape');
    return new CompactIndex({
      documentCount: Number(d.documentCount),
      size: Number(d.size),
      fieldIds: d.fieldIds as Record<string, number>,
      avgFieldLength: d.avgFieldLength as number[],
      terms: d.terms as string[],
      offsets: numbers('offsets'),
      postings: numbers('postings'),
      fieldLength: numbers('fieldLength'),
      ...(Array.isArray(d.documentIds) ? { documentIds: d.documentIds as number[] } : {}),
    });
  }
}
