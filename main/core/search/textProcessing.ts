// Turns text (operation ids, summaries, paths, queries in English or French)
// into search terms: split on separators and camelCase, lowercase, strip
// accents, drop stop words, fold plurals. Index and queries share it.

const STOP_WORDS = new Set([
  // English
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'for',
  'with',
  'and',
  'or',
  'is',
  'are',
  'be',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'do',
  'does',
  'can',
  'i',
  'you',
  'we',
  'please',
  'how',
  'what',
  'which',
  'there',
  'from',
  'at',
  'as',
  'into',
  'via',
  'using',
  'want',
  'need',
  'would',
  'like',
  'some',
  'any',
  // French
  'le',
  'la',
  'les',
  'l',
  'un',
  'une',
  'des',
  'du',
  'de',
  'd',
  'et',
  'ou',
  'en',
  'dans',
  'sur',
  'pour',
  'avec',
  'par',
  'au',
  'aux',
  'ce',
  'ces',
  'cet',
  'cette',
  'qui',
  'que',
  'qu',
  'quel',
  'quelle',
  'quels',
  'quelles',
  'est',
  'sont',
  'je',
  'j',
  'tu',
  'il',
  'elle',
  'nous',
  'vous',
  'ils',
  'elles',
  'y',
  'a',
  'se',
  's',
  'ne',
  'pas',
  'veux',
  'voudrais',
  'peux',
  'faire',
]);

/** Lowercase, accents stripped (`Événements` → `evenements`). */
export function normalize(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

/** Splits camelCase and any non letter/digit run: `getByExtId` → `get by ext id`. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** An s-stemmer good enough for English and French plurals. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return word.slice(0, -3) + 'y';
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('aux') && word.length > 4) return word.slice(0, -3) + 'al';
  if (word.endsWith('eux') && word.length > 4) return word.slice(0, -1);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** The terms of a text, in order, stop words removed. */
export function terms(text: string): string[] {
  return splitWords(text)
    .map(normalize)
    .filter((w) => w.length > 0 && !isStopWord(w))
    .map(stem);
}
