// The API's own vocabulary, learnt from its document: which words its prose
// (operation and tag descriptions, parameter and schema descriptions) uses for
// the things its names (operationIds, summaries, paths, tags) call otherwise.
// Spotify's descriptions say "songs" where its names say "tracks", Asana's
// "comment" where its names say "story", DigitalOcean's Droplets tag says
// "virtual machine": a query in the prose's words then also searches the
// names' words. Learnt once per document; part of the search index's state.
import { FUNCTION_WORDS, GENERIC_NAMES } from './wordLists.ts';
import { terms } from './textProcessing.ts';

export interface VocabularyInput {
  /** Terms of each operation's names: operationId, summary, path, tags. */
  names: Set<string>[];
  /** Terms of each operation's prose: descriptions of the operation, its tags, parameters and schemas. */
  prose: Set<string>[];
  /** Words not to learn (the built-in vocabulary already gives them a meaning). */
  ignore?: (word: string) => boolean;
}

/** prose term → the name terms it stands for, strongest first. */
export type LearnedVocabulary = Record<string, string[]>;

const MAX_PER_TERM = 3;
/** Share of the operations whose prose has the word that must have the name word. */
const MIN_SHARE = 0.34;

export function learnVocabulary({ names, prose, ignore }: VocabularyInput): LearnedVocabulary {
  const n = names.length;
  const nameDf = new Map<string, number>();
  for (const set of names) for (const t of set) nameDf.set(t, (nameDf.get(t) ?? 0) + 1);
  const proseOps = new Map<string, number[]>();
  prose.forEach((set, i) => {
    for (const t of set) {
      if (t.length < 3 || /^\d/.test(t) || FUNCTION_WORDS.has(t) || ignore?.(t)) continue;
      let list = proseOps.get(t);
      if (!list) proseOps.set(t, (list = []));
      list.push(i);
    }
  });
  const maxDf = Math.max(3, Math.ceil(0.15 * n));
  const out: LearnedVocabulary = {};
  for (const [term, ops] of proseOps) {
    // Only words the prose uses more than the names, and not everywhere.
    if (ops.length < 2 || ops.length > maxDf || (nameDf.get(term) ?? 0) >= ops.length) continue;
    const co = new Map<string, number>();
    for (const i of ops) for (const w of names[i]!) if (w !== term && w.length >= 3 && !GENERIC_NAMES.has(w)) co.set(w, (co.get(w) ?? 0) + 1);
    const scored: [string, number][] = [];
    for (const [w, c] of co) {
      const share = c / ops.length;
      if (share < MIN_SHARE || c < 2) continue;
      const df = nameDf.get(w)!;
      // Specific to the word: its operations, not the whole API.
      const lift = c / ops.length / (df / n);
      if (lift < 1.5) continue;
      scored.push([w, share * Math.log(1 + lift)]);
    }
    if (scored.length === 0) continue;
    scored.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const best = scored[0]![1];
    out[term] = scored
      .filter(([, s]) => s >= 0.6 * best)
      .slice(0, MAX_PER_TERM)
      .map(([w]) => w);
  }
  return out;
}

/** What the document taught, with an API's own words put first (each side as `terms()` reads it). */
export function withApiWords(learned: LearnedVocabulary, words: Readonly<Record<string, readonly string[]>>): LearnedVocabulary {
  const out: LearnedVocabulary = { ...learned };
  for (const [said, written] of Object.entries(words)) {
    const names = [...new Set(written.flatMap((w) => terms(w)))];
    for (const t of terms(said)) out[t] = [...new Set([...names, ...(Object.hasOwn(out, t) ? out[t]! : [])])];
  }
  return out;
}
