// The sample events a new demo database starts with: varied enough to make
// every filter of the demo API return something interesting (cities in and
// outside France, all statuses, free and paying, past and upcoming). Dates are
// relative to the moment of seeding, so the calendar looks current on the
// first run.
import type { Category, EventInput, EventStatus } from './demoModel.ts';
import { formatDateTime } from './demoModel.ts';

interface SeedEvent {
  /** Days from the seeding day (UTC midnight), and the UTC start time. */
  day: number;
  at: string;
  /** Duration in hours. */
  hours: number;
  title: string;
  description: string;
  category: Category;
  city: string;
  venue: string;
  price: number;
  currency?: string;
  status?: EventStatus;
  tags: string[];
}

const SEED: SeedEvent[] = [
  { day: -13, at: '18:30', hours: 2.5, title: 'Quatuor Ébène: Beethoven late quartets', description: 'The Quatuor Ébène closes its Beethoven cycle with opus 131 and 132.', category: 'music', city: 'Paris', venue: 'Philharmonie de Paris', price: 38, tags: ['classical', 'chamber music'] },
  { day: -9, at: '07:30', hours: 9, title: 'Lyon Web Summit', description: 'A day of talks on web performance, accessibility and JavaScript tooling, with a job fair at lunch.', category: 'conference', city: 'Lyon', venue: 'Centre de Congrès de Lyon', price: 120, tags: ['web', 'javascript', 'accessibility'] },
  { day: -7, at: '08:00', hours: 8, title: 'Open Data Day Paris', description: 'Hackathon and workshops around public open data. Bring a laptop; lunch is provided.', category: 'conference', city: 'Paris', venue: 'La Gaîté Lyrique', price: 0, tags: ['open data', 'hackathon'] },
  { day: -5, at: '13:00', hours: 3, title: 'Atelier céramique pour débutants', description: 'Learn to throw a bowl on the wheel. All materials included; firing and pick-up two weeks later.', category: 'workshop', city: 'Bordeaux', venue: 'Les Ateliers de la Bastide', price: 45, tags: ['pottery', 'craft'] },
  { day: -2, at: '08:00', hours: 24 * 60, title: 'Impressionnistes du Nord', description: 'Sixty paintings by Northern French impressionists, on loan from regional museums. Open daily except Tuesday.', category: 'exhibition', city: 'Lille', venue: 'Palais des Beaux-Arts', price: 12, tags: ['painting', 'impressionism'] },
  { day: 1, at: '16:00', hours: 5, title: 'Marché nocturne des producteurs', description: 'Local farmers, cheese makers and winemakers under the hangar, with live music.', category: 'food', city: 'Nantes', venue: 'Hangar à Bananes', price: 0, tags: ['market', 'local produce'] },
  { day: 3, at: '19:30', hours: 2.5, title: 'Open-air cinema: Les Demoiselles de Rochefort', description: "Jacques Demy's musical on the big lawn. Bring a blanket; deckchairs for hire.", category: 'cinema', city: 'Paris', venue: 'Parc de la Villette', price: 0, tags: ['outdoor', 'musical', 'classic film'] },
  { day: 5, at: '05:30', hours: 4, title: 'Semi-marathon de Marseille', description: 'A 21.1 km course along the Corniche, starting and finishing at the Vieux-Port.', category: 'sport', city: 'Marseille', venue: 'Vieux-Port', price: 35, tags: ['running', 'half marathon'] },
  { day: 6, at: '18:00', hours: 3, title: 'Le Misanthrope', description: "Molière's comedy in a new staging by the troupe of the Comédie-Française.", category: 'theatre', city: 'Paris', venue: 'Comédie-Française, Salle Richelieu', price: 42, tags: ['molière', 'classic'] },
  { day: 8, at: '12:00', hours: 4, title: 'Family science afternoon', description: 'Build and launch water rockets, then visit the planetarium. For children aged 6 to 12 with their parents.', category: 'family', city: 'Toulouse', venue: "Cité de l'espace", price: 15, tags: ['science', 'kids', 'space'] },
  { day: 10, at: '17:00', hours: 3, title: 'Rust & WebAssembly meetup', description: 'Two talks on running Rust in the browser, then pizza. Talks in English.', category: 'conference', city: 'Berlin', venue: 'c-base', price: 0, tags: ['rust', 'webassembly', 'meetup'] },
  { day: 12, at: '17:00', hours: 54, title: "Festival des Lumières d'été", description: 'Three evenings of light installations and projections across the park, free for everyone.', category: 'festival', city: 'Lyon', venue: "Parc de la Tête d'Or", price: 0, tags: ['lights', 'outdoor', 'art'] },
  { day: 14, at: '20:00', hours: 5, title: 'Nuit électro au Rockstore', description: 'Three DJs from the Montpellier scene, from house to techno, until late.', category: 'music', city: 'Montpellier', venue: 'Rockstore', price: 18, tags: ['electronic', 'dj', 'night'] },
  { day: 16, at: '18:00', hours: 2, title: 'Concert au château: Bach et Vivaldi', description: 'Baroque concert in the castle courtyard. Cancelled: the ensemble is on sick leave; tickets are refunded.', category: 'music', city: 'Strasbourg', venue: 'Château des Rohan', price: 25, status: 'cancelled', tags: ['baroque', 'classical'] },
  { day: 20, at: '08:00', hours: 9, title: 'Tournoi de pétanque de la Promenade', description: 'Open doublette tournament. Postponed because of the weather forecast; a new date will follow.', category: 'sport', city: 'Nice', venue: 'Promenade des Anglais', price: 5, status: 'postponed', tags: ['pétanque', 'tournament'] },
  { day: 21, at: '07:00', hours: 9, title: 'Privacy Engineering Day', description: 'Practitioners share how they build privacy into products: data minimisation, consent, audits.', category: 'conference', city: 'Geneva', venue: 'Campus Biotech', price: 90, currency: 'CHF', tags: ['privacy', 'security'] },
  { day: 25, at: '15:00', hours: 6, title: 'Festival des saveurs du Vieux-Montréal', description: 'Street food from forty local restaurants, tastings and cooking demos.', category: 'food', city: 'Montreal', venue: 'Place Jacques-Cartier', price: 0, currency: 'CAD', tags: ['street food', 'tasting'] },
  { day: 28, at: '18:30', hours: 3.5, title: 'Hamlet', description: "Shakespeare's tragedy in a bold modern-dress production.", category: 'theatre', city: 'London', venue: 'National Theatre, Olivier Theatre', price: 55, currency: 'GBP', tags: ['shakespeare', 'tragedy'] },
  { day: 33, at: '09:00', hours: 24 * 30, title: 'Comics Art Biennale', description: 'Original boards from Belgian and French comics, from Hergé to today.', category: 'exhibition', city: 'Brussels', venue: 'Centre Belge de la Bande Dessinée', price: 10, tags: ['comics', 'illustration'] },
  { day: 40, at: '19:00', hours: 4, title: 'Jazz sur le toit', description: 'A jazz quartet on the rooftop terrace at sunset. Free entry, drinks at the bar.', category: 'music', city: 'Rennes', venue: 'Les Champs Libres', price: 0, tags: ['jazz', 'outdoor'] },
  { day: 47, at: '08:00', hours: 7, title: 'Introduction à la photographie argentique', description: 'Shoot a roll of film in the Marais in the morning, develop it in the lab in the afternoon.', category: 'workshop', city: 'Paris', venue: 'Atelier Argentique du Marais', price: 60, tags: ['photography', 'film'] },
  { day: 55, at: '17:00', hours: 3, title: 'Tapas & vermouth walking tour', description: 'Five bars of the Gràcia district with a local guide. Tour in English and Spanish.', category: 'food', city: 'Barcelona', venue: 'Plaça del Sol', price: 30, tags: ['tapas', 'tour'] },
  { day: 62, at: '10:00', hours: 24 * 7, title: 'French Film Week', description: 'A week of recent French films with Japanese subtitles, and a Q&A with two directors.', category: 'cinema', city: 'Tokyo', venue: 'Institut français du Japon', price: 1800, currency: 'JPY', tags: ['film festival', 'french cinema'] },
  { day: 75, at: '08:00', hours: 3, title: 'Chasse au trésor au Jardin des Plantes', description: 'A treasure hunt among the greenhouses and the menagerie, for families with children from 5 years.', category: 'family', city: 'Paris', venue: 'Jardin des Plantes', price: 0, tags: ['kids', 'nature', 'treasure hunt'] },
  { day: 88, at: '09:00', hours: 60, title: 'Bordeaux Fête le Vin', description: 'Wine tasting along the Garonne quays, with a pass for eighty producers of the region.', category: 'festival', city: 'Bordeaux', venue: 'Quais de la Garonne', price: 25, tags: ['wine', 'tasting'] },
];

export const SEED_SIZE = SEED.length;

const DAY = 86_400_000;

/** The sample events, dated relative to `now`, in chronological order. */
export function seedEvents(now: Date): EventInput[] {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return SEED.map((e) => {
    const [h, m] = e.at.split(':').map(Number) as [number, number];
    const start = midnight + e.day * DAY + (h * 60 + m) * 60_000;
    return {
      title: e.title,
      description: e.description,
      category: e.category,
      city: e.city,
      venue: e.venue,
      start: formatDateTime(start),
      end: formatDateTime(start + e.hours * 3_600_000),
      price: e.price,
      currency: e.currency ?? 'EUR',
      status: e.status ?? 'scheduled',
      tags: e.tags,
    };
  });
}
