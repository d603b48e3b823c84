// Reading a query, once, before recall and re-ranking: the request without
// the way it is put ("how do I…") and with unknown compounds split, its terms
// (stemmed, stop words out), their typo fixes, the built-in synonym groups its
// wording triggers, the name words the document's prose says its words stand
// for (learnt vocabulary), and those the corpus vocabulary gives the words the document says nothing of, the action its main verb asks, its verb, the thing
// it is about (its head noun) and the things it places that in ("tasks in a
// project"), and whether it is a question, a command, about the asker's own
// things, a question of who, or a request to be told when something happens.
import type { LearnedVocabulary } from './documentVocabulary.ts';
import { type TriggeredGroup, askedAction, isBuiltInWord, joinSplitParticles, triggeredGroups } from './synonyms.ts';
import { isPlural, isStopWord, normalize, splitWords, stem, terms } from './textProcessing.ts';
import { typoCorrections } from './typoCorrection.ts';
import { corpusMeanings, corpusMethod } from './corpusVocabulary.ts';
import { commandFirst, opensWithVerb, splitCompounds, withoutLead } from './requestForms.ts';
import {
  type Action,
  ENDING_VERBS,
  LEADING,
  NOUN_MARKERS,
  OWNER_PREPOSITIONS,
  PEOPLE_WORDS,
  PERSON_OBJECTS,
  PHRASE_ENDS,
  PUTTING_VERBS,
  QUESTION_WORDS,
  READING_VERBS,
  SELF_WORDS,
  TOLD_WORDS,
  VERB_FOLLOWERS,
  VIEW_OF,
  VIEWS,
  WHO_AFTER,
  isVerb,
} from './wordLists.ts';

/** What a query asks, once read: its terms and what they stand for. */
export interface ReadQuery {
  /** The request read: the query without the way it is put ("how do I…"); what recall searches. */
  request: string;
  queryTerms: string[];
  corrections: Map<string, string>;
  groups: readonly TriggeredGroup[];
  expansionTerms: Set<string>;
  /** query term → name terms the document's prose says it stands for */
  learned: Map<string, string[]>;
  learnedTerms: Set<string>;
  /** query term → name words of this API the corpus vocabulary says it stands for (where the document teaches none) */
  corpus: Map<string, string[]>;
  corpusTerms: Set<string>;
  asked: Action | undefined;
  /** The thing the query is about, and the words that may name it (synonyms, learnt vocabulary). */
  head: string | undefined;
  /** That thing is written in the plural ("past invoices", "which teams do I belong to"): the query is about many of them. */
  many: boolean;
  heads: Set<string>;
  /** Words for the action the query asks (its verbs' synonyms). */
  verbTerms: Set<string>;
  /** The query's first word when it is used as a verb ("star a board", "comment on an issue"). */
  verbLike: string | undefined;
  /** The first verb of the query (stemmed). */
  verb: string | undefined;
  /** When the query names no built-in action: the method most APIs use for the first of its words the corpus knows as a verb. */
  verbMethod: string | undefined;
  /** The query is about the asker's own things ("my boards", "who am I"). */
  self: boolean;
  /** The query asks who ("who attended the meeting?", "who's following this ticket?"), not who the asker is ("who am I"). */
  who: boolean;
  /** The request asks to be told when something happens ("get a callback when a board changes", "notify my server whenever a project changes"), not when something happened ("when was it created?"). */
  onEvent: boolean;
  /** When it asks who: the words for people (PEOPLE_WORDS) this API's names or parameters use, which recall searches too. */
  peopleTerms: string[];
  /** A question that names no action ("who is on this team?", "which regions are there"): it reads. */
  question: boolean;
  /** A request that opens with a verb naming no action and not one of reading ("like this song", "pin a message"): it writes. */
  command: boolean;
  /** That verb ends or stops something ("stop following a user", "close a pull request"). */
  ending: boolean;
  /** The request's first word when it is its verb ("resize a droplet", "reboot my server"), stemmed. */
  mainVerb: string | undefined;
  /** Every word the query says or stands for (its terms, typo fixes, synonyms, learnt words, its action's words). */
  explained: Set<string>;
  /** The query's terms and their typo fixes: the words it says outright. */
  said: Set<string>;
  /** The things the query places its object in ("tasks in a project", "subscriptions for a customer" → project, customer), and their synonyms. */
  owners: Set<string>;
  /** The triggered groups with their words and expansions stemmed, worked out once per query. */
  stemmedGroups: { words: Set<string>; expansions: string[]; action: Action | undefined }[];
}

/** What a query is read against: the index's terms (typo correction's targets) and the vocabulary learnt from the document. */
export interface QueryContext {
  vocabulary: Set<string>;
  learned: LearnedVocabulary;
}

/** Reads a (trimmed, non-empty) query. */
export function readQuery(text: string, { vocabulary, learned: learnedVocabulary }: QueryContext): ReadQuery {
  // "how do I archive a card", "please archive a card": the request starts after the way it is put.
  // "turn my server back on" is read as "turn on my server": the groups' wordings are whole.
  const query = joinSplitParticles(splitCompounds(withoutLead(commandFirst(text)), vocabulary, (w) => Object.hasOwn(learnedVocabulary, w) || isBuiltInWord(w)));
  const queryTerms = terms(query);
  const corrections = typoCorrections(query, queryTerms, vocabulary);
  const words = splitWords(normalize(query));
  const verbLike = VERB_FOLLOWERS.has(words[1] ?? '') && !isStopWord(words[0] ?? '') ? stem(words[0]!) : undefined;
  const { groups, opening, mainVerb } = mainClause(triggeredGroups([query, ...corrections.values()].join(' ')), words);
  const isQueryVerb = (t: string) => isVerb(t) || namesAction(groups, t);
  const verb = opening ?? queryTerms.find(isQueryVerb);
  const expansions = [...new Set(groups.flatMap((g) => g.expansions))].filter((e) => !queryTerms.includes(stemmed(e)));
  const expansionTerms = new Set(expansions.flatMap((e) => terms(e)));
  const { learned, learnedTerms } = learnedWords(queryTerms, corrections, learnedVocabulary);
  const { corpus, corpusTerms } = corpusWords(queryTerms, corrections, learned, vocabulary);
  const verbTerms = new Set(groups.filter((g) => g.action).flatMap((g) => g.expansions.map(stemmed)));
  // A word of the query and what it may stand for: its typo fix, the name words the prose, or the corpus give it, its synonyms.
  const meanings = (word: string): string[] => {
    const fixed = corrections.get(word) ?? word;
    return [fixed, ...(learned.get(word) ?? learnedFor(learnedVocabulary, fixed) ?? corpus.get(word) ?? []), ...synonymsOf(groups, word)];
  };
  const nouns = nounWords(query);
  const { head: rawHead, plural, view } = headNoun(nouns, isQueryVerb);
  const head = rawHead && (corrections.get(rawHead) ?? rawHead);
  const heads = new Set([...(rawHead ? meanings(rawHead) : []), ...(view ? meanings(view) : [])]);
  if (verbLike) heads.add(verbLike); // "fork a repository": a fork is what it makes
  const ownerWords = ownerNouns(nouns);
  const owners = new Set(ownerWords.flatMap((o) => meanings(o)));
  const question = isQuestion(words);
  // Being told when something happens: a "when" clause, not a question of when, and the words of being told (notify, callback, webhook…: the built-in group of webhooks).
  const onEvent = words[0] !== 'when' && words.some((w) => w === 'when' || w === 'whenever') && groups.some((g) => g.expansions.includes('webhook'));
  // "get notified when…", "get a callback when…": getting told of an event is subscribing to it, which makes something, and "get" is not its verb.
  const action = askedAction(groups);
  const subscribes = onEvent && action === 'get' && getsTold(words);
  const asked = subscribes ? 'create' : action;
  // "who attended?"; or "add someone to a channel", "invite bob@acme.com to the board": a person put into a thing is one of its members.
  const putsPerson =
    (asked === 'create' || asked === 'update' || PUTTING_VERBS.has(mainVerb ?? '')) &&
    ownerWords.length > 0 &&
    ((rawHead !== undefined && PERSON_OBJECTS.has(rawHead) && !ownerWords.includes(rawHead)) || emailBeforeOwner(query));
  const who = asksWho(words) || putsPerson;
  return {
    request: query,
    stemmedGroups: groups.map((g) => ({ words: new Set(g.said.map(stem)), expansions: g.expansions.map(stemmed), action: g.action })),
    queryTerms,
    corrections,
    groups,
    expansionTerms,
    learned,
    learnedTerms,
    corpus,
    corpusTerms,
    asked,
    verb: subscribes ? undefined : verb,
    verbMethod: asked ? undefined : queryTerms.map((t) => corpusMethod(corrections.get(t) ?? t)).find((m) => m !== undefined),
    self: asksAboutSelf(words),
    who,
    onEvent,
    peopleTerms: who ? [...PEOPLE_WORDS].filter((w) => vocabulary.has(w)) : [],
    question,
    command: opening !== undefined && !READING_VERBS.has(opening) && corpusMethod(opening) !== 'GET' && !question,
    ending: opening !== undefined && ENDING_VERBS.has(opening),
    mainVerb,
    said: new Set([...queryTerms, ...corrections.values()]),
    explained: new Set([...queryTerms, ...corrections.values(), ...expansionTerms, ...learnedTerms, ...corpusTerms, ...heads, ...verbTerms]),
    owners,
    verbTerms,
    verbLike,
    head,
    heads,
    many: plural,
  };
}

/**
 * The wording that counts, and the verb the request opens with when it names no action. A request that opens so
 * ("follow a task so I get notified", "notify my server whenever a project changes") asks no action, whatever a later
 * clause says: the actions of its other clauses are left out (their other meanings kept).
 */
function mainClause(
  all: readonly TriggeredGroup[],
  words: string[],
): { groups: readonly TriggeredGroup[]; opening: string | undefined; mainVerb: string | undefined } {
  const first = words[0] === undefined ? undefined : stem(words[0]);
  if (all.some((g) => g.action && g.at === 0)) {
    const oneWord = all.some((g) => g.action && g.at === 0 && g.words.length === 1);
    return { groups: all, opening: undefined, mainVerb: oneWord ? first : undefined };
  }
  const opening = opensWithVerb(words, all);
  return opening === undefined ? { groups: all, opening, mainVerb: undefined } : { groups: all.filter((g) => !g.action), opening, mainVerb: opening };
}

function stemmed(word: string): string {
  return stem(normalize(word));
}

/** Whether `term` is a word of the query that triggered an action group ("duplicate" in "duplicate a project"). */
function namesAction(groups: readonly TriggeredGroup[], term: string): boolean {
  return groups.some((g) => g.action && g.words.some((w) => stem(w) === term));
}

/** The expansions (stemmed) of the synonym groups, not actions, that the query word `term` triggered ("repo" → repository). */
function synonymsOf(groups: readonly TriggeredGroup[], term: string): string[] {
  const out: string[] = [];
  for (const g of groups) if (!g.action && g.words.some((w) => stem(w) === term)) for (const e of g.expansions) out.push(stemmed(e));
  return out;
}

/** Each query term the document's prose gives a meaning to (after its typo fix), and all the name words they stand for. */
/** The words learnt for a term: its own entry only (a query word such as `constructor` is not a property of every object). */
function learnedFor(vocabulary: LearnedVocabulary, term: string): string[] | undefined {
  return Object.hasOwn(vocabulary, term) ? vocabulary[term] : undefined;
}

function learnedWords(
  queryTerms: string[],
  corrections: Map<string, string>,
  learnedVocabulary: LearnedVocabulary,
): { learned: Map<string, string[]>; learnedTerms: Set<string> } {
  const learned = new Map<string, string[]>();
  const learnedTerms = new Set<string>();
  for (const t of queryTerms) {
    const words = learnedFor(learnedVocabulary, corrections.get(t) ?? t);
    if (!words) continue;
    learned.set(t, words);
    for (const w of words) if (!queryTerms.includes(w)) learnedTerms.add(w);
  }
  return { learned, learnedTerms };
}

/** Each query term the document teaches nothing of, and the name words of this API the corpus vocabulary gives it. */
function corpusWords(
  queryTerms: string[],
  corrections: Map<string, string>,
  learned: Map<string, string[]>,
  vocabulary: Set<string>,
): { corpus: Map<string, string[]>; corpusTerms: Set<string> } {
  const corpus = new Map<string, string[]>();
  const corpusTerms = new Set<string>();
  for (const t of queryTerms) {
    if (learned.has(t)) continue;
    const words = corpusMeanings(corrections.get(t) ?? t, (w) => vocabulary.has(w) && !queryTerms.includes(w));
    if (words.length === 0) continue;
    corpus.set(t, words);
    for (const w of words) corpusTerms.add(w);
  }
  return { corpus, corpusTerms };
}

/**
 * The request asks who ("who attended the meeting?", "show me who is on this team"): "who" opens it, or follows a
 * verb of showing or knowing; not a relative clause ("the user who created it"), nor who the asker is ("who am I").
 */
function asksWho(words: string[]): boolean {
  return !saysIAm(words) && words.some((w, i) => w === 'who' && (i === 0 || WHO_AFTER.has(words[i - 1]!)));
}

/** An email address the request puts somewhere: it comes before the words that place it ("add bob@acme.com to…", not "send an invoice to bob@acme.com"). */
function emailBeforeOwner(query: string): boolean {
  const tokens = query.toLowerCase().split(/\s+/);
  const email = tokens.findIndex((t) => EMAIL.test(t.replace(/[^\p{L}\p{N}]+$/u, '')));
  const owner = tokens.findIndex((t) => OWNER_PREPOSITIONS.has(t));
  return email >= 0 && owner > email;
}

/** "get notified", "get a callback", "get an alert": "get" followed, at most an article between, by a word of being told. */
function getsTold(words: string[]): boolean {
  return words.some((w, i) => {
    if (w !== 'get') return false;
    const next = ['a', 'an'].includes(words[i + 1] ?? '') ? words[i + 2] : words[i + 1];
    return next !== undefined && TOLD_WORDS.has(next);
  });
}

/** The query is about the asker's own things: "my boards", "who am I", "what I'm following". */
function asksAboutSelf(words: string[]): boolean {
  return words.some((w) => SELF_WORDS.has(w)) || saysIAm(words);
}

/** "I am", "I'm", "am I": the asker speaks of themselves ("who am I", "who I am"). */
function saysIAm(words: string[]): boolean {
  return words.some((w, i) => (w === 'i' && ['am', 'm'].includes(words[i + 1] ?? '')) || (w === 'am' && words[i + 1] === 'i'));
}

/** A question ("which regions…", "how many…"): one that names no action reads. */
function isQuestion(words: string[]): boolean {
  return QUESTION_WORDS.has(words[0] ?? '') || (words[0] === 'how' && ['many', 'much'].includes(words[1] ?? ''));
}

/** An email address, as a token of a request (its trailing punctuation cut). */
const EMAIL = /^\S+@\S+\.\w+$/;

/** A value, not a word ("1234", "$1,200", "2024-01-31", "ch_123", "p-42", "CASE123", "bob@acme.com"); "2fa", "mp4", "ec2", "oauth2" are words. */
function isValue(token: string): boolean {
  const t = token.replace(/^[^\p{L}\p{N}$@]+|[^\p{L}\p{N}]+$/gu, '');
  if (!/\d/.test(t)) return EMAIL.test(t);
  const digits = t.replace(/\D/g, '').length;
  return !/\p{L}/u.test(t) || /[_-]/.test(t) || (t.length >= 5 && digits >= 2) || /@/.test(t);
}

/** A request's words, its values left out ("show invoice 1234", "invoice#1234", "user/42"): where its nouns are read. */
function nounWords(query: string): string[] {
  return splitWords(
    normalize(
      query
        .split(/[\s#:/()]+/)
        .filter((t) => t && !isValue(t))
        .join(' '),
    ),
  );
}

/**
 * The thing a request is about: the last word of its first noun phrase ("list workflow runs for a repo" → run), and
 * whether it is written in the plural (isPlural: "runs", not "canvas"). A view of a thing ("details of order 10452",
 * "the data for this board") is about the thing, and the view is kept too: an API may have `/users/{id}/data`.
 */
function headNoun(words: string[], isVerb: (w: string) => boolean): { head: string | undefined; plural: boolean; view: string | undefined } {
  let i = 0;
  let determined = false; // after "the", "a", "my"… a verb-like word is the noun ("get the lists")
  // A plural is a thing, not a verb ("recent commits", "runs of a workflow").
  while (i < words.length && (LEADING.has(words[i]!) || (!determined && isVerb(stem(words[i]!)) && !isPlural(words[i]!)) || isStopWord(words[i]!))) {
    if (NOUN_MARKERS.has(words[i]!)) determined = true;
    i++;
  }
  let head: string | undefined;
  let plural = false;
  let view: { head: string; plural: boolean } | undefined;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (head && !view && VIEWS.has(head) && VIEW_OF.has(w)) {
      view = { head, plural };
      head = undefined;
      plural = false;
      continue;
    }
    if (PHRASE_ENDS.has(w) || (head && isStopWord(w))) break;
    if (!isStopWord(w) && !LEADING.has(w)) {
      head = stem(w);
      plural = isPlural(w);
    }
  }
  // Nothing nameable after the view ("show details for me"): the view is the thing.
  if (view && !head) return { ...view, view: undefined };
  return { head, plural, view: view?.head };
}

/** The nouns after the words that place a thing in another ("in", "for"…): the last word of each phrase that follows (stemmed). */
function ownerNouns(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!OWNER_PREPOSITIONS.has(words[i]!)) continue;
    let noun: string | undefined;
    for (let j = i + 1; j < words.length; j++) {
      const w = words[j]!;
      if (PHRASE_ENDS.has(w) || OWNER_PREPOSITIONS.has(w)) break;
      if (isStopWord(w) || LEADING.has(w)) {
        if (noun) break;
        continue;
      }
      noun = stem(w);
    }
    if (noun) out.push(noun);
  }
  return out;
}
