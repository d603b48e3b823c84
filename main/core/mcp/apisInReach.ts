// How the tools and the instructions name the APIs a session reaches: one API
// is the client `api` (and its name, and its alias), as it always was;
// several are each a client of their own name. The names stay a short list
// however many APIs are served, so the descriptions stay under 2 KB.
import type { SearchableApi } from './searchDocsTool.ts';

/** One API in a session's reach, loaded. */
export interface ApiInReach extends SearchableApi {
  /** Globals its client is bound to when it is the session's only API. */
  clientNames: string[];
}

/** What naming an API in words takes: its identifier and client names, with its title and size once it is loaded. */
export interface NamedApi {
  id: string;
  clientNames: string[];
  title?: string;
  operations?: number;
}

export function namedOf(a: ApiInReach): NamedApi {
  return { id: a.id, clientNames: a.clientNames, title: a.catalogue.title, operations: a.catalogue.operations.length };
}

/** The most APIs named one by one; the rest are counted. */
const NAMED = 12;

/** "the client is `api` (or `demo`)" for one API; "each API is a client of its own name: `demo` (…, 7 operations), …" for several. */
export function clientPhrase(apis: readonly NamedApi[]): string {
  if (apis.length === 0) return 'each API is a client of its own name (none is served to this session yet: the person running Airlock can enable one)';
  if (apis.length === 1) {
    const [first, ...others] = apis[0]!.clientNames;
    return `the client is \`${first ?? 'api'}\`${others.length > 0 ? ` (or ${others.map((n) => `\`${n}\``).join(', ')})` : ''}`;
  }
  const named = apis
    .slice(0, NAMED)
    .map((a) => `\`${a.id}\` (${a.title === undefined ? 'loading' : `${a.title.slice(0, 40)}, ${a.operations ?? 0} operations`})`);
  return `each API is a client of its own name: ${named.join(', ')}${apis.length > NAMED ? `, and ${apis.length - NAMED} more (search_docs names them)` : ''}`;
}

/** An example call for the instructions: `api.events.list` for one API, `<name>.events.list` for several. */
export function exampleReceiver(apis: readonly NamedApi[]): string {
  return apis.length === 1 ? (apis[0]!.clientNames[0] ?? 'api') : (apis[0]?.id ?? 'api');
}
