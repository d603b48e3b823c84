// Precision, the second stage of search_docs: recall's best candidates are
// re-ranked on how much of the query an operation explains (coverage: its
// names, then its prose), how much of its summary the query explains (a short
// summary fully matched is a strong signal), whether the action asked for
// (create, list, delete…) is the operation's, and smaller signals: the verb,
// the caller's own things, the resource and what holds it, path segments the
// query does not explain, deprecated and admin operations. Every weight is
// in weights.ts.
import type { ApiOperation } from '../openapi/catalogue.ts';
import type { OperationFeatures } from './operationFeatures.ts';
import type { ReadQuery } from './queryParsing.ts';
import { sameVerb } from './synonyms.ts';
import { extendsAny, extendsWord, someWordExtends } from './textProcessing.ts';
import { ACTION_FIT, COVERAGE_CREDITS, MAX_UNEXPLAINED_SEGMENTS, NICHE_PENALTIES, SCORE_PRECISION, SCORE_WEIGHTS, SUMMARY_CREDITS } from './weights.ts';
import { ACTION_WORDS, type Action, DEPRECATION_WORDS, EVENT_WORDS, NICHE_WORDS, OTHER_VERBS, PEOPLE_WORDS } from './wordLists.ts';

export interface ScoredCandidate {
  /** The sum of the parts, rounded (SCORE_PRECISION). */
  score: number;
  /** Each part of the score, weighted (see SCORE_WEIGHTS). */
  parts: Record<string, number>;
}

/** Scores a recalled operation; `recallShare` is its recall score over the best candidate's. */
export function scoreCandidate(op: ApiOperation, f: OperationFeatures, read: ReadQuery, recallShare: number): ScoredCandidate {
  const { queryTerms } = read;
  const takes = takesVerb(read, op, f);
  // The parts' order is the order they are summed in (and shown in).
  const parts = {
    recall: SCORE_WEIGHTS.recall * recallShare,
    coverage: SCORE_WEIGHTS.coverage * coverage(read, f),
    summary: SCORE_WEIGHTS.summary * summaryFit(read, f),
    action: actionPart(read, op, f, takes),
    verb: verbFit(read, f, takes),
    method: read.verbMethod && op.method === read.verbMethod ? SCORE_WEIGHTS.verbMethod : 0,
    self: read.self && f.self ? SCORE_WEIGHTS.self : 0,
    who: read.who && f.resource && PEOPLE_WORDS.has(f.resource) ? SCORE_WEIGHTS.who : 0,
    // Its last path segment names what tells, whole or in part (`/webhooks`, `/webhook_endpoints`, `/alert_rules`).
    onEvent: read.onEvent && (f.segments.at(-1) ?? []).some((w) => EVENT_WORDS.has(w)) ? SCORE_WEIGHTS.onEvent : 0,
    resource: f.resource && (read.heads.has(f.resource) || (read.head && extendsWord(f.resource, read.head))) ? SCORE_WEIGHTS.resource : 0,
    niche: -niche(op, f.where, queryTerms),
    owner: read.owners.size > 0 && f.segments.slice(0, -1).some((seg) => seg.some((w) => read.owners.has(w))) ? SCORE_WEIGHTS.owner : 0,
    unexplained: -SCORE_WEIGHTS.unexplainedSegment * Math.min(MAX_UNEXPLAINED_SEGMENTS, unexplainedSegments(f.segments, read.explained, queryTerms)),
    object: f.resource && !explains(read.explained, queryTerms, f.resource) ? -SCORE_WEIGHTS.unexplainedObject : 0,
  };
  const sum = Object.values(parts).reduce((a, b) => a + b, 0);
  return { score: Math.round(sum * SCORE_PRECISION) / SCORE_PRECISION, parts };
}

/** Share of the query's terms the operation accounts for (directly, through a typo fix, a synonym, its learnt vocabulary or its prose). */
function coverage(read: ReadQuery, f: OperationFeatures): number {
  const { queryTerms, corrections, stemmedGroups, learned, corpus } = read;
  if (queryTerms.length === 0) return 0;
  let sum = 0;
  for (const t of queryTerms) {
    const direct = corrections.get(t) ?? t;
    if (f.names.has(direct) || someWordExtends(f.names, direct)) {
      sum += COVERAGE_CREDITS.name;
      continue;
    }
    let best = 0;
    for (const g of stemmedGroups) {
      if (!g.words.has(t) && !g.words.has(direct)) continue;
      if (g.expansions.some((e) => f.names.has(e))) best = Math.max(best, g.action ? COVERAGE_CREDITS.actionSynonym : COVERAGE_CREDITS.synonym);
      // "list" is what a GET on a collection does, whatever its name says ("Get multiple workspaces").
      else if (g.action && f.action && compatible(g.action, f.action)) best = Math.max(best, COVERAGE_CREDITS.action);
    }
    if (learned.get(t)?.some((w) => f.names.has(w))) best = Math.max(best, COVERAGE_CREDITS.learned);
    else if (corpus.get(t)?.some((w) => f.names.has(w))) best = Math.max(best, COVERAGE_CREDITS.corpus);
    if (f.params.has(direct)) best = Math.max(best, COVERAGE_CREDITS.param);
    if (f.values.has(direct)) best = Math.max(best, COVERAGE_CREDITS.value);
    if (f.returns.has(direct)) best = Math.max(best, COVERAGE_CREDITS.returned);
    if (f.prose.has(direct)) best = Math.max(best, COVERAGE_CREDITS.prose);
    sum += best;
  }
  return sum / queryTerms.length;
}

/** Share of the operation's summary the query accounts for. */
function summaryFit(read: ReadQuery, f: OperationFeatures): number {
  if (f.summary.length === 0) return 0;
  const { said, expansionTerms, learnedTerms, corpusTerms, verbTerms } = read;
  let sum = 0;
  for (const w of f.summary) {
    if (said.has(w) || extendsAny(w, said)) sum += SUMMARY_CREDITS.direct;
    else if (verbTerms.has(w)) sum += SUMMARY_CREDITS.verb;
    else if (expansionTerms.has(w) || learnedTerms.has(w) || corpusTerms.has(w)) sum += SUMMARY_CREDITS.expansion;
  }
  return sum / f.summary.length;
}

/** The action asked against the operation's; a question that names none favours reading (GET). */
function actionPart(read: ReadQuery, op: ApiOperation, f: OperationFeatures, takesTheVerb: boolean): number {
  // "resize a droplet": an operation that takes the verb as a value (`POST /droplets/{id}/actions` `{ type: "resize" }`) does it.
  if (takesTheVerb) return ACTION_FIT.same;
  if (read.asked) return actionFit(read.asked, f.action);
  // "past invoices", "which teams do I belong to": a request about many things, that names no action, reads many.
  const many = read.many && !read.command ? manyFit(f.action) : 0;
  if (read.question) return many + (op.method === 'GET' ? SCORE_WEIGHTS.question : -SCORE_WEIGHTS.question);
  // A command rarely deletes unless its verb says so (then it names an action, or the operation's verb is its own).
  // The operation's action, not its method, says what it does (an API may POST every call: Slack's reminders.delete).
  if (read.command) {
    if (f.action === 'list' || f.action === 'get') return -SCORE_WEIGHTS.command;
    const deletes = f.action === 'delete' || op.method === 'DELETE';
    // "stop following a user", "close a pull request", "clear the history": ending something deletes it, or changes it.
    if (read.ending) return deletes ? SCORE_WEIGHTS.command : SCORE_WEIGHTS.command / 2;
    // Unless the operation's verb is the request's own ("unpin the message": unpinChannelMessage).
    if (deletes) return f.verb && read.mainVerb && sameVerb(read.mainVerb, f.verb) ? 0 : -SCORE_WEIGHTS.command;
    // "star a board", "pin a message": a command makes something more often than it changes one.
    return f.action === 'update' || f.action === 'replace' ? SCORE_WEIGHTS.command / 2 : SCORE_WEIGHTS.command;
  }
  return many;
}

/** A request about many things (its head noun plural) against what the operation reads: many gains, one loses. */
function manyFit(has: Action | undefined): number {
  return has === 'list' ? SCORE_WEIGHTS.many : has === 'get' ? -SCORE_WEIGHTS.many : 0;
}

function actionFit(asked: Action | undefined, has: Action | undefined): number {
  if (!asked || !has) return 0;
  if (compatible(asked, has)) return ACTION_FIT.same;
  // "get the lists on a board" reads many; "list" then "get" one is a smaller mistake than writing.
  if (asked === 'get' && has === 'list') return ACTION_FIT.listForGet;
  if (asked === 'list' && has === 'get') return ACTION_FIT.getForList;
  return ACTION_FIT.other;
}

/** The operation writes, and one of the values it takes is, whole, the verb the request opens with (an action endpoint's `type`). */
function takesVerb(read: ReadQuery, op: ApiOperation, f: OperationFeatures): boolean {
  const verb = read.mainVerb;
  return verb !== undefined && op.method !== 'GET' && f.verbValues.has(verb) && !f.names.has(verb);
}

function compatible(asked: Action, has: Action): boolean {
  if (asked === has) return true;
  if (asked === 'update' && has === 'replace') return true;
  if (asked === 'replace' && has === 'update') return true;
  return false;
}

/**
 * The query's verb is the operation's ("copy" a project: duplicateProject), or
 * names the thing the operation creates ("fork a repository": create a fork,
 * "star a board": add a star).
 */
function verbFit(read: ReadQuery, f: OperationFeatures, takesTheVerb: boolean): number {
  if (read.verb && f.verb && sameVerb(read.verb, f.verb)) return SCORE_WEIGHTS.verb;
  if (takesTheVerb) return SCORE_WEIGHTS.verb;
  const first = read.verbLike;
  if (first && !ACTION_WORDS[first] && f.action === 'create' && f.names.has(first)) return SCORE_WEIGHTS.verb;
  if (read.verb && OTHER_VERBS.has(read.verb) && !ACTION_WORDS[read.verb] && f.action === 'create' && f.names.has(read.verb)) return SCORE_WEIGHTS.verb;
  return 0;
}

/**
 * Path segments none of whose words the query says or stands for: `/apps/regions`
 * answers "which regions" less plainly than `/regions` does.
 */
function unexplainedSegments(segments: string[][], explained: Set<string>, queryTerms: string[]): number {
  return segments.filter((words) => !words.some((w) => explains(explained, queryTerms, w))).length;
}

/** Whether the query says or stands for a word of the operation's path. */
function explains(explained: Set<string>, queryTerms: string[], w: string): boolean {
  // Short plurals escape the stemmer (`ips`): their singular explains them too; other forms of a word share its start ("contributed", contributors).
  return (
    explained.has(w) || (w.endsWith('s') && explained.has(w.slice(0, -1))) || queryTerms.some((t) => extendsWord(w, t) || sharedStart(t, w) >= SAME_WORD_START)
  );
}

/** Two words sharing this many first letters are forms of one ("subscribe", "subscription"). */
const SAME_WORD_START = 6;

function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Deprecated, admin and enterprise operations make way for the everyday ones
 * unless the query asks for them (the card still says "deprecated").
 */
function niche(op: ApiOperation, where: string[], queryTerms: string[]): number {
  let penalty = 0;
  if (op.deprecated && !DEPRECATION_WORDS.some((w) => queryTerms.includes(w))) penalty += NICHE_PENALTIES.deprecated;
  if (NICHE_WORDS.some((w) => where.includes(w) && !queryTerms.includes(w))) penalty += NICHE_PENALTIES.niche;
  return penalty;
}
