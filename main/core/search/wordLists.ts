// Every word list the search knows by heart, in one place: the small
// grammatical families (articles, demonstratives, possessives, the asker's
// words, prepositions…) and the lists built from them for each job — stop
// words (textProcessing.ts), reading a query (queryParsing.ts), naming an
// operation's action (operationFeatures.ts), what the document's vocabulary
// never learns (documentVocabulary.ts). The built-in thesaurus of synonyms
// stays in synonyms.ts. Words are lowercase and accent-free, as normalize()
// leaves them.

// ── Grammatical families ──────────────────────────────────────────────────

const ARTICLES = ['a', 'an', 'the'];
const DEMONSTRATIVES = ['this', 'that', 'these', 'those'];
const POSSESSIVES = ['my', 'our', 'your', 'their', 'its'];
const DISTRIBUTIVES = ['each', 'every'];
/** English words after which a word is a noun ("the Done list", "a status update"). */
const ENGLISH_DETERMINERS = [...ARTICLES, ...DEMONSTRATIVES, ...POSSESSIVES, ...DISTRIBUTIVES];
const FRENCH_ARTICLES = ['le', 'la', 'les', 'un', 'une', 'des', 'du'];
const FRENCH_POSSESSIVES = ['mon', 'ma', 'mes'];
/** French "which" (quel, quelles…). */
const FRENCH_WHICH = ['quel', 'quelle', 'quels', 'quelles'];

/** Words a person uses for themself, in English and French ("my boards", "mes agendas"). */
export const CALLER_WORDS = ['me', 'my', 'mine', 'myself', 'mes', 'mon', 'ma', 'moi'];

/** English prepositions that place a thing in another: "tasks in a project", "subscriptions for a customer", "replies to a thread". */
const ENGLISH_OWNER_PREPOSITIONS = ['in', 'on', 'for', 'of', 'from', 'to', 'into', 'under', 'within', 'inside'];

// ── Text processing ───────────────────────────────────────────────────────

/** Words dropped from every text, document and query alike (English and French). */
export const STOP_WORDS = new Set([
  // English
  ...ARTICLES,
  ...DEMONSTRATIVES,
  'its',
  ...['of', 'to', 'in', 'on', 'for', 'with', 'from', 'at', 'as', 'into', 'via', 'using'],
  ...['and', 'or', 'is', 'are', 'be', 'it', 'do', 'does', 'can', 'i', 'you', 'we', 'please', 'how', 'what', 'which', 'there'],
  ...['want', 'need', 'would', 'like', 'some', 'any'],
  // French
  ...FRENCH_ARTICLES,
  ...['l', 'de', 'd', 'et', 'ou', 'en', 'dans', 'sur', 'pour', 'avec', 'par', 'au', 'aux', 'ce', 'ces', 'cet', 'cette'],
  ...['qui', 'que', 'qu', ...FRENCH_WHICH, 'est', 'sont', 'je', 'j', 'tu', 'il', 'elle', 'nous', 'vous', 'ils', 'elles', 'y', 'a', 'se', 's', 'ne', 'pas'],
  ...['veux', 'voudrais', 'peux', 'faire'],
]);

/** Words that end in "s" but name one thing ("canvas", "alias", "series"): not plurals, whatever the stemmer makes of them. */
export const SINGULAR_S = new Set([
  'canvas',
  'alias',
  'atlas',
  'bias',
  'gas',
  'lens',
  'series',
  'species',
  'news',
  'kubernetes',
  'postgres',
  'https',
  'chassis',
  'physics',
  'analytics',
  'ethics',
  'logistics',
]);

/** The particles of two-word phrasal verbs, which may follow the verb's object ("turn it on", "turn my server back on"). */
export const PARTICLES = new Set(['on', 'off', 'up', 'down', 'out', 'back', 'over', 'away']);

/** Function words long enough to be a prefix that never stand for a longer word they start ("all" is not "allowed", "not" not "notification", "per" not "permission", "back" not "backups"). */
export const WHOLE_WORDS = new Set(['all', 'each', 'every', 'not', 'now', 'per', 'our', 'one', ...PARTICLES]);

// ── Reading a query ───────────────────────────────────────────────────────

/** Words after which a one-word action is a noun, not a verb ("the Done list", "a status update"). */
export const DETERMINERS = new Set([...ENGLISH_DETERMINERS, ...FRENCH_ARTICLES, ...FRENCH_POSSESSIVES]);

/** Words after which a verb-like word is the noun the request is about ("get the lists", "all the updates"). */
export const NOUN_MARKERS = new Set([...ENGLISH_DETERMINERS, 'all']);

/** Words that follow a verb, not a noun: "star a board", "comment on an issue". */
export const VERB_FOLLOWERS = new Set([...ENGLISH_DETERMINERS, 'some', 'on']);

/** Words before the noun a request starts with that are not part of it ("show me all my open…"). */
export const LEADING = new Set([
  ...ARTICLES,
  ...DEMONSTRATIVES,
  ...DISTRIBUTIVES,
  ...['all', 'any', 'some', 'my', 'me', 'mine', 'our', 'your'],
  ...['what', 'which', 'who', 'whose', 'how', 'is', 'are', 'am', 'do', 'does', 'can', 'could', 'i', 'we', 'you', 'please'],
  ...['show', 'give', 'tell', 'find', 'one', 'new', 'existing', 'current', 'recent', 'latest'],
]);

/** Words that place a thing in another, in English and French ("tasks in a project", "événements dans un agenda"). */
export const OWNER_PREPOSITIONS = new Set([...ENGLISH_OWNER_PREPOSITIONS, 'dans', 'sur', 'pour', 'de', 'du', 'des']);

/** Words that end the noun a request starts with ("the tasks in a project" → tasks). */
export const PHRASE_ENDS = new Set([
  ...ENGLISH_OWNER_PREPOSITIONS,
  ...['by', 'with', 'onto', 'about', 'at', 'between', 'across', 'over', 'per', 'via'],
  ...['that', 'which', 'who', 'where', 'when', 'whose'],
  ...['so', 'and', 'or', 'while'],
]);

/** Pronouns that follow a verb as its object ("remind me", "alert us"). */
export const OBJECT_PRONOUNS = new Set(['me', 'us', 'them', 'him', 'her', 'it']);

/** Words that start a verb's object ("deactivate a user", "monitor my website"); not "on", which follows nouns too ("a user on the team"). */
export const OBJECT_STARTS = new Set(ENGLISH_DETERMINERS);

/** Words that may start a request but are never its verb ("only my repos", "just the open ones"). */
export const NOT_OPENING = new Set(
  'only just also even still again already ever never always maybe perhaps really all every each any some no most more other another same both either neither'.split(
    ' ',
  ),
);

/** Verbs that end, stop or clear something: a request opening with one favours deleting, then changing ("stop following a user", "clear the history"). */
export const ENDING_VERBS = new Set('stop end cancel revoke abort terminate halt quit leave close kill clear flush empty'.split(' '));

/** Ways of putting a request before the request itself ("how do I archive a card"), as normalized words; a phrase comes before a shorter one it starts with. */
export const LEAD_PHRASES: string[][] = [
  'is there a way to',
  'is it possible to',
  'i would like to',
  'how would i',
  'how do i',
  'how can i',
  'how should i',
  'i want to',
  'i need to',
  'i d like to',
  'can you please',
  'can you',
  'could you',
  'show me how to',
  'tell me how to',
  'help me',
  'help us',
  'let me',
  'let us',
  'how to',
  'please',
  'comment faire pour',
  'comment puis je',
  'je voudrais',
  'je veux',
  'pouvez vous',
  'peux tu',
].map((p) => p.split(' '));

/** Verbs that read, though they name no action ("look up a payment", "check my balance"): a request opening with one does not write. */
export const READING_VERBS = new Set(
  'look see view check inspect examine describe display tell recommend suggest explore discover preview compare print peek know learn count calculate estimate measure test verify validate download export'.split(
    ' ',
  ),
);

/** Words a question starts with: one that names no action asks to read something. */
export const QUESTION_WORDS = new Set([
  ...['what', 'which', 'who', 'whom', 'whose', 'where', 'when'],
  ...['is', 'are', 'am', 'was', 'were', 'does', 'do', 'did', 'has', 'have'],
  ...FRENCH_WHICH,
  ...['qui', 'ou', 'quand', 'combien', 'est'],
]);

/** Words that say the query is about the asker's own things ("my boards", "whoami"). */
export const SELF_WORDS = new Set([...CALLER_WORDS, 'whoami']);

/** What APIs call what tells a caller that something happened: what a request to be told "when…" makes. */
export const EVENT_WORDS = new Set('webhook hook callback subscription notification alert trigger listener'.split(' '));

/** What APIs call the people an operation reads or writes: what a request that asks "who" is after. */
export const PEOPLE_WORDS = new Set(
  'user member people person participant attendee recipient follower watcher subscriber collaborator stargazer owner signer assignee contact voter admin viewer guest invitee customer employee registrant panelist reviewer'.split(
    ' ',
  ),
);

/** What a request calls a person it puts somewhere ("add someone to…", "invite a user to…"), stemmed: beside PEOPLE_WORDS, what APIs call them. */
export const PERSON_OBJECTS = new Set([
  'someone',
  'somebody',
  'user',
  'person',
  'people',
  'member',
  'teammate',
  'colleague',
  'coworker',
  'collaborator',
  'friend',
  'guest',
]);

// ── Operations ────────────────────────────────────────────────────────────

/** Path segments that stand for the caller (`/me`, `/user/self`, `/users/@me`). */
export const SELF_SEGMENTS = new Set(['me', 'my', 'self', 'mine', '@me', 'current', 'whoami']);

/** Words in a "get" summary that say whose things it reads, not what ("Get the current user's tasks"). */
export const OWNER_NOT_OBJECT = ['current', 'user', 'users', 'my'];

/** Words that say a "get" reads many things ("Get multiple workspaces", "Get list of orders"). */
export const MANY_WORDS = ['all', 'multiple', 'several', 'many', 'list'];

/** What marks an operation as one for administrators or enterprise plans, not everyday use. */
export const NICHE_WORDS = ['admin', 'enterprise'];

/** Query terms that ask for deprecated operations (stemmed or not). */
export const DEPRECATION_WORDS = ['deprecat', 'deprecated', 'legacy'];

// ── Verbs ─────────────────────────────────────────────────────────────────

/** The CRUD actions a request asks and an operation performs. */
export type Action = 'list' | 'get' | 'create' | 'update' | 'replace' | 'delete';

/**
 * Verbs that name a CRUD action, in queries and operation names alike. An object without a prototype, so
 * `ACTION_WORDS[w]` finds nothing for `constructor` or `toString`.
 */
export const ACTION_WORDS: Record<string, Action> = Object.assign(Object.create(null) as Record<string, Action>, {
  show: 'list',
  list: 'list',
  search: 'list',
  find: 'list',
  browse: 'list',
  query: 'list',
  get: 'get',
  fetch: 'get',
  retrieve: 'get',
  read: 'get',
  check: 'get',
  download: 'get',
  create: 'create',
  add: 'create',
  new: 'create',
  post: 'create',
  insert: 'create',
  submit: 'create',
  update: 'update',
  edit: 'update',
  patch: 'update',
  modify: 'update',
  change: 'update',
  set: 'update',
  replace: 'replace',
  put: 'replace',
  delete: 'delete',
  remove: 'delete',
  destroy: 'delete',
  drop: 'delete',
});

/**
 * Verbs operations are named after that are none of create, read, update,
 * delete: an operation named with one of them ("startPlayback", "Duplicate a
 * project") does that, whatever its HTTP method.
 */
export const OTHER_VERBS = new Set(
  (
    'start stop pause resume play skip seek transfer follow unfollow save check duplicate copy clone instantiate archive unarchive ' +
    'pin unpin invite kick join leave mark open close rename send schedule share move merge commit fork star unstar watch unwatch ' +
    'assign unassign attach detach cancel void approve reject enable disable reboot restart resize upload test verify validate ' +
    'revoke subscribe unsubscribe trigger run rerun execute complete reopen lock unlock mute unmute snooze react publish unpublish ' +
    'preview capture confirm refund pay finalize accept decline restore sync import export convert link unlink apply reset rotate ' +
    'redeliver ping dismiss block unblock rollback retry reply forward mention tag untag end set toggle establish'
  ).split(' '),
);

/** Whether a word (stemmed) is a verb an operation may be named after: a CRUD verb or another. */
export function isVerb(word: string): boolean {
  return !!ACTION_WORDS[word] || OTHER_VERBS.has(word);
}

// ── The document's vocabulary (documentVocabulary.ts) ─────────────────────

/** Words that name an action or a generic part of an API: never what a prose word stands for. */
export const GENERIC_NAMES = new Set(
  'get list create update delete remove add set post put patch by id for all api v1 v2 v3 new info detail single multiple several'.split(' '),
);

/** Words that say how, not what: never learnt. */
export const FUNCTION_WORDS = new Set(
  (
    'who whom whose what when where why which while whenever wherever however whether also only just even ever never always often ' +
    'one two three first last next other another each every both either neither such same own more most less least much many few ' +
    'see seen show shown made make makes making use used uses using return returns returned given give gives take takes taken ' +
    'will would shall should could may might must can cannot has have had having was were been being does did done doing ' +
    'out off over under about above below after before between into onto upon within without through than then there here ' +
    'not yes very well still already yet per via etc sent send sends new old true false null default value values field fields ' +
    'object objects request requests response responses endpoint endpoints call calls result results specified provided ' +
    'following follows based order name type types set sets data information available example note'
  ).split(' '),
);
