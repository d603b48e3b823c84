// Whether a word is an English word (an-array-of-english-words, ~275,000
// words), so typo correction never "corrects" a real word into a catalogue
// word ("note" → "vote"). Loaded on the first question (~20 ms), only when a
// query has a word the index does not know.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let words: Set<string> | undefined;

export function isEnglishWord(word: string): boolean {
  if (!words) {
    try {
      const file = createRequire(import.meta.url).resolve('an-array-of-english-words/index.json');
      words = new Set(JSON.parse(readFileSync(file, 'utf8')) as string[]);
    } catch {
      words = new Set();
    }
  }
  return words.has(word.toLowerCase());
}
