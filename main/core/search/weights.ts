// Every weight of search_docs' ranking, named, with what it rewards (or, for
// a penalty, what it holds back). Recall (searchIndex.ts) uses the field
// boosts and the extra queries' boosts; re-ranking (scoring.ts) sums the
// parts of SCORE_WEIGHTS, each a 0–1 signal times its weight, or a flat bonus
// or penalty. Tuned on bench/search-eval: `npm run bench:search` after any
// change here.

/** Recall: how much a query word found in each field of an operation counts (BM25 boosts). */
export const FIELD_BOOSTS = {
  /** Its operationId and the call path (`api.repos.get`): what the operation is called. */
  operationId: 3,
  /** Its summary (or its description's first sentence): what the document says it does, in a line. */
  summary: 3,
  /** The document's own `x-synonyms` for it. */
  synonyms: 2,
  /** The words of its path. */
  path: 1.5,
  /** Its tags' names. */
  tags: 1.5,
  /** Its parameters' and body properties' names. */
  params: 1,
  /** The names of the schemas it takes and returns. */
  schemas: 1,
  /** The values its parameters and body take (enums, capped): a word it accepts, not one it is about. */
  enums: 0.4,
  /** Its parameters' descriptions (first sentences). */
  paramDocs: 0.3,
  /** The names of the fields it returns (`tempo`, `danceability`): what a request may ask to read. */
  returns: 0.15,
  /** Its description: prose, wordier than its names. */
  description: 0.25,
  /** Its tags' descriptions: prose about its whole group. */
  tagDocs: 0.15,
} as const;

/** Recall: the boosts of the extra queries made beside the person's own words. */
export const RECALL_BOOSTS = {
  /** The typo fixes ("webhoks" → webhook): what the person most likely meant. */
  correction: 0.8,
  /** Words of the built-in synonyms the query triggers ("song" → track). */
  expansion: 0.35,
  /** Name words the document's prose says a query word stands for (learnt vocabulary). */
  learned: 0.5,
  /** Name words of the API the corpus vocabulary says a query word stands for (corpusVocabulary.ts). */
  corpus: 0.3,
  /** The words for people (users, members, attendees, watchers…) this API uses, when the query asks who. */
  people: 0.25,
} as const;

/** How many of recall's best operations are re-ranked, at least. */
export const CANDIDATES = 40;

/** The share of a very large document's operations re-ranked, when it is more than CANDIDATES (Microsoft Graph's 11,422: 115). */
export const CANDIDATE_SHARE = 0.01;

/** Re-ranking: the weight of each part of an operation's score (the parts are summed). */
export const SCORE_WEIGHTS = {
  /** Recall's score, relative to the best candidate's: BM25 over every field. */
  recall: 0.5,
  /** How much of the query the operation explains (coverage, 0–1: see COVERAGE_CREDITS). */
  coverage: 0.8,
  /** How much of its summary the query explains (0–1: see SUMMARY_CREDITS): a short summary fully matched is a strong signal. */
  summary: 1,
  /** A question that names no action ("which regions are there"): a GET gains this, any other method loses it. */
  question: 0.3,
  /** A request about many things that names no action ("past invoices", "which teams do I belong to"): an operation that lists gains this, one that gets one thing loses it. */
  many: 0.1,
  /** A request opening with a verb that names no action, nor reads, nor ends ("like this song", "pin a message"): an operation that makes something gains this, one that changes something half, one that reads or deletes loses it (a deletion gains all of it when the verb ends or clears something: "stop following", "clear the history"). */
  command: 0.15,
  /** The query's verb is the operation's ("copy" a project: duplicateProject), or names what it creates ("fork a repository"). */
  verb: 0.2,
  /** The query's verb names no built-in action, and the operation uses the method most APIs use for it (corpus vocabulary). */
  verbMethod: 0.1,
  /** The query is about the asker's own things ("my boards") and the operation acts on the caller's. */
  self: 0.2,
  /** The query asks who ("who attended the meeting?") and the operation reads or writes people (its resource is users, members, attendees…). */
  who: 0.3,
  /** The query asks to be told when something happens ("get a callback when a board changes") and the operation's last path segment names what tells (a webhook, subscription, alert…). */
  onEvent: 0.3,
  /** The operation reads or writes the very thing the query is about (its path's last resource is the query's head noun). */
  resource: 0.12,
  /** The thing the query places its object in ("tasks in a project") is a resource of the operation's path before its last. */
  owner: 0.15,
  /** Penalty, per path segment none of whose words the query says or stands for (`/apps/regions` for "which regions"). */
  unexplainedSegment: 0.05,
  /** Penalty when the query neither says nor stands for what the operation reads or writes (its resource): "list workspaces" is not about tasks. */
  unexplainedObject: 0.025,
} as const;

/** At most this many unexplained path segments count against an operation. */
export const MAX_UNEXPLAINED_SEGMENTS = 3;

/** Scores are rounded to this fraction (thousandths), so near ties compare as ties. */
export const SCORE_PRECISION = 1000;

/** Coverage: what a query term is worth when the operation accounts for it so (the best way counts; the mean over terms is the part). */
export const COVERAGE_CREDITS = {
  /** The term (or its typo fix) is one of the operation's name words, or the start of one. */
  name: 1,
  /** A synonym of the term's action group ("remove" → delete) is one of its name words. */
  actionSynonym: 0.95,
  /** The term asks for an action the operation does, whatever its name says ("list" for a GET on a collection). */
  action: 0.9,
  /** A synonym of the term ("song" → track) is one of its name words. */
  synonym: 0.7,
  /** A name word the document's prose says the term stands for. */
  learned: 0.7,
  /** A name word the corpus vocabulary says the term stands for. */
  corpus: 0.6,
  /** The term names one of its parameters. */
  param: 0.5,
  /** The term is a value its parameters or body take. */
  value: 0.3,
  /** The term names a field of what it returns. */
  returned: 0.3,
  /** The term is in its descriptions only. */
  prose: 0.3,
} as const;

/** Summary fit: what each word of the operation's summary is worth when the query accounts for it so (the mean over its words is the part). */
export const SUMMARY_CREDITS = {
  /** The query says the word (or its typo fix), or the start of it. */
  direct: 1,
  /** The word is a synonym of the action the query asks. */
  verb: 0.5,
  /** The word is a synonym or learnt word of one of the query's. */
  expansion: 0.5,
} as const;

/** The action part: the action the query asks (create, list, delete…) against the operation's. */
export const ACTION_FIT = {
  /** The same action (update and replace count as one). */
  same: 0.25,
  /** "get" asked, the operation lists ("get the lists on a board" reads many): a small reward. */
  listForGet: 0.1,
  /** "list" asked, the operation gets one: a smaller mistake than writing. */
  getForList: -0.1,
  /** Any other action: reading for writing, deleting for creating… */
  other: -0.25,
} as const;

/** Penalties for operations that should make way for the everyday ones unless the query asks for them. */
export const NICHE_PENALTIES = {
  /** A deprecated operation (the card still says so). */
  deprecated: 0.3,
  /** An admin or enterprise operation (its id, path or tags say so). */
  niche: 0.15,
} as const;

/**
 * One query over several APIs (searchAcross.ts): each hit's score gains
 * these, so the API a request is about comes first when other APIs have
 * operations of the same name. Chosen on `npm run bench:search-across`'s
 * scope of demo, OpenAgenda, GitHub and Stripe (the tuned and dev sets).
 */
export const ACROSS_WEIGHTS = {
  /** Times the share of the query's words the API is written in (its names, parameters, learnt prose), each word counted by how few APIs in reach know it. */
  familiarity: 1,
  /** The query names the API (its name, identifier or alias): "get my Stripe account details". */
  named: 1.5,
} as const;
