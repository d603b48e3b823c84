// One request the gate may send: the first built from the script's call, or
// one a same-origin redirect leads to. A redirect hop is a new request in
// every respect — its own operation, classification and record, and nothing
// in the key's place but the key the gate adds; the gate sends one only when
// a read leads to a read.
import type { ApiOperation, Catalogue } from '../openapi/catalogue.ts';
import { READ_METHODS } from '../openapi/catalogue.ts';
import type { ApiCallRequest } from '../sandbox/engine.ts';
import { classifyRequest, findMethodOverride, type ClassifyInput, type MethodOverride, type RequestClass } from './classify.ts';
import { stripCredential, type CredentialPlacement } from './credentialPlacement.ts';
import { buildUpstreamRequest } from './requestBuilder.ts';

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

/** The request the script's call asks for, or why it cannot be built (the message unredacted). */
export function firstHop(
  op: ApiOperation,
  call: ApiCallRequest,
  basePath: string,
  placement: CredentialPlacement,
): { ok: true; hop: Hop } | { ok: false; message: string } {
  const built = buildUpstreamRequest(op, call, basePath, placement);
  if (!built.ok) return built;
  const override = findMethodOverride(built.request.headers, call.query, call.body);
  return {
    ok: true,
    hop: {
      op,
      method: built.request.method,
      pathAndQuery: built.request.pathAndQuery,
      headers: built.request.headers,
      body: built.request.body,
      query: call.query ?? {},
      bodyValue: call.body,
      ...(override ? { override } : {}),
    },
  };
}

/**
 * The request a same-origin redirect leads to: 307 and 308 keep the method
 * and the body; 303, and 301/302 after anything but a read, become a GET
 * without a body (what browsers do). Whatever its Location puts in the key's
 * place (a query parameter of that name) is dropped: the gate adds the key.
 */
export function redirectHop(previous: Hop, status: number, next: URL, catalogue: Catalogue, basePath: string, placement: CredentialPlacement): Hop {
  const keepsMethod = status === 307 || status === 308;
  const toGet = !keepsMethod && (status === 303 || !READ_METHODS.has(previous.method.toUpperCase()));
  const method = toGet ? 'GET' : previous.method;
  const headers = { ...previous.headers };
  if (toGet) delete headers['content-type'];
  // The Location is the only part of this request the first check did not see.
  const pathAndQuery = stripCredential(placement, { headers: {}, pathAndQuery: next.pathname + next.search }).pathAndQuery;
  const query = Object.fromEntries(new URL(pathAndQuery, next).searchParams);
  const bodyValue = toGet ? undefined : previous.bodyValue;
  // The new request is classified by what it asks for, its Location's query included (`?_method=DELETE`).
  const override = findMethodOverride(headers, query, bodyValue);
  return {
    op: operationAt(catalogue, method, relativePath(next.pathname, basePath)),
    method,
    pathAndQuery,
    headers,
    body: toGet ? undefined : previous.body,
    query,
    bodyValue,
    ...(override ? { override } : {}),
  };
}

/** A path relative to the base URL's path (`/v2/items` under `/v2` → `/items`); as it is when it is not under it. */
export function relativePath(pathname: string, basePath: string): string {
  const prefix = basePath.replace(/\/+$/, '');
  return prefix && pathname.startsWith(prefix) ? pathname.slice(prefix.length) || '/' : pathname;
}

/** What a hop is, as the classifier reads it (its method override included). */
export function classifyHop(hop: Hop, profile: ClassifyInput['profile']): RequestClass {
  return classifyRequest({ op: hop.op, method: hop.method, ...(hop.override ? { override: hop.override } : {}), profile });
}

/**
 * Whether a hop would go out as a read, with no decision of its own: an operation the document describes
 * (a path it does not, or spells differently, could be anything on the server) that the classifier,
 * policies included, calls a read.
 */
export function isPlainRead(hop: Hop, profile: ClassifyInput['profile']): boolean {
  return !isStandIn(hop.op) && classifyHop(hop, profile).kind === 'read';
}

/** Why a redirect is handed back to the script instead of followed. */
export function redirectNotFollowed(from: Hop, to: Hop, status: number): string {
  const first = `${from.method.toUpperCase()} ${from.op.path}`;
  return (
    `the API answered ${first} with ${status}, redirecting to ${to.method.toUpperCase()} ${to.pathAndQuery}; ` +
    'Airlock does not follow a redirect of a call that may change data, nor one that leads a read to something else ' +
    '(a call that may change data, or a path the API document does not describe), ' +
    'because the approval of the first request does not cover the second. The status and Location header are in this result: ' +
    `if the second request is what you want, make it as a call of its own (operation ${to.op.hasOperationId ? to.op.id : 'at that path'}), which is checked and approved on its own.`
  );
}
