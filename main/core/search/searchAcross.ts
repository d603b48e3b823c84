// One query over several APIs: each API's search ranks its own operations,
// and the hits are merged on their scores. The scores can be merged because
// every part of one (scoring.ts) measures how well an operation fits the
// query — the share of the query it explains, of its summary the query
// explains, whether its action is the one asked for — not how many
// operations its API has; only recall is relative, to the best candidate of
// the same API. Merged, two more signals say which API a request is about
// (ACROSS_WEIGHTS): how much of it is in the API's own words — a word every
// API in reach knows says nothing, one only this API knows says most — and
// whether it names the API (a name no other API in reach uses as a word).
// `npm run bench:search-across` measures what merging costs each API's own
// ranking.
import type { OperationSearch, SearchHit } from './operationSearch.ts';
import { terms } from './textProcessing.ts';
import { withoutLead } from './requestForms.ts';
import { ACROSS_WEIGHTS, SCORE_PRECISION } from './weights.ts';

export interface SearchableSource {
  search: OperationSearch;
  /** What a request may call the API by: its name, identifier, alias. */
  names: readonly string[];
}

export interface AcrossHit<A> extends SearchHit {
  /** The API the operation belongs to. */
  from: A;
}

/** The best `limit` operations of every API in `apis` for `query`, best first; a tie keeps the APIs' order. One API: its own ranking. */
export function searchAcross<A extends SearchableSource>(apis: readonly A[], query: string, limit: number): AcrossHit<A>[] {
  if (apis.length === 1) return apis[0]!.search.search(query, limit).map((hit) => ({ ...hit, from: apis[0]! }));
  const asked = [...new Set(terms(withoutLead(query)))];
  const knownBy = new Map(asked.map((t) => [t, apis.filter((a) => a.search.knows(t)).length]));
  // A word known to n of the N APIs in reach: 1 when only one knows it, 0 when all do.
  const telling = (t: string) => (apis.length - (knownBy.get(t) ?? 0)) / (apis.length - 1);
  return apis
    .flatMap((from) => {
      const bonus = ACROSS_WEIGHTS.familiarity * familiarity(from, asked, telling) + (names(from, asked, apis) ? ACROSS_WEIGHTS.named : 0);
      return from.search.search(query, limit).map((hit) => ({ ...hit, score: Math.round((hit.score + bonus) * SCORE_PRECISION) / SCORE_PRECISION, from }));
    })
    .sort((x, y) => y.score - x.score)
    .slice(0, limit);
}

/** How much of the request is in this API's words, each word counted by how few of the APIs in reach know it (0 to 1). */
function familiarity(api: SearchableSource, asked: readonly string[], telling: (t: string) => number): number {
  if (asked.length === 0) return 0;
  return asked.reduce((sum, t) => sum + (api.search.knows(t) ? telling(t) : 0), 0) / asked.length;
}

/** Whether the request names the API: every word of one of its names, none of them a word another API in reach knows. */
function names(api: SearchableSource, asked: readonly string[], apis: readonly SearchableSource[]): boolean {
  return api.names.some((name) => {
    const words = terms(name);
    return words.length > 0 && words.every((w) => asked.includes(w) && !apis.some((other) => other !== api && other.search.knows(w)));
  });
}
