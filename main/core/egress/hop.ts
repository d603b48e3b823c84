// One request the gate may send: the first built from the script's call, or
// one a same-origin redirect leads to. A redirect hop is a new request in
// every respect — its own operation, classification and record; the gate
// sends one only when a read leads to a read.
import type { ApiOperation, Catalogue } from '../openapi/catalogue.ts';
import { READ_METHODS } from '../openapi/catalogue.ts';
import { findMethodOverride, type MethodOverride } from './classify.ts';

export interface Hop {
  op: ApiOperation;
  method: string;
  /** Path and query relative to the origin, encoded. */
  pathAndQuery: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** The query and body as the script gave them (for the approval dialog). */
  query: Record<string, unknown>;
  bodyValue: unknown;
  override?: MethodOverride;
}

const standIns = new WeakSet<ApiOperation>();

/** Whether an operation is a stand-in for a path the document does not describe (no marks or policies can apply to it). */
export function isStandIn(op: ApiOperation): boolean {
  return standIns.has(op);
}

/**
 * A hop's operation: the catalogue's, or a stand-in for a path the document
 * does not describe. A HEAD is the GET of its path when the document has no
 * HEAD there (servers run the GET's handler for it), so the GET's marks and
 * policies apply.
 */
export function operationAt(catalogue: Catalogue, method: string, relativePath: string): ApiOperation {
  const op = catalogue.match(method, relativePath) ?? (method.toUpperCase() === 'HEAD' ? catalogue.match('GET', relativePath) : undefined);
  if (op) return op;
  const upper = method.toUpperCase() as ApiOperation['method'];
  const standIn: ApiOperation = {
    id: `${upper} ${relativePath}`,
    hasOperationId: false,
    callPath: [],
    call: '(not in the document)',
    method: upper,
    path: relativePath,
    tags: [],
    parameters: [],
    responses: [],
    codeSamples: [],
    synonyms: [],
    deprecated: false,
    mutation: !READ_METHODS.has(upper),
  };
  standIns.add(standIn);
  return standIn;
}

/**
 * The request a same-origin redirect leads to: 307 and 308 keep the method
 * and the body; 303, and 301/302 after anything but a read, become a GET
 * without a body (what browsers do).
 */
export function redirectHop(previous: Hop, status: number, next: URL, catalogue: Catalogue, basePath: string): Hop {
  const keepsMethod = status === 307 || status === 308;
  const toGet = !keepsMethod && (status === 303 || !READ_METHODS.has(previous.method.toUpperCase()));
  const method = toGet ? 'GET' : previous.method;
  const headers = { ...previous.headers };
  if (toGet) delete headers['content-type'];
  const relative = basePath && next.pathname.startsWith(basePath) ? next.pathname.slice(basePath.length) || '/' : next.pathname;
  const query = Object.fromEntries(next.searchParams);
  const bodyValue = toGet ? undefined : previous.bodyValue;
  // The new request is classified by what it asks for, its Location's query included (`?_method=DELETE`).
  const override = findMethodOverride(headers, query, bodyValue);
  return {
    op: operationAt(catalogue, method, relative),
    method,
    pathAndQuery: next.pathname + next.search,
    headers,
    body: toGet ? undefined : previous.body,
    query,
    bodyValue,
    ...(override ? { override } : {}),
  };
}
