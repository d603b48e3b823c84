// Evidence a person can judge: before a held PATCH, PUT or DELETE is shown
// to a person, the gate reads the resource as it is now — through the
// document's matching read (a GET on the same path, or the read "related"
// finds, its path values taken from the request) — and turns it into what
// the prompt shows: a before/after of the fields the request touches, the
// title or name of what a DELETE removes, or why nothing could be read.
//
// The read is Airlock's, for the person: it never reaches the model's code.
// It goes through the caller-supplied `read` (the gate's own origin, pinned
// address and credential rules; no redirect is followed), with a short
// deadline and a size cap, and every value shown is redacted.
import type { ApiOperation, Catalogue, JsonSchema } from '../openapi/catalogue.ts';
import type { ApprovalEvidence } from '../../../contract/evidence.ts';
import { relatedOperations } from '../search/relatedOperations.ts';
import type { Logger } from '../log/logger.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';
import { relativePath, type Hop } from './hop.ts';
import type { UpstreamResponse } from './upstream.ts';
import { isRecord, messageOf } from '../../../contract/values.ts';

export const EVIDENCE_TIMEOUT_MS = 3_000;
export const EVIDENCE_MAX_BYTES = 512 * 1024;
/** At most this many changed fields are listed; the rest are counted. */
export const MAX_CHANGES = 40;
/** A value longer than this (as JSON text) is cut, with a marker. */
export const MAX_VALUE_CHARS = 2_000;

const EVIDENCE_METHODS = new Set(['PATCH', 'PUT', 'DELETE']);
/** The fields that name a thing, in the order they are looked for. */
const TITLE_FIELDS = ['title', 'name', 'label', 'displayName', 'display_name', 'summary', 'subject', 'slug'];

/** One read-only GET to the API's origin (`pathAndQuery` relative to it, encoded); the caller adds the credential and enforces the address rules. */
export type EvidenceRead = (
  pathAndQuery: string,
  options: { signal: AbortSignal; maxBytes: number; timeoutMs: number; operationId: string },
) => Promise<UpstreamResponse>;

export interface EvidenceOptions {
  catalogue: Catalogue;
  /** Whether the gate would let a GET through as a plain read: the evidence read never sends what policy guards. */
  isPlainRead?: (read: ApiOperation) => boolean;
  /** The base URL's path (`/v2`), which the hop's path starts with. */
  basePath: string;
  read: EvidenceRead;
  redact: Redactor;
  log: Logger;
  /** For the log line. */
  runId?: string;
  /** The run's signal: the read stops when the run ends. */
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

/** The read that shows the resource a mutation targets, with the concrete path to send it to. */
export interface MatchingRead {
  op: ApiOperation;
  /** Encoded, the base path included. */
  pathAndQuery: string;
}

function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** The encoded values of a template's path parameters in a concrete path (`/events/{id}` + `/events/e%201` → { id: 'e%201' }). */
export function pathValues(template: string, concrete: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .replace(/\/+$/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1, -1));
      return '([^/]+)';
    })
    .join('');
  const m = new RegExp(`^${pattern}/?$`).exec(concrete);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, m[i + 1]!]));
}

/**
 * The document's read for the resource a mutation targets: the GET on the same path, or else the best
 * "related" GET whose path parameters the request supplies (a single resource, not a list), which takes no
 * required query, header or cookie parameter the request cannot give.
 */
export function findMatchingRead(
  catalogue: Catalogue,
  op: ApiOperation,
  relativePath: string,
  basePath: string,
  /** Whether the gate would let this GET through as a plain read (not marked a mutation, no policy of its own asking or refusing it). */
  isPlainRead: (read: ApiOperation) => boolean = (read) => !read.mutation,
): MatchingRead | undefined {
  const prefix = basePath.replace(/\/+$/, '');
  const simple = (read: ApiOperation) => isPlainRead(read) && !read.parameters.some((p) => p.required && p.in !== 'path');
  const same = catalogue.match('GET', relativePath);
  if (same && simple(same)) return { op: same, pathAndQuery: `${prefix}${relativePath}` };
  const values = pathValues(op.path, relativePath);
  if (!values) return undefined;
  // What "related" finds first; then the resource the path is under (`/events/{id}/status` → `/events/{id}`).
  const segments = op.path.replace(/\/+$/, '').split('/');
  const parents = segments
    .map((_, i) => segments.slice(0, segments.length - i).join('/'))
    .filter((p) => p !== op.path && /\}$/.test(p))
    .flatMap((p) => catalogue.operations.filter((o) => o.method === 'GET' && o.path === p));
  for (const read of [...(relatedOperations(catalogue, op.id, 20) ?? []).map((h) => h.op), ...parents]) {
    if (read.method !== 'GET' || !simple(read)) continue;
    const names = templateNames(read.path);
    if (names.length === 0 || !names.every((n) => values[n] !== undefined)) continue;
    // A list (a path ending in a literal segment) is not the resource itself.
    if (!/\}$/.test(read.path.replace(/\/+$/, ''))) continue;
    let path = read.path;
    for (const n of names) path = path.split(`{${n}}`).join(values[n]!);
    return { op: read, pathAndQuery: `${prefix}${path}` };
  }
  return undefined;
}

/** A value as the prompt shows it: JSON text, redacted, capped. */
function shown(value: unknown, redact: Redactor): string | undefined {
  if (value === undefined) return undefined;
  const text = redact(JSON.stringify(value) ?? String(value));
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length} characters)` : text;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isRecord(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    );
  return v;
}

function fieldName(path: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/**
 * What a body changes in a resource: the body's fields, recursing into objects the resource also has as
 * objects (a merge), each listed where its value differs. A JSON Patch body (an array of operations) is read
 * as its operations.
 */
export function diffFields(before: unknown, body: unknown): { field: string; before?: unknown; after?: unknown }[] {
  const out: { field: string; before?: unknown; after?: unknown }[] = [];
  if (Array.isArray(body) && body.every((o) => isRecord(o) && typeof o.op === 'string' && typeof o.path === 'string')) {
    // A JSON Patch: its operations applied in order to a copy, then every place they touched compared, once each.
    const ops = body as PatchOp[];
    const after = applyPatch(before, ops);
    const touched = [...new Set(ops.flatMap((o) => (o.op === 'move' && typeof o.from === 'string' ? [o.from, o.path] : o.op === 'test' ? [] : [o.path])))];
    for (const pointer of touched) {
      const now = pointerGet(before, pointer);
      const next = after === undefined ? undefined : pointerGet(after, pointer);
      if (after !== undefined && sameValue(now, next)) continue;
      out.push({ field: pointerField(pointer), ...(now !== undefined ? { before: now } : {}), ...(next !== undefined ? { after: next } : {}) });
    }
    return out;
  }
  const walk = (now: unknown, next: unknown, path: string) => {
    if (isRecord(next) && isRecord(now) && Object.keys(next).length > 0) {
      for (const [k, v] of Object.entries(next)) walk(now[k], v, fieldName(path, k));
      return;
    }
    if (!sameValue(now, next)) out.push({ field: path || '(body)', ...(now !== undefined ? { before: now } : {}), after: next });
  };
  if (isRecord(body)) for (const [k, v] of Object.entries(body)) walk(isRecord(before) ? before[k] : undefined, v, fieldName('', k));
  else if (!sameValue(before, body)) out.push({ field: '(body)', ...(before !== undefined ? { before } : {}), after: body });
  return out;
}

function pointerParts(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

/** RFC 6902 applied to a copy, in order; undefined when an operation cannot apply (the API would refuse the patch too). */
function applyPatch(doc: unknown, ops: PatchOp[]): unknown {
  let root: unknown = structuredClone(doc);
  const parentOf = (pointer: string): { parent: unknown; key: string } | undefined => {
    const parts = pointerParts(pointer);
    const key = parts.pop();
    if (key === undefined) return undefined;
    const parent = pointerGet(root, parts.length ? `/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` : '');
    return Array.isArray(parent) || isRecord(parent) ? { parent, key } : undefined;
  };
  const put = (pointer: string, value: unknown, insert: boolean): boolean => {
    if (pointer === '') return ((root = value), true);
    const at = parentOf(pointer);
    if (!at) return false;
    if (Array.isArray(at.parent)) {
      const i = at.key === '-' ? at.parent.length : Number(at.key);
      if (!Number.isInteger(i) || i < 0 || i > at.parent.length) return false;
      at.parent.splice(i, insert ? 0 : 1, value);
    } else (at.parent as Record<string, unknown>)[at.key] = value;
    return true;
  };
  const take = (pointer: string): boolean => {
    const at = parentOf(pointer);
    if (!at) return false;
    if (Array.isArray(at.parent)) at.parent.splice(Number(at.key), 1);
    else delete (at.parent as Record<string, unknown>)[at.key];
    return true;
  };
  for (const o of ops) {
    const from = typeof o.from === 'string' ? structuredClone(pointerGet(root, o.from)) : undefined;
    const ok =
      o.op === 'add'
        ? put(o.path, structuredClone(o.value), true)
        : o.op === 'replace'
          ? put(o.path, structuredClone(o.value), false)
          : o.op === 'remove'
            ? take(o.path)
            : o.op === 'copy'
              ? from !== undefined && put(o.path, from, true)
              : o.op === 'move'
                ? from !== undefined && take(o.from!) && put(o.path, from, true)
                : o.op === 'test';
    if (!ok) return undefined;
  }
  return root;
}

function pointerGet(value: unknown, pointer: string): unknown {
  let cur = value;
  for (const part of pointerParts(pointer)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isRecord(cur)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

function pointerField(pointer: string): string {
  return pointerParts(pointer).reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : fieldName(path, part)), '') || '(body)';
}

/** The part of a read's answer that is the resource: the object itself, or the one object it wraps (`{ data: {…} }`, `{ event: {…} }`). */
function resourceIn(payload: unknown, wants: (candidate: Record<string, unknown>) => number): Record<string, unknown> | undefined {
  if (!isRecord(payload)) return undefined;
  const candidates = [payload, ...Object.values(payload).filter(isRecord)];
  let best = payload;
  let bestScore = wants(payload);
  for (const c of candidates.slice(1)) {
    const score = wants(c);
    // A wrapper wins only when it holds more of what is looked for than the top level does.
    if (score > bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

/** The title field a response schema declares (looking one level into a wrapper), or undefined. */
export function titleFieldOf(schema: JsonSchema | undefined): string[] | undefined {
  const props = (s: JsonSchema | undefined): Record<string, JsonSchema> | undefined => {
    if (!s || typeof s !== 'object') return undefined;
    const merged: Record<string, JsonSchema> = { ...(isRecord(s.properties) ? (s.properties as Record<string, JsonSchema>) : {}) };
    for (const part of [...(Array.isArray(s.allOf) ? s.allOf : [])]) Object.assign(merged, props(part) ?? {});
    return Object.keys(merged).length > 0 ? merged : undefined;
  };
  const top = props(schema);
  if (!top) return undefined;
  const direct = TITLE_FIELDS.find((f) => top[f] !== undefined);
  if (direct) return [direct];
  for (const [key, sub] of Object.entries(top)) {
    const inner = props(sub);
    const found = inner && TITLE_FIELDS.find((f) => inner[f] !== undefined);
    if (found) return [key, found];
  }
  return undefined;
}

/** A title as a person reads it: a string as is; a multilingual object (`{ fr: …, en: … }`) as its distinct texts with their language. */
export function titleText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  if (isRecord(value)) {
    const texts = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '');
    if (texts.length === 0) return undefined;
    const distinct = [...new Set(texts.map(([, t]) => t.trim()))];
    if (distinct.length === 1) return distinct[0];
    return texts
      .slice(0, 3)
      .map(([lang, t]) => `${t.trim()} (${lang})`)
      .join(' · ')
      .concat(texts.length > 3 ? ` · +${texts.length - 3} more` : '');
  }
  return undefined;
}

function titleOf(resource: Record<string, unknown> | undefined, payload: unknown, schemaPath: string[] | undefined): string | undefined {
  if (schemaPath) {
    let cur: unknown = payload;
    for (const part of schemaPath) cur = isRecord(cur) ? cur[part] : undefined;
    const text = titleText(cur);
    if (text) return text;
  }
  for (const f of TITLE_FIELDS) {
    const text = titleText(resource?.[f]);
    if (text) return text;
  }
  return undefined;
}

function describeStatus(status: number, source: string, method: string): string {
  if (status === 404 || status === 410)
    return method === 'DELETE'
      ? `${source} answered ${status}: there is nothing at this address now (already deleted, or a wrong id).`
      : `${source} answered ${status}: there is nothing at this address now, so there is no "before" to compare with.`;
  if (status === 401 || status === 403) return `${source} answered ${status}: the key may not read this resource, so its current state cannot be shown.`;
  if (status >= 300 && status < 400) return `${source} answered with a redirect (${status}), which Airlock does not follow for this read.`;
  return `${source} answered ${status}, so the current state cannot be shown.`;
}

function preview(text: string, redact: Redactor): string {
  return redact(text).slice(0, 100);
}

/**
 * Evidence for one held request (`method` is what it does, its overrides included), or undefined when the
 * method is not one that changes or removes an existing resource.
 */
export async function gatherEvidence(hop: Hop, method: string, options: EvidenceOptions): Promise<ApprovalEvidence | undefined> {
  const upper = method.toUpperCase();
  if (!EVIDENCE_METHODS.has(upper)) return undefined;
  const { redact, log } = options;
  const read = findMatchingRead(
    options.catalogue,
    hop.op,
    relativePath(hop.pathAndQuery.split('?')[0]!, options.basePath),
    options.basePath,
    options.isPlainRead,
  );
  if (!read)
    return {
      kind: 'none',
      note: `The API document has no read for this resource (no GET that matches ${hop.op.path}), so Airlock cannot show it as it is now.`,
    };
  const source = `GET ${read.op.path}`;
  const timeoutMs = options.timeoutMs ?? EVIDENCE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? EVIDENCE_MAX_BYTES;
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  // The line carries the run, so the run's log (Activity, the Logs filter) says the read was made.
  const about = options.runId ? { runId: options.runId } : undefined;
  let response: UpstreamResponse;
  try {
    response = await raceSignal(options.read(read.pathAndQuery, { signal, maxBytes, timeoutMs, operationId: read.op.id }), signal);
  } catch (error) {
    const timedOut = signal.aborted && !options.signal?.aborted;
    log.info(
      `evidence read ${source} for ${upper} ${hop.op.path}: ${timedOut ? `no answer within ${timeoutMs} ms` : preview(messageOf(error), redact)}`,
      about,
    );
    return {
      kind: 'none',
      source,
      note: timedOut
        ? `${source} did not answer within ${timeoutMs / 1000} s, so the current state cannot be shown.`
        : `${source} could not be read (${preview(messageOf(error), redact)}), so the current state cannot be shown.`,
    };
  }
  log.info(`evidence read ${source} for ${upper} ${hop.op.path}: ${response.status}, ${response.body.length} bytes`, about);
  if (response.status < 200 || response.status >= 300) return { kind: 'none', source, note: describeStatus(response.status, source, upper) };
  if (response.truncated) return { kind: 'none', source, note: `${source} answered with more than ${Math.round(maxBytes / 1024)} KB, too much to compare.` };
  let payload: unknown;
  try {
    payload = redactDeep(JSON.parse(redact(response.body.toString('utf8'))), redact);
  } catch {
    return { kind: 'none', source, note: `${source} did not answer with JSON, so the current state cannot be compared.` };
  }
  return upper === 'DELETE' ? deleteEvidence(read.op, payload, source, redact) : changeEvidence(hop.bodyValue, payload, source, upper, redact);
}

/** What a DELETE removes: the title or name of the resource as it is now. */
function deleteEvidence(read: ApiOperation, payload: unknown, source: string, redact: Redactor): ApprovalEvidence {
  const schema = read.responses.find((r) => /^2/.test(r.status))?.schema;
  const schemaPath = titleFieldOf(schema);
  const resource = resourceIn(payload, (c) => TITLE_FIELDS.filter((f) => c[f] !== undefined).length);
  const title = titleOf(resource, payload, schemaPath);
  const capped = title && title.length > 300 ? `${title.slice(0, 300)}…` : title;
  return capped
    ? { kind: 'delete', source, title: redact(capped) }
    : { kind: 'delete', source, note: 'It exists; the document does not say which of its fields is its title or name.' };
}

/** What a PATCH or PUT changes: the fields its body sends, before and after, redacted and capped. */
function changeEvidence(body: unknown, payload: unknown, source: string, method: string, redact: Redactor): ApprovalEvidence {
  if (body === undefined) return { kind: 'none', source, note: 'The request has no body to compare with.' };
  const keys = isRecord(body) ? Object.keys(body) : [];
  const resource = Array.isArray(body) ? payload : resourceIn(payload, (c) => keys.filter((k) => c[k] !== undefined).length);
  const all = diffFields(resource, body);
  const changes = all.slice(0, MAX_CHANGES).map((c) => ({
    field: redact(c.field),
    ...(c.before !== undefined ? { before: shown(c.before, redact)! } : {}),
    ...(c.after !== undefined ? { after: shown(c.after, redact)! } : {}),
  }));
  const notes: string[] = [];
  if (all.length === 0) notes.push('Every field the request sends already has that value: nothing changes.');
  if (all.length > MAX_CHANGES) notes.push(`${all.length - MAX_CHANGES} more changed fields are not listed; see the body.`);
  if (method === 'PUT') notes.push('A PUT replaces the whole resource: fields it does not send may be reset or removed.');
  return { kind: 'change', source, changes, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}

/** Settles with the promise, or rejects when the signal fires first (a transport that ignores its signal cannot hold the prompt back). */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** How the gate gathers evidence for one held request (bound to the call's credential); see gatherEvidence. */
export interface EvidenceRun {
  runId: string;
  caller: { key: string; clientName?: string; clientToken?: { id: string } };
  signal?: AbortSignal;
}
export type EvidenceSource = (hop: Hop, method: string, redact: Redactor, run: EvidenceRun) => Promise<ApprovalEvidence | undefined>;

/** The `evidence` field of an approval request, or nothing; never throws (a failure becomes a note). */
export async function evidenceFor(
  source: EvidenceSource | undefined,
  hop: Hop,
  method: string,
  redact: Redactor,
  run: EvidenceRun,
): Promise<{ evidence?: ApprovalEvidence }> {
  if (!source) return {};
  try {
    const evidence = await source(hop, method, redact, run);
    return evidence ? { evidence } : {};
  } catch (error) {
    return { evidence: { kind: 'none', note: `The current state could not be read: ${redact(messageOf(error)).slice(0, 200)}` } };
  }
}
