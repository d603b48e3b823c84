// Query-side synonyms: common English and French wording mapped to the
// vocabulary API documents use. The document's own `x-synonyms` are indexed
// with each operation; this map covers what a person types that no document
// says ("how many", "créer", "supprimer", "à venir"…).
import { normalize, splitWords, stem } from './textProcessing.ts';

interface SynonymGroup {
  /** Words or phrases a query may contain (English or French, any case or accents). */
  triggers: string[];
  /** Words the documents use for that idea. */
  expansions: string[];
  /** The CRUD action the wording asks for, when it names one. */
  action?: Action;
}

export type Action = 'list' | 'get' | 'create' | 'update' | 'replace' | 'delete';

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
    triggers: ['create', 'add', 'new', 'make', 'creer', 'ajouter', 'nouveau', 'nouvel', 'nouvelle', 'publier', 'poster', 'inserer', 'enregistrer'],
    expansions: ['create', 'add', 'new', 'post'],
    action: 'create',
  },
  {
    triggers: ['update', 'modify', 'edit', 'change', 'rename', 'modifier', 'mettre a jour', 'changer', 'editer', 'corriger', 'renommer'],
    expansions: ['update', 'edit', 'modify', 'patch', 'change'],
    action: 'update',
  },
  { triggers: ['replace', 'overwrite', 'remplacer', 'ecraser'], expansions: ['replace', 'put', 'overwrite'], action: 'replace' },
  { triggers: ['partial', 'partiel', 'partielle', 'partiellement', 'juste', 'only', 'seulement', 'just'], expansions: ['patch', 'partial'] },
  {
    triggers: ['delete', 'remove', 'destroy', 'erase', 'drop', 'cancel', 'supprimer', 'effacer', 'retirer', 'enlever', 'annuler', 'detruire'],
    expansions: ['delete', 'remove'],
    action: 'delete',
  },
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
    triggers: ['me', 'my', 'mine', 'myself', 'mes', 'mon', 'ma', 'moi', 'membre', 'member', 'membership', 'memberships'],
    expansions: ['me', 'my', 'member', 'memberships'],
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
  { triggers: ['user', 'users', 'utilisateur', 'utilisateurs', 'account', 'compte'], expansions: ['user', 'me', 'account'] },
  { triggers: ['repository', 'repositories', 'repo', 'repos', 'depot', 'depots'], expansions: ['repo', 'repos', 'repository'] },
  { triggers: ['issue', 'issues', 'ticket', 'tickets', 'bug', 'bugs'], expansions: ['issue', 'issues'] },
  { triggers: ['pull request', 'pull requests', 'pr', 'prs', 'merge request'], expansions: ['pull', 'pulls'] },
  { triggers: ['comment', 'comments', 'commentaire', 'commentaires', 'reply'], expansions: ['comment', 'comments'] },
  { triggers: ['star', 'stars', 'starred', 'stargazer', 'stargazers', 'etoile', 'etoiles'], expansions: ['star', 'starred', 'stargazers'] },
  { triggers: ['workflow', 'workflows', 'ci', 'pipeline', 'action', 'actions', 'build', 'builds'], expansions: ['actions', 'workflow', 'runs'] },
  { triggers: ['release', 'releases', 'version', 'versions', 'tag a release'], expansions: ['release', 'releases'] },
  { triggers: ['branch', 'branches', 'branche'], expansions: ['branch', 'branches'] },
  { triggers: ['organization', 'organisation', 'org', 'orgs', 'team', 'teams', 'equipe'], expansions: ['org', 'orgs', 'organization'] },
];

interface CompiledGroup {
  triggers: string[][]; // normalized word sequences
  expansions: string[];
  action?: Action;
}

const COMPILED: CompiledGroup[] = GROUPS.map((g) => ({
  triggers: g.triggers.map((t) => splitWords(normalize(t))),
  expansions: g.expansions,
  ...(g.action ? { action: g.action } : {}),
}));

/** Index of the first word of `phrase` in `words`, or -1. */
function find(words: string[], phrase: string[]): number {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) {
      const w = words[i + j]!;
      const p = phrase[j]!;
      if (w !== p && stem(w) !== stem(p)) continue outer;
    }
    return i;
  }
  return -1;
}

export interface TriggeredGroup {
  /** The query words (normalized, unstemmed) that triggered the group. */
  words: string[];
  expansions: string[];
  action?: Action;
}

/** The built-in groups a query's wording triggers. */
export function triggeredGroups(query: string): TriggeredGroup[] {
  const words = splitWords(normalize(query));
  const out: TriggeredGroup[] = [];
  for (const g of COMPILED) {
    for (const t of g.triggers) {
      if (t.length === 0) continue;
      const at = find(words, t);
      if (at < 0) continue;
      out.push({ words: words.slice(at, at + t.length), expansions: g.expansions, ...(g.action ? { action: g.action } : {}) });
      break;
    }
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
