// "Find related", as a code search does for a symbol: given an operationId,
// the operations one usually needs with it — the list that yields the ids it
// takes, the same resource's other verbs, and the operations that accept the
// schema it returns (or return the one it accepts) — best first.
import type { ApiOperation, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import type { SearchHit } from './operationSearch.ts';

/** /events/{eventId} → /events; a path without a trailing parameter is its own collection. */
function collectionOf(path: string): string {
  return path.replace(/\/\{[^}]+\}$/, '');
}

/** The item a path acts on: up to its last parameter (`/containers/{id}/restart` → `/containers/{id}`); none without one. */
function itemOf(path: string): string | undefined {
  const at = path.lastIndexOf('}');
  return at < 0 ? undefined : path.slice(0, at + 1);
}

function schemaName(schema: JsonSchema | undefined, catalogue: Catalogue): string | undefined {
  if (!schema) return undefined;
  const direct = catalogue.refNames.get(schema);
  if (direct) return direct;
  // A list response: { data: [Event] } or [Event].
  const items = schema.type === 'array' ? schema.items : undefined;
  if (items) return catalogue.refNames.get(items);
  return undefined;
}

export function relatedOperations(catalogue: Catalogue, operationId: string, limit = 8): SearchHit[] | undefined {
  const op = catalogue.operations.find((o) => o.id === operationId);
  if (!op) return undefined;
  const scores = new Map<ApiOperation, number>();
  const add = (other: ApiOperation, score: number) => {
    if (other !== op) scores.set(other, Math.max(scores.get(other) ?? 0, score));
  };
  const collection = collectionOf(op.path);
  // The lists that yield the ids this operation takes: GET on the collection above each path parameter.
  // (`/containers` itself, or a literal action under it without a parameter: Docker's `/containers/json`).
  const segments = op.path.split('/');
  segments.forEach((segment, i) => {
    if (!/^\{[^}]+\}$/.test(segment)) return;
    const listPath = segments.slice(0, i).join('/');
    for (const other of catalogue.operations) {
      if (other.method !== 'GET') continue;
      if (other.path === listPath) add(other, 3);
      else if (other.path.startsWith(`${listPath}/`) && !other.path.slice(listPath.length + 1).includes('/') && !other.path.includes('{')) add(other, 2.5);
    }
  });
  // The same resource's other verbs: the collection and its items; and the same item's other actions
  // (`/containers/{id}/start` beside `/containers/{id}/restart`).
  const item = itemOf(op.path);
  for (const other of catalogue.operations) {
    if (other.path === op.path || other.path === collection || collectionOf(other.path) === collection) add(other, 2);
    else if (item && itemOf(other.path) === item) add(other, 1.5);
  }
  // An operation with no parameter in its path (`/containers/create`, `/swarm/init`, `/swarm`): its
  // literal siblings and its parent, its literal children, and the items of the resource it sits under
  // (`/containers/{id}/json` beside `/containers/json`).
  if (!op.path.includes('{')) {
    const parent = op.path.slice(0, op.path.lastIndexOf('/'));
    const under = (other: ApiOperation, base: string) => (other.path.startsWith(`${base}/`) ? other.path.slice(base.length + 1) : undefined);
    for (const other of catalogue.operations) {
      const besideParent = parent ? under(other, parent) : undefined;
      const below = under(other, op.path);
      if (parent && (other.path === parent || (besideParent !== undefined && !besideParent.includes('/') && !besideParent.includes('{')))) add(other, 1.5);
      else if (below !== undefined && !below.includes('/') && !below.includes('{')) add(other, 1.5);
      else if (besideParent?.startsWith('{')) add(other, (besideParent.includes('/') ? 1.2 : 1.3) + (other.method === 'GET' ? 0.05 : 0));
    }
  }
  // Schema flow: what takes what this returns, what returns what this takes.
  const returns = schemaName(op.responses.find((r) => /^2/.test(r.status))?.schema, catalogue);
  const takes = schemaName(op.requestBody?.schema, catalogue);
  for (const other of catalogue.operations) {
    const otherTakes = schemaName(other.requestBody?.schema, catalogue);
    const otherReturns = schemaName(other.responses.find((r) => /^2/.test(r.status))?.schema, catalogue);
    if (returns && otherTakes === returns) add(other, 1);
    if (takes && otherReturns === takes) add(other, 1);
  }
  return [...scores]
    .sort((a, b) => b[1] - a[1] || catalogue.operations.indexOf(a[0]) - catalogue.operations.indexOf(b[0]))
    .slice(0, limit)
    .map(([other, score]) => ({ op: other, score }));
}
