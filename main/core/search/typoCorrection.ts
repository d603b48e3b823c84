// Typo correction: a query word the index does not know, read as the
// catalogue word one edit away (two for long words) — unless it is a real
// English word (englishWords.ts): the person meant it, the catalogue just
// lacks it ("note" is never "vote").
import { isEnglishWord } from './englishWords.ts';
import { normalize, someStartsWith, splitWords, stem } from './textProcessing.ts';

/** Words shorter than this are never corrected: too many words are one edit from a short one. */
const MIN_TYPO_LENGTH = 4;
/** Words this long or longer may be two edits from what was meant; shorter ones one. */
const LONG_WORD = 8;
const SHORT_WORD_EDITS = 1;
const LONG_WORD_EDITS = 2;

/**
 * Query terms unknown to the index mapped to a known term one edit away (two for long words).
 * A real English word is never "corrected": the person meant it, the catalogue just lacks it.
 * `vocabulary` is the index's terms, in order: the first of equally close terms wins.
 */
export function typoCorrections(query: string, queryTerms: string[], vocabulary: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  const words = new Set(
    splitWords(query)
      .map(normalize)
      .filter((w) => w.length >= MIN_TYPO_LENGTH),
  );
  const real = new Set([...words].filter((w) => !vocabulary.has(stem(w)) && isEnglishWord(w)).map(stem));
  for (const t of queryTerms) {
    if (t.length < MIN_TYPO_LENGTH || vocabulary.has(t) || real.has(t) || /^\d+$/.test(t)) continue;
    if (someStartsWith(vocabulary, t, t.length + 1)) continue; // a prefix, not a typo
    const best = closest(t, vocabulary, t.length >= LONG_WORD ? LONG_WORD_EDITS : SHORT_WORD_EDITS);
    if (best) out.set(t, best);
  }
  return out;
}

/** The first term of `vocabulary` closest to `term`, at most `max` edits away. */
function closest(term: string, vocabulary: Set<string>, max: number): string | undefined {
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const v of vocabulary) {
    // Cheap filters first: the length is near, and the first or second letter is right.
    if (Math.abs(v.length - term.length) > max || (v[0] !== term[0] && v[1] !== term[1])) continue;
    const d = editDistance(term, v, max);
    if (d < bestDistance) {
      best = v;
      bestDistance = d;
    }
  }
  return best;
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
