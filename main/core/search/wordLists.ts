// Every word list the search knows by heart, in one place: the small
// grammatical families (articles, demonstratives, possessives, the asker's
// words, prepositions…) and the lists built from them for each job — stop
// words (textProcessing.ts), reading a query (queryParsing.ts), naming an
// operation's action (operationFeatures.ts), what the document's vocabulary
// never learns (documentVocabulary.ts) — and the thesaurus of synonyms
// (synonyms.ts reads it). Nothing here names one API: an API's own words are
// its profile's (`words`). Words are lowercase and accent-free, as
// normalize() leaves them. This file is data, not logic.

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

// ── Reading a query: people, views, being told (queryParsing.ts) ──────────

/** The verbs of putting someone somewhere ("add", "invite"…), beside the actions of making and changing. */
export const PUTTING_VERBS = new Set(['add', 'invite', 'assign', 'put', 'bring', 'include']);

/** Words after which "who" asks: "show me who…", "tell me who…", "find out who…". */
export const WHO_AFTER = new Set(['show', 'me', 'us', 'see', 'tell', 'list', 'find', 'out', 'check', 'know', 'wondering', 'and']);

/** Words of being told, after "get". */
export const TOLD_WORDS = new Set([
  'notified',
  'notification',
  'notifications',
  'callback',
  'callbacks',
  'alert',
  'alerted',
  'alerts',
  'pinged',
  'ping',
  'webhook',
  'email',
  'emailed',
]);

/** Words for a view of a thing rather than a thing ("details of an order"), stemmed; and the words that join them to it. */
export const VIEWS = new Set(['detail', 'info', 'information', 'data']);
export const VIEW_OF = new Set(['of', 'for', 'about']);

// ── What an operation is about (operationFeatures.ts) ────────────────────

/** The last words of a call-style path that reads one thing (`/order.info.json`, `/users.show`). */
export const READS_ONE = new Set(['info', 'detail', 'details', 'show', 'get']);

/** What a summary calls the thing when it could head any operation of its kind: "a new resource", "the specified item". */
export const GENERIC_THINGS = new Set(['resource', 'collection', 'item', 'entity', 'object', 'record', 'element']);
/** The other words of such a summary ("Retrieves a list of resources, possibly filtered."), as terms() gives them. */
export const GENERIC_FILLER = new Set(['new', 'specified', 'existing', 'given', 'list', 'possibly', 'filtered', 'single', 'one', 'multiple', 'matching']);

// ── The thesaurus (synonyms.ts reads it) ──────────────────────────────────
//
// Query-side synonyms: common English and French wording mapped to the
// vocabulary API documents use. The document's own `x-synonyms` are indexed
// with each operation, and an API's own words are its profile's (`words`);
// this table covers what a person types that no document says ("how many",
// "créer", "supprimer", "à venir"…), in words every API shares.

export interface SynonymGroup {
  /** Words or phrases a query may contain (English or French, any case or accents). */
  triggers: string[];
  /** Words the documents use for that idea. */
  expansions: string[];
  /** The CRUD action the wording asks for, when it names one. */
  action?: Action;
}

export const SYNONYM_GROUPS: readonly SynonymGroup[] = [
  {
    triggers: ['how many', 'number of', 'count', 'combien', 'nombre', 'compter', 'total', 'tally'],
    expansions: ['count', 'facets', 'aggregate', 'total', 'stats'],
  },
  {
    triggers: ['statistics', 'stats', 'statistiques', 'overview', 'apercu', 'resume', 'tableau de bord', 'dashboard', 'metrics', 'breakdown', 'repartition'],
    expansions: ['stats', 'statistics', 'overview', 'summary', 'aggregate', 'report'],
  },
  {
    triggers: [
      'create',
      'add',
      'new',
      'make',
      'set up',
      'setup',
      'spin up',
      'register',
      'open',
      'start',
      'launch',
      'generate',
      'issue',
      'creer',
      'ajouter',
      'nouveau',
      'nouvel',
      'nouvelle',
      'publier',
      'poster',
      'inserer',
      'enregistrer',
    ],
    expansions: ['create', 'add', 'new', 'post'],
    action: 'create',
  },
  {
    triggers: [
      'update',
      'modify',
      'edit',
      'change',
      'rename',
      'assign',
      'reassign',
      'mark',
      'tick',
      'toggle',
      'complete',
      'archive',
      'unarchive',
      'enable',
      'disable',
      'resize',
      'scale',
      'modifier',
      'mettre a jour',
      'changer',
      'editer',
      'corriger',
      'renommer',
    ],
    expansions: ['update', 'edit', 'modify', 'patch', 'change', 'set'],
    action: 'update',
  },
  { triggers: ['replace', 'overwrite', 'remplacer', 'ecraser'], expansions: ['replace', 'put', 'overwrite'], action: 'replace' },
  { triggers: ['partial', 'partiel', 'partielle', 'partiellement', 'juste', 'only', 'seulement', 'just'], expansions: ['patch', 'partial'] },
  {
    triggers: [
      'delete',
      'remove',
      'destroy',
      'erase',
      'drop',
      'kick',
      'ban',
      'expel',
      'unlink',
      'detach',
      'purge',
      'wipe',
      'get rid',
      'supprimer',
      'effacer',
      'retirer',
      'enlever',
      'detruire',
    ],
    expansions: ['delete', 'remove'],
    action: 'delete',
  },
  { triggers: ['cancel', 'void', 'revoke', 'abort', 'annuler', 'terminate', 'stop'], expansions: ['cancel', 'void', 'revoke', 'delete', 'stop'] },
  { triggers: ['copy', 'clone', 'duplicate', 'dupliquer', 'copier'], expansions: ['duplicate', 'copy', 'clone'], action: 'create' },
  { triggers: ['send', 'post', 'publish', 'write', 'say', 'envoyer', 'tell'], expansions: ['send', 'post', 'message', 'publish'], action: 'create' },
  { triggers: ['invite', 'inviter', 'onboard'], expansions: ['invite', 'add', 'member'], action: 'create' },
  {
    triggers: ['like', 'liked', 'favorite', 'favourite', 'favorited', 'bookmark', 'bookmarked', 'heart', 'save', 'saved', 'aimer', 'favori', 'favoris'],
    expansions: ['save', 'saved', 'favorite', 'like', 'star', 'library'],
  },
  {
    triggers: ['unlike', 'unfavorite', 'unfavourite', 'unsave', 'unbookmark', 'unstar'],
    expansions: ['remove', 'delete', 'saved', 'unstar'],
    action: 'delete',
  },
  { triggers: ['follow', 'watch', 'subscribe', 'suivre', 'abonner'], expansions: ['follow', 'follower', 'subscribe', 'subscription', 'watch'] },
  { triggers: ['unfollow', 'unwatch', 'unsubscribe'], expansions: ['unfollow', 'unsubscribe', 'remove', 'follower', 'subscription'], action: 'delete' },
  {
    triggers: ['notify', 'notified', 'callback', 'whenever', 'webhook', 'webhooks', 'hook', 'push notification', 'event subscription'],
    expansions: ['webhook', 'hook', 'callback', 'subscription', 'event'],
  },
  { triggers: ['upload', 'attach', 'televerser'], expansions: ['upload', 'attachment', 'file', 'attach'], action: 'create' },
  { triggers: ['download', 'export', 'telecharger', 'exporter'], expansions: ['download', 'export', 'content', 'file'], action: 'get' },
  { triggers: ['restart', 'reboot', 'power cycle'], expansions: ['reboot', 'restart', 'power', 'action'] },
  { triggers: ['shut down', 'shutdown', 'power off', 'turn off', 'switch off'], expansions: ['power', 'shutdown', 'disable', 'action'] },
  { triggers: ['power on', 'turn on', 'switch on', 'boot', 'boot up'], expansions: ['power', 'boot', 'enable', 'action'] },
  { triggers: ['pause', 'snooze', 'mute', 'do not disturb', 'dnd', 'silence'], expansions: ['pause', 'snooze', 'mute', 'dnd'] },
  { triggers: ['resume', 'unpause', 'unmute', 'play', 'continue'], expansions: ['resume', 'play', 'start', 'playback'] },
  { triggers: ['jump to', 'skip to', 'fast forward', 'rewind', 'go to'], expansions: ['seek', 'position'] },
  {
    triggers: ['who am i', 'whoami', 'logged in', 'signed in', 'my identity', 'my profile', 'my account', 'current user', 'authenticated user'],
    expansions: ['me', 'current', 'authenticated', 'identity', 'profile', 'account', 'self', 'auth', 'user'],
    action: 'get',
  },
  {
    triggers: [
      'someone',
      'somebody',
      'person',
      'people',
      'everyone',
      'everybody',
      'teammate',
      'colleague',
      'collaborator',
      'coworker',
      'employee',
      'staff',
      'personne',
      'personnes',
    ],
    expansions: ['user', 'member', 'people', 'collaborator'],
  },
  {
    triggers: ['who', 'user', 'users', 'utilisateur', 'utilisateurs', 'account', 'compte'],
    expansions: ['user', 'member', 'account'],
  },
  { triggers: ['online', 'offline', 'away', 'available', 'active', 'idle', 'presence'], expansions: ['presence', 'status', 'active', 'away'] },
  { triggers: ['react', 'reaction', 'emoji', 'thumbs up', 'thumbs down', 'upvote'], expansions: ['reaction', 'emoji', 'react'] },
  { triggers: ['text', 'message', 'messages', 'dm', 'direct message', 'chat', 'note'], expansions: ['message', 'chat', 'post', 'text'] },
  { triggers: ['channel', 'channels', 'room', 'rooms', 'chatroom', 'group chat', 'canal'], expansions: ['channel', 'conversation', 'room', 'group'] },
  { triggers: ['song', 'songs', 'tune', 'tunes', 'music', 'chanson', 'chansons', 'morceau'], expansions: ['track', 'song', 'music', 'audio'] },
  { triggers: ['podcast', 'podcasts'], expansions: ['show', 'episode', 'podcast'] },
  {
    triggers: ['server', 'servers', 'vm', 'vms', 'virtual machine', 'instance', 'instances', 'host', 'serveur', 'serveurs'],
    expansions: ['server', 'instance', 'virtual', 'machine', 'vm', 'host'],
  },
  {
    triggers: ['bill', 'billing', 'invoice', 'owe', 'balance', 'cost', 'spend', 'spent', 'charges', 'facture'],
    expansions: ['billing', 'balance', 'invoice', 'cost', 'usage'],
  },
  { triggers: ['chargeback', 'chargebacks', 'dispute', 'disputes'], expansions: ['dispute', 'chargeback'] },
  { triggers: ['payout', 'payouts', 'withdraw', 'withdrawal', 'cash out', 'pay out'], expansions: ['payout', 'transfer', 'withdrawal'] },
  { triggers: ['pay', 'payment', 'payments', 'charge', 'paiement', 'payer'], expansions: ['payment', 'charge', 'pay'] },
  { triggers: ['refund', 'refunds', 'rembourser', 'remboursement'], expansions: ['refund'] },
  { triggers: ['discount', 'coupon', 'promo', 'promotion', 'voucher', 'promo code'], expansions: ['coupon', 'discount', 'promotion', 'promo'] },
  {
    triggers: ['blocked by', 'blocking', 'blocks', 'depends on', 'depend on', 'dependency', 'prerequisite', 'blocker'],
    expansions: ['dependency', 'dependent', 'blocker'],
  },
  { triggers: ['autocomplete', 'typeahead', 'as i type', 'suggest', 'suggestions'], expansions: ['typeahead', 'autocomplete', 'suggest'] },
  {
    triggers: ['activity', 'history', 'log', 'feed', 'audit', 'happened', 'historique'],
    expansions: ['activity', 'history', 'action', 'event', 'log', 'feed'],
  },
  { triggers: ['alert', 'alerts', 'alarm', 'alarms', 'alerte', 'alertes'], expansions: ['alert', 'policy', 'alarm', 'monitor'] },
  { triggers: ['deploy', 'deployment', 'redeploy', 'deployer'], expansions: ['deployment', 'deploy', 'app'] },
  { triggers: ['backup', 'snapshot', 'sauvegarde'], expansions: ['backup', 'snapshot', 'image'] },
  { triggers: ['folder', 'folders', 'directory', 'dossier', 'dossiers'], expansions: ['folder', 'directory'] },
  { triggers: ['picture', 'avatar', 'photo'], expansions: ['image', 'photo', 'avatar', 'picture'] },
  { triggers: ['column', 'columns', 'colonne', 'colonnes', 'lane', 'stage'], expansions: ['column', 'list', 'section', 'stage'] },
  { triggers: ['move', 'transfer', 'deplacer'], expansions: ['move', 'transfer', 'position'] },
  { triggers: ['schedule', 'later', 'remind', 'reminder', 'rappel', 'programmer'], expansions: ['schedule', 'scheduled', 'reminder', 'remind'] },
  { triggers: ['belong', 'belongs', 'belong to', 'part of', 'membre de', 'joined'], expansions: ['member', 'membership', 'memberships'] },
  {
    triggers: [
      'list',
      'all',
      'browse',
      'search',
      'find',
      'show',
      'lister',
      'liste',
      'tous',
      'toutes',
      'chercher',
      'rechercher',
      'trouver',
      'afficher',
      'parcourir',
      'recherche',
    ],
    expansions: ['list', 'search', 'find', 'browse'],
    action: 'list',
  },
  {
    triggers: [
      'get',
      'fetch',
      'retrieve',
      'read',
      'details',
      'detail',
      'obtenir',
      'recuperer',
      'voir',
      'consulter',
      'lire',
      'details de',
      'fiche',
      'infos',
      'information',
      'look up',
      'lookup',
    ],
    expansions: ['get', 'retrieve', 'detail', 'single'],
    action: 'get',
  },
  {
    triggers: ['upcoming', 'future', 'next', 'coming', 'soon', 'a venir', 'prochain', 'prochains', 'prochaine', 'prochaines', 'futur', 'futurs', 'bientot'],
    expansions: ['upcoming', 'future'],
  },
  {
    triggers: ['past', 'previous', 'finished', 'ended', 'passe', 'passes', 'passee', 'passees', 'termine', 'termines', 'anciens'],
    expansions: ['passed', 'past'],
  },
  { triggers: ['ongoing', 'current', 'now', 'happening', 'en cours', 'actuel', 'actuels', 'maintenant'], expansions: ['current'] },
  {
    triggers: [
      'today',
      'tomorrow',
      'tonight',
      'weekend',
      'week',
      'month',
      'date',
      'when',
      'aujourd hui',
      'demain',
      'ce soir',
      'semaine',
      'mois',
      'quand',
      'between',
      'entre',
    ],
    expansions: ['timings', 'date', 'when'],
  },
  {
    triggers: [
      'event',
      'events',
      'evenement',
      'evenements',
      'evenemen',
      'manifestation',
      'manifestations',
      'sortie',
      'sorties',
      'concert',
      'concerts',
      'spectacle',
      'spectacles',
    ],
    expansions: ['event', 'events'],
  },
  { triggers: ['agenda', 'agendas', 'calendar', 'calendars', 'calendrier', 'calendriers'], expansions: ['agenda', 'agendas', 'calendar'] },
  {
    triggers: ['location', 'locations', 'venue', 'venues', 'place', 'places', 'address', 'lieu', 'lieux', 'salle', 'salles', 'adresse', 'adresses', 'endroit'],
    expansions: ['location', 'locations', 'venue', 'place'],
  },
  { triggers: ['city', 'town', 'ville', 'villes', 'commune'], expansions: ['city'] },
  { triggers: ['near', 'nearby', 'around', 'close to', 'autour', 'pres', 'proche', 'proximite', 'radius', 'rayon'], expansions: ['near', 'radius', 'geo'] },
  {
    triggers: ['image', 'photo', 'picture', 'media', 'file', 'upload', 'televerser', 'telecharger', 'fichier', 'affiche'],
    expansions: ['upload', 'image', 'media', 'file'],
  },
  {
    triggers: [...CALLER_WORDS, 'membre', 'member', 'membership', 'memberships'],
    expansions: ['me', 'my', 'member', 'memberships', 'current'],
  },
  { triggers: ['schema', 'form', 'fields', 'formulaire', 'champs', 'champ', 'structure'], expansions: ['schema', 'form', 'fields'] },
  { triggers: ['validate', 'check', 'verify', 'dry run', 'test', 'verifier', 'valider', 'controler', 'tester'], expansions: ['validate', 'check', 'dry run'] },
  {
    triggers: ['external id', 'ext id', 'extid', 'identifiant externe', 'id externe', 'source id', 'sync', 'synchroniser', 'synchronisation', 'upsert'],
    expansions: ['external', 'sync', 'upsert'],
  },
  { triggers: ['keyword', 'keywords', 'tag', 'tags', 'mot cle', 'mots cles', 'theme', 'themes', 'thematique'], expansions: ['keyword', 'tag'] },
  { triggers: ['free', 'gratuit', 'gratuits', 'gratuite', 'price', 'prix', 'tarif'], expansions: ['price', 'conditions'] },
  { triggers: ['accessible', 'accessibility', 'accessibilite', 'handicap', 'wheelchair', 'fauteuil'], expansions: ['accessibility'] },
  { triggers: ['online', 'virtual', 'en ligne', 'visio', 'remote', 'hybrid', 'hybride'], expansions: ['attendance', 'mode', 'online'] },
  { triggers: ['language', 'languages', 'langue', 'langues', 'english', 'french', 'anglais', 'francais'], expansions: ['language', 'lang'] },
  {
    triggers: ['page', 'pages', 'next page', 'pagination', 'paginate', 'cursor', 'suivant', 'suivante', 'page suivante'],
    expansions: ['after', 'cursor', 'paginate', 'page'],
  },
  { triggers: ['official', 'officiel', 'officiels', 'officielle', 'officielles', 'verified'], expansions: ['official'] },
  { triggers: ['repository', 'repositories', 'repo', 'repos', 'depot', 'depots'], expansions: ['repo', 'repos', 'repository'] },
  { triggers: ['issue', 'issues', 'ticket', 'tickets', 'bug', 'bugs'], expansions: ['issue', 'issues'] },
  { triggers: ['pull request', 'pull requests', 'pr', 'prs', 'merge request'], expansions: ['pull', 'pulls'] },
  { triggers: ['comment', 'comments', 'commentaire', 'commentaires', 'reply'], expansions: ['comment', 'comments'] },
  { triggers: ['star', 'stars', 'starred', 'stargazer', 'stargazers', 'etoile', 'etoiles'], expansions: ['star', 'starred', 'stargazers'] },
  { triggers: ['workflow', 'workflows', 'ci', 'pipeline', 'action', 'actions', 'build', 'builds'], expansions: ['actions', 'workflow', 'runs'] },
  { triggers: ['release', 'releases', 'version', 'versions', 'tag a release'], expansions: ['release', 'releases'] },
  { triggers: ['branch', 'branches', 'branche'], expansions: ['branch', 'branches'] },
  {
    triggers: ['organization', 'organisation', 'org', 'orgs', 'team', 'teams', 'equipe', 'workspace', 'workspaces', 'company', 'tenant'],
    expansions: ['org', 'orgs', 'organization', 'team', 'workspace'],
  },
];
