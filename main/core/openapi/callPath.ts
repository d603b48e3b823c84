// How an operation is named in the sandbox client: `api.<segments…>`.
// Derived from the operationId (split on `.` and `/`, other separators folded
// to camelCase); without an operationId, from tag + method + path. Collisions
// are resolved deterministically, in document order, with numeric suffixes.

const SEPARATORS = /[^A-Za-z0-9$]+/;

/** `list-for-repo` → `listForRepo`, `get_user` → `getUser`, `2fa` → `_2fa`. */
export function toIdentifier(segment: string): string {
  const parts = segment.split(SEPARATORS).filter(Boolean);
  if (parts.length === 0) return '_';
  const joined = parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

export function callPathFromOperationId(operationId: string): string[] {
  const segments = operationId.split(/[./]/).filter((s) => s.trim().length > 0);
  return segments.length > 0 ? segments.map(toIdentifier) : ['_'];
}

function pascal(word: string): string {
  const id = toIdentifier(word).replace(/^_/, '');
  return id ? id[0]!.toUpperCase() + id.slice(1) : '';
}

/** `GET /pets/{petId}` tagged `pets` → `['pets', 'getPetsByPetId']`. */
export function callPathFromRoute(method: string, path: string, tag: string | undefined): string[] {
  const segments = path.split('/').filter(Boolean);
  const fixed = segments.filter((s) => !s.startsWith('{'));
  const params = segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1));
  const namespace = toIdentifier(tag ?? fixed[0] ?? 'root');
  const name = method.toLowerCase() + fixed.map(pascal).join('') + (params.length > 0 ? 'By' + params.map(pascal).join('And') : '');
  return [namespace, name];
}

/**
 * Makes every call path unique and keeps leaves and namespaces apart
 * (`api.a.b` cannot be both a function and an object holding `api.a.b.c`).
 * Input order is the tie-break: the first operation keeps its name.
 */
export function resolveCallPathCollisions(candidates: string[][]): string[][] {
  const namespaces = new Set<string>();
  for (const c of candidates) {
    for (let i = 1; i < c.length; i++) namespaces.add(c.slice(0, i).join('.'));
  }
  const taken = new Set<string>();
  return candidates.map((c) => {
    let path = c;
    let key = path.join('.');
    for (let n = 2; taken.has(key) || namespaces.has(key); n++) {
      path = [...c.slice(0, -1), `${c[c.length - 1]}${n}`];
      key = path.join('.');
    }
    taken.add(key);
    return path;
  });
}
