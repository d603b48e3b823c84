// How a request is put, undone before it is read (queryParsing.ts): the way
// it is put ("how do I", "please"), its clauses with the command first ("a
// scan is taking forever, kill it" → "kill it …"), compound words the index
// holds as two ("tracklist" → "track list"), and whether it opens with a verb.
import { isStopWord, normalize, someStartsWith, splitWords, stem } from './textProcessing.ts';
import { type TriggeredGroup, triggeredGroups } from './synonyms.ts';
import { corpusMethod } from './corpusVocabulary.ts';
import { LEAD_PHRASES, NOT_OPENING, OBJECT_PRONOUNS, OBJECT_STARTS, isVerb } from './wordLists.ts';

/**
 * A request without the way it is put ("how do I", "I want to", "please", "comment puis-je"), as the words search
 * reads (`splitWords`); the request as it is when nothing leads it, or nothing follows.
 */
export function withoutLead(query: string): string {
  const words = splitWords(query);
  const normalized = words.map(normalize);
  for (const phrase of LEAD_PHRASES)
    if (normalized.length > phrase.length && phrase.every((w, i) => normalized[i] === w)) return words.slice(phrase.length).join(' ');
  return query;
}

/** A request without every way it is put, one after another ("could you please kill it" → "kill it"). */
function withoutLeads(query: string): string {
  let out = query;
  for (let shorter = withoutLead(out); shorter !== out; shorter = withoutLead(out)) out = shorter;
  return out;
}

/**
 * A request that sets the scene before it says what to do ("a discovery scan is taking forever, kill it"), with its
 * command first ("kill it a discovery scan is taking forever"), so that it is read as the request's verb: the first
 * clause that opens with a verb, when the first clause does not. A clause that is only the way the request is put
 * ("please, …") goes.
 */
export function commandFirst(request: string): string {
  const clauses = clausesOf(request).filter((c) => withoutLeads(`${c} x`) !== 'x');
  if (clauses.length < 2 || opensWithCommand(clauses[0]!)) return request;
  const at = clauses.findIndex((c, i) => i > 0 && opensWithCommand(c));
  return at < 0 ? request : [withoutLeads(clauses[at]!), ...clauses.filter((_, i) => i !== at)].join(' ');
}

/** A clause that opens with a verb ("kill it", "remove it from the inventory", "could you please set up a goal"). */
function opensWithCommand(clause: string): boolean {
  const words = splitWords(normalize(withoutLeads(clause)));
  const groups = triggeredGroups(words.join(' '));
  return opensWithVerb(words, groups) !== undefined || groups.some((g) => g.action && g.at === 0);
}

/**
 * The clauses of a request: its text between a comma or semicolon and the space after it, or a dash between spaces;
 * never inside double quotes ('the note says "done, ship it"' is one clause). Trimmed, the empty ones left out.
 */
export function clausesOf(request: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  const space = (c: string | undefined) => c !== undefined && /\s/.test(c);
  for (let i = 0; i < request.length; i++) {
    const c = request[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '“') quoted = true;
    else if (c === '”') quoted = false;
    if (quoted) continue;
    const ends = ((c === ',' || c === ';') && space(request[i + 1])) || ('-–—'.includes(c) && space(request[i - 1]) && space(request[i + 1]));
    if (!ends) continue;
    out.push(request.slice(start, i));
    start = i + 1;
  }
  out.push(request.slice(start));
  return out.map((c) => c.trim()).filter(Boolean);
}

/** The shortest part of a compound word split in two. */
const MIN_COMPOUND_PART = 3;

/**
 * A request with each word search knows nothing of (not in the index, nor the start of a word of it, nor `known`
 * otherwise: what the document taught, the built-in vocabulary), but whose two halves the index holds, written as two
 * ("tracklist" → "track list"): the split whose shorter half is longest.
 */
export function splitCompounds(query: string, vocabulary: Set<string>, known: (term: string) => boolean): string {
  const words = splitWords(query);
  let changed = false;
  const out = words.map((word) => {
    const w = normalize(word);
    const t = stem(w);
    if (w.length < 2 * MIN_COMPOUND_PART || /\d/.test(w) || vocabulary.has(t) || someStartsWith(vocabulary, t) || known(t)) return word;
    let best: [string, string] | undefined;
    for (let i = MIN_COMPOUND_PART; i <= w.length - MIN_COMPOUND_PART; i++) {
      const [a, b] = [w.slice(0, i), w.slice(i)];
      if (!vocabulary.has(stem(a)) || !vocabulary.has(stem(b))) continue;
      if (!best || Math.min(a.length, b.length) > Math.min(best[0].length, best[1].length)) best = [a, b];
    }
    if (!best) return word;
    changed = true;
    return best.join(' ');
  });
  return changed ? out.join(' ') : query;
}

/**
 * The request's first word (stemmed) when it is a verb: one an operation may be named after, one the corpus knows,
 * one its object follows ("remind me…", "deactivate a user", "monitor my website"), or a word the vocabulary knows
 * before its object though it is a stop word elsewhere ("like this song"). An imperative is never a plural
 * ("commits in a repository", "refunds on my account" are things), nor an adverb ("only my repos").
 */
export function opensWithVerb(words: string[], groups: readonly TriggeredGroup[]): string | undefined {
  const word = words[0];
  if (word === undefined || stem(word) !== word || NOT_OPENING.has(word)) return undefined;
  const next = words[1] ?? '';
  // "remind me to…", but not "let me delete…" (a lead phrase) nor "help us delete…": there the verb follows.
  const pronoun = OBJECT_PRONOUNS.has(next) && !groups.some((g) => g.action && g.at === 2);
  const object = OBJECT_STARTS.has(next) && (!isStopWord(word) || groups.some((g) => g.at === 0));
  return pronoun || object || isVerb(word) || corpusMethod(word) !== undefined ? word : undefined;
}
