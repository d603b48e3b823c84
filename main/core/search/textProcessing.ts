// Turns text (operation ids, summaries, paths, queries in English or French)
// into search terms: split on separators and camelCase, lowercase, strip
// accents, drop stop words, fold plurals. Index and queries share it.
import { STOP_WORDS, WHOLE_WORDS } from './wordLists.ts';

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

/** The shortest word matched as a prefix of a longer one ("deploy" → deployment). */
export const MIN_PREFIX_LENGTH = 3;

/** Whether a query word may be matched as the start of a longer word: long enough (MIN_PREFIX_LENGTH), and not a function word. */
export function isPrefix(term: string): boolean {
  return term.length >= MIN_PREFIX_LENGTH && !WHOLE_WORDS.has(term);
}

/** Whether a word of `words` (at least `min` letters) starts with `prefix`. */
export function someStartsWith(words: Iterable<string>, prefix: string, min = 0): boolean {
  for (const w of words) if (w.length >= min && w.startsWith(prefix)) return true;
  return false;
}

/** Whether `word` starts with one of `prefixes` long enough to be one (MIN_PREFIX_LENGTH). */
export function startsWithSome(word: string, prefixes: Iterable<string>): boolean {
  for (const t of prefixes) if (isPrefix(t) && word.startsWith(t)) return true;
  return false;
}
