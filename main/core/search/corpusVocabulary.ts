// The corpus vocabulary: what the words people write in operation summaries
// tend to mean in operation names, learnt offline from hundreds of public
// APIs (scripts/learnCorpusVocabulary.ts, which says how; the evaluation's
// APIs are left out). A query word the table knows gains the name words it
// stands for, but only those the API at hand uses (in its names or
// parameters): "access" reaches an API's `permission` operations only if it
// has some. It is weighted below what the
// API's own document teaches (documentVocabulary.ts) and below the built-in
// synonyms. The table ships as JSON in the bundle (corpusVocabulary.json).
import table from './corpusVocabulary.json' with { type: 'json' };

const WORDS: Readonly<Record<string, readonly string[]>> = table.words;

/** The name words the corpus says `term` (as terms() gives it) stands for, that `known` says this API uses. */
export function corpusMeanings(term: string, known: (word: string) => boolean): string[] {
  if (!Object.hasOwn(WORDS, term)) return [];
  return WORDS[term]!.filter(known);
}

const METHODS: Readonly<Record<string, string>> = table.methods;

/** The HTTP method most APIs give operations whose summary starts with `verb` (a verb the built-in vocabulary does not know). */
export function corpusMethod(verb: string): string | undefined {
  return Object.hasOwn(METHODS, verb) ? METHODS[verb] : undefined;
}
