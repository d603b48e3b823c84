// Query-side synonyms: common English and French wording mapped to the
// vocabulary API documents use. The document's own `x-synonyms` are indexed
// with each operation; this map covers what a person types that no document
// says ("how many", "créer", "supprimer", "à venir"…).
import { normalize, splitWords, stem } from './textProcessing.ts';
import { type Action, CALLER_WORDS, DETERMINERS, PARTICLES, PHRASE_ENDS } from './wordLists.ts';

export type { Action };

interface SynonymGroup {
  /** Words or phrases a query may contain (English or French, any case or accents). */
  triggers: string[];
  /** Words the documents use for that idea. */
  expansions: string[];
  /** The CRUD action the wording asks for, when it names one. */
  action?: Action;
}

const GROUPS: SynonymGroup[] = [
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
  { triggers: ['pay', 'payment', 'payments', 'charge', 'paiement', 'payer'], expansions: ['payment', 'charge', 'pay', 'intent'] },
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
    expansions: ['upcoming', 'relative', 'future'],
  },
  {
    triggers: ['past', 'previous', 'finished', 'ended', 'passe', 'passes', 'passee', 'passees', 'termine', 'termines', 'anciens'],
    expansions: ['passed', 'past', 'relative'],
  },
  { triggers: ['ongoing', 'current', 'now', 'happening', 'en cours', 'actuel', 'actuels', 'maintenant'], expansions: ['current', 'relative'] },
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
    expansions: ['ext', 'external', 'sync', 'upsert'],
  },
  { triggers: ['keyword', 'keywords', 'tag', 'tags', 'mot cle', 'mots cles', 'theme', 'themes', 'thematique'], expansions: ['keyword', 'tag'] },
  { triggers: ['free', 'gratuit', 'gratuits', 'gratuite', 'price', 'prix', 'tarif'], expansions: ['registration', 'price', 'conditions'] },
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

interface CompiledGroup {
  triggers: string[][]; // normalized word sequences
  stemmed: string[][]; // the same, stemmed (what queries are matched on)
  expansions: string[];
  action?: Action;
}

const COMPILED: CompiledGroup[] = GROUPS.map((g) => ({
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
