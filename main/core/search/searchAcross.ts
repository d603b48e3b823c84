// One query over several APIs: each API's search ranks its own operations,
// and the hits are merged on their scores. The scores can be merged because
// every part of one (scoring.ts) measures how well an operation fits the
// query — the share of the query it explains, of its summary the query
// explains, whether its action is the one asked for — not how many
// operations its API has; only recall is relative, to the best candidate of
// the same API. Merged, two more signals say which API a request is about
// (ACROSS_WEIGHTS): how much of it is in the API's own words, and whether it
// names the API. `npm run bench:search-across` measures what merging costs
// each API's own ranking.
import type { OperationSearch, SearchHit } from './operationSearch.ts';
import { terms } from './textProcessing.ts';
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
  const asked = new Set(terms(query));
  return apis
    .flatMap((from) => {
      const named = from.names.some((n) => terms(n).some((t) => asked.has(t))) ? ACROSS_WEIGHTS.named : 0;
      const bonus = ACROSS_WEIGHTS.familiarity * from.search.familiarity(query) + named;
      return from.search.search(query, limit).map((hit) => ({ ...hit, score: Math.round((hit.score + bonus) * SCORE_PRECISION) / SCORE_PRECISION, from }));
    })
    .sort((x, y) => y.score - x.score)
    .slice(0, limit);
}
