// Query-side synonyms: which groups of the thesaurus (wordLists.ts,
// SYNONYM_GROUPS) a query's wording triggers, the words they add, the action
// they name, and the phrasal verbs a query splits ("turn my server back on").
import { normalize, splitWords, stem } from './textProcessing.ts';
import { type Action, DETERMINERS, PARTICLES, PHRASE_ENDS, SYNONYM_GROUPS } from './wordLists.ts';

export type { Action };

interface CompiledGroup {
  triggers: string[][]; // normalized word sequences
  stemmed: string[][]; // the same, stemmed (what queries are matched on)
  expansions: string[];
  action?: Action;
}

const COMPILED: CompiledGroup[] = SYNONYM_GROUPS.map((g) => ({
  triggers: g.triggers.map((t) => splitWords(normalize(t))),
  stemmed: g.triggers.map((t) => splitWords(normalize(t)).map(stem)),
  expansions: g.expansions,
  ...(g.action ? { action: g.action } : {}),
}));

/** Index of the first word of `phrase` (stemmed) in `stems` (the query's words, stemmed), or -1; a one-word action is not read where it is a noun. */
function find(words: string[], stems: string[], phrase: string[], action = false): number {
  outer: for (let i = 0; i + phrase.length <= stems.length; i++) {
    if (stems[i] !== phrase[0]) continue;
    if (action && phrase.length === 1 && i > 0 && (DETERMINERS.has(words[i - 1]!) || (i > 1 && DETERMINERS.has(words[i - 2]!)))) continue;
    for (let j = 1; j < phrase.length; j++) if (stems[i + j] !== phrase[j]) continue outer;
    return i;
  }
  return -1;
}

/** The most words an object puts between a phrasal verb and its particle. */
const MAX_PARTICLE_GAP = 3;
/** Words that may follow a particle that ends its verb phrase ("turn it on again", "switch alerts off for user 42"). */
const AFTER_PARTICLE = new Set(['and', 'so', 'then', 'again', 'now', 'please', 'for', 'when', 'if', 'before', 'after', 'until', 'while', 'at', 'in', 'from']);
/** The phrasal verbs of the groups' wordings (verb stem → its particles): "turn on", "shut down", "spin up"… */
const PHRASAL_VERBS = new Map<string, Set<string>>();
for (const g of COMPILED)
  for (const t of g.stemmed) if (t.length === 2 && PARTICLES.has(t[1]!)) PHRASAL_VERBS.set(t[0]!, new Set([...(PHRASAL_VERBS.get(t[0]!) ?? []), t[1]!]));

/**
 * A request whose phrasal verb its object splits, with the particle back beside its verb ("turn my server back on" →
 * "turn on my server", "switch the alerts off" → "switch off the alerts"), so the groups' wordings match it. Only
 * where the particle ends the verb phrase: the words between are the object (no preposition, "to" or other particle
 * but a "back" just before it, which goes), and the particle ends the request or a clause word follows it ("turn
 * comments on a post", "set the limit up to 500" and "switch to dark mode on the dashboard" are left as they are).
 */
export function joinSplitParticles(query: string): string {
  const words = splitWords(query);
  const norm = words.map(normalize);
  for (let i = 0; i < norm.length; i++) {
    const particles = PHRASAL_VERBS.get(stem(norm[i]!));
    if (!particles || PARTICLES.has(norm[i + 1] ?? '')) continue;
    for (let j = i + 2; j <= i + 1 + MAX_PARTICLE_GAP && j < norm.length; j++) {
      const w = norm[j]!;
      if (particles.has(w) && (j + 1 === norm.length || AFTER_PARTICLE.has(norm[j + 1]!))) {
        const gap = words.slice(i + 1, norm[j - 1] === 'back' ? j - 1 : j);
        if (gap.length === 0) break;
        return [...words.slice(0, i + 1), words[j]!, ...gap, ...words.slice(j + 1)].join(' ');
      }
      const backBefore = w === 'back' && particles.has(norm[j + 1] ?? '');
      if ((PARTICLES.has(w) && !backBefore) || w === 'to' || PHRASE_ENDS.has(w)) break;
    }
  }
  return query;
}

export interface TriggeredGroup {
  /** The query words (normalized, unstemmed) that triggered the group: its earliest wording. */
  readonly words: readonly string[];
  /** Every wording of the group the query holds ("create a new board": create, new). */
  readonly said: readonly string[];
  /** Where in the query they start (word index). */
  readonly at: number;
  readonly expansions: readonly string[];
  readonly action?: Action;
}

/**
 * The groups of the last few texts read: a search across several APIs reads the same query once per API, and a
 * request in clauses reads each clause too (commandFirst), which would push the whole request out of a cache of one.
 */
const recentReads = new Map<string, readonly TriggeredGroup[]>();
const RECENT_READS = 8;

/** The built-in groups a query's wording triggers (shared: never to be changed by the caller). */
export function triggeredGroups(query: string): readonly TriggeredGroup[] {
  const known = recentReads.get(query);
  if (known) return known;
  const groups = findGroups(query);
  if (recentReads.size >= RECENT_READS) recentReads.delete(recentReads.keys().next().value!);
  recentReads.set(query, groups);
  return groups;
}

function findGroups(query: string): TriggeredGroup[] {
  const words = splitWords(normalize(query));
  const stems = words.map(stem);
  const present = new Set(stems);
  const out: TriggeredGroup[] = [];
  for (const g of COMPILED) {
    // The group's earliest wording in the query ("show me all my projects": "show", not "all").
    let first: { at: number; length: number } | undefined;
    const said: string[] = [];
    for (const t of g.stemmed) {
      if (t.length === 0 || !present.has(t[0]!)) continue;
      const at = find(words, stems, t, g.action !== undefined);
      if (at < 0) continue;
      said.push(...words.slice(at, at + t.length));
      if (!first || at < first.at) first = { at, length: t.length };
    }
    if (first)
      out.push({
        words: words.slice(first.at, first.at + first.length),
        said,
        at: first.at,
        expansions: g.expansions,
        ...(g.action ? { action: g.action } : {}),
      });
  }
  return out;
}

/** Words to add to a query, from the built-in groups its wording triggers. */
export function expandQuery(query: string): string[] {
  const words = new Set(splitWords(normalize(query)));
  const out = new Set<string>();
  for (const g of triggeredGroups(query)) for (const e of g.expansions) if (!words.has(e)) out.add(e);
  return [...out];
}

/** The action a query asks for: that of the earliest wording in it that names one. */
export function askedAction(groups: readonly TriggeredGroup[]): Action | undefined {
  let best: TriggeredGroup | undefined;
  for (const g of groups) if (g.action && (!best || g.at < best.at)) best = g;
  return best?.action;
}

/** The verb groups a word belongs to (indices), so "copy" and "duplicate" match. */
const VERB_GROUP = new Map<string, number[]>();
COMPILED.forEach((g, i) => {
  for (const t of g.triggers) if (t.length === 1) VERB_GROUP.set(stem(t[0]!), [...(VERB_GROUP.get(stem(t[0]!)) ?? []), i]);
  for (const e of g.expansions) VERB_GROUP.set(stem(normalize(e)), [...(VERB_GROUP.get(stem(normalize(e))) ?? []), i]);
});

/** Whether two verbs (stemmed) are the same or say the same thing ("remove", "delete"). */
export function sameVerb(a: string, b: string): boolean {
  if (a === b) return true;
  const ga = VERB_GROUP.get(a);
  const gb = VERB_GROUP.get(b);
  return !!ga && !!gb && ga.some((i) => gb.includes(i));
}

/** Whether a word is one the built-in vocabulary already gives a meaning to. */
export function isBuiltInWord(word: string): boolean {
  return VERB_GROUP.has(word);
}
