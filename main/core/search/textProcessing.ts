// Turns text (operation ids, summaries, paths, queries in English or French)
// into search terms: split on separators and camelCase, lowercase, strip
// accents, drop stop words, fold plurals. Index and queries share it.
import { SINGULAR_S, STOP_WORDS, WHOLE_WORDS } from './wordLists.ts';

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

/** Whether a (normalized) word is a plural: the stemmer shortens it, and it is not one of the singulars that end in "s". */
export function isPlural(word: string): boolean {
  return stem(word) !== word && !SINGULAR_S.has(word);
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

/**
 * Endings that make a longer form of a short word, as `stem` leaves both ("box" → boxe, for boxes; "pay" → payment;
 * "tag" → tagged, its consonant doubled); "repo" is not the start of "report", nor "use" of "user", nor "auth" of "author".
 */
const ENDINGS = new Set('e ed ing er ment ion ation al ity able ure ee ship ness ance ence ive ic ry ery'.split(' '));
/** A start this long stands for any longer word it starts ("deploy" → deployment, "webhook" → webhooksettings). */
const LONG_START = 5;
/** What follows a short start, this long or longer, is a word of its own or an abbreviation's rest ("type" → typeahead, "info" → information). */
const LONG_REST = 4;

/**
 * Whether `word` is `start` or a longer form of it: `start` long enough to be a prefix (isPrefix), and either long
 * itself, or followed by a word ending or by a long rest.
 */
export function extendsWord(word: string, start: string): boolean {
  if (word === start) return true;
  if (!isPrefix(start) || !word.startsWith(start)) return false;
  const rest = word.slice(start.length);
  return start.length >= LONG_START || rest.length >= LONG_REST || ENDINGS.has(rest) || (rest[0] === start.at(-1) && ENDINGS.has(rest.slice(1)));
}

/** Whether a word of `words` (at least `min` letters) starts with `prefix`. */
export function someStartsWith(words: Iterable<string>, prefix: string, min = 0): boolean {
  for (const w of words) if (w.length >= min && w.startsWith(prefix)) return true;
  return false;
}

/** Whether `word` is one of `starts` or a longer form of one (extendsWord). */
export function extendsAny(word: string, starts: Iterable<string>): boolean {
  for (const t of starts) if (extendsWord(word, t)) return true;
  return false;
}

/** Whether one of `words` is `start` or a longer form of it (extendsWord). */
export function someWordExtends(words: Iterable<string>, start: string): boolean {
  for (const w of words) if (extendsWord(w, start)) return true;
  return false;
}
