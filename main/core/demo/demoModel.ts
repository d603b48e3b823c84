// The demo Events API's data model and its input rules, in one place: the
// event shape, the enums the OpenAPI document lists, and the zod validation of
// event bodies, merge patches and list queries. Every rejection is a
// DemoApiError whose details name the offending field, so a model (or a
// person) can fix the call without guessing.
import { z } from 'zod';
import { isRecord } from '../../../contract/values.ts';

export const CATEGORIES = ['music', 'theatre', 'exhibition', 'conference', 'workshop', 'sport', 'festival', 'food', 'cinema', 'family'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_LABELS: Record<Category, string> = {
  music: 'Music',
  theatre: 'Theatre',
  exhibition: 'Exhibition',
  conference: 'Conference',
  workshop: 'Workshop',
  sport: 'Sport',
  festival: 'Festival',
  food: 'Food & drink',
  cinema: 'Cinema',
  family: 'Family',
};

export const STATUSES = ['scheduled', 'cancelled', 'postponed'] as const;
export type EventStatus = (typeof STATUSES)[number];

export const SORTS = ['start.asc', 'start.desc', 'createdAt.asc', 'createdAt.desc', 'price.asc', 'price.desc', 'title.asc'] as const;
export type EventSort = (typeof SORTS)[number];

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** The writable fields, after validation and defaults. */
export interface EventInput {
  title: string;
  description: string;
  category: Category;
  city: string;
  venue: string;
  start: string;
  end: string;
  price: number;
  currency: string;
  status: EventStatus;
  tags: string[];
}

/** An event as the API returns it: the writable fields and what the API keeps. Dates are UTC RFC 3339 strings. */
export interface DemoEvent extends EventInput {
  id: string;
  free: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ListQuery {
  q?: string;
  city?: string[];
  category?: Category[];
  status?: EventStatus;
  from?: string;
  to?: string;
  free?: boolean;
  sort?: EventSort;
  limit?: number;
  after?: string;
}

export interface EventList {
  data: DemoEvent[];
  pagination: { total: number; limit: number; after: string | null };
}

export interface CategoryCount {
  id: Category;
  label: string;
  eventCount: number;
  upcomingCount: number;
}

export type ErrorLocation = 'query' | 'path' | 'body' | 'header';

export interface ErrorDetail {
  in: ErrorLocation;
  field: string;
  message: string;
}

/** An error the API reports to its caller as `{ error: { code, message, details } }`. */
export class DemoApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'DemoApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  toBody(): { error: { code: string; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})?$/;

/** Epoch ms of an RFC 3339 date-time with an offset (seconds optional), or an explanation of why not. */
export function parseDateTime(value: string): { ms: number } | { problem: string } {
  const m = DATE_TIME.exec(value);
  if (!m) return { problem: 'must be a date-time such as 2025-06-21T20:00:00+02:00 or 2025-06-21T18:00:00Z' };
  if (!m[7]) return { problem: 'needs a timezone offset, e.g. 2025-06-21T20:00:00+02:00 or 2025-06-21T18:00:00Z' };
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    return { problem: `is not a real date-time: ${value}` };
  }
  const ms = Date.parse(value.replace(' ', 'T').replace(/z$/, 'Z').replace(/t/, 'T'));
  return Number.isNaN(ms) ? { problem: `is not a real date-time: ${value}` } : { ms };
}

/** `2025-06-21T18:00:00Z` (milliseconds only when there are some). */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const dateTime = z.string().superRefine((value, ctx) => {
  const parsed = parseDateTime(value);
  if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

const READ_ONLY = ['id', 'free', 'createdAt', 'updatedAt'] as const;

const eventInputSchema = z
  .strictObject({
    title: z.string().trim().min(1, 'must not be empty').max(200),
    description: z.string().max(5000).default(''),
    category: z.enum(CATEGORIES),
    city: z.string().trim().min(1, 'must not be empty').max(100),
    venue: z.string().trim().min(1, 'must not be empty').max(200),
    start: dateTime,
    end: dateTime,
    price: z.number().min(0, 'must be 0 (free) or more').max(100_000).default(0),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR')
      .default('EUR'),
    status: z.enum(STATUSES).default('scheduled'),
    tags: z.array(z.string().trim().min(1, 'must not be empty').max(40)).max(20).default([]),
  })
  .superRefine((event, ctx) => {
    const start = parseDateTime(event.start);
    const end = parseDateTime(event.end);
    if ('ms' in start && 'ms' in end && end.ms < start.ms) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'must not be before start' });
    }
  });

const WRITABLE = Object.keys(eventInputSchema.shape);

/** Validates a create/replace body (read-only properties are dropped first); throws a 422 DemoApiError. */
export function parseEventInput(body: unknown): EventInput {
  if (!isRecord(body)) throw bodyNotObject(body);
  const writable = Object.fromEntries(Object.entries(body).filter(([key]) => !(READ_ONLY as readonly string[]).includes(key)));
  const result = eventInputSchema.safeParse(writable, { error: friendlyMessage });
  if (!result.success) {
    throw new DemoApiError(422, 'validation_failed', 'The event is not valid; see details.', issueDetails(result.error.issues, 'body'));
  }
  const start = parseDateTime(result.data.start) as { ms: number };
  const end = parseDateTime(result.data.end) as { ms: number };
  return { ...result.data, start: formatDateTime(start.ms), end: formatDateTime(end.ms) };
}

/** RFC 7386 JSON merge patch of `patch` onto `target` (returns a new object). */
export function applyMergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isRecord(value)) out[key] = applyMergePatch(isRecord(out[key]) ? out[key] : {}, value);
    else out[key] = value;
  }
  return out;
}

/** Applies a merge patch to an event's writable fields and validates the result. */
export function patchEventInput(current: EventInput, patch: unknown): EventInput {
  if (!isRecord(patch)) throw bodyNotObject(patch);
  const writable = Object.fromEntries(Object.entries(patch).filter(([key]) => !(READ_ONLY as readonly string[]).includes(key)));
  const required = new Set(['title', 'category', 'city', 'venue', 'start', 'end']);
  const nulled = Object.entries(writable).filter(([key, value]) => value === null && required.has(key));
  if (nulled.length > 0) {
    throw new DemoApiError(
      422,
      'validation_failed',
      'The patch is not valid; see details.',
      nulled.map(([field]) => ({ in: 'body', field, message: 'is required and cannot be null' })),
    );
  }
  return parseEventInput(applyMergePatch({ ...current }, writable));
}

const LIMIT_RANGE = `must be an integer from 1 to ${MAX_LIMIT}`;

const listQuerySchema = z.strictObject({
  q: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  city: z.array(z.string().trim().min(1, 'must not be empty').max(100)).max(20).optional(),
  category: z.array(z.enum(CATEGORIES)).optional(),
  status: z.enum(STATUSES).optional(),
  from: dateTime.optional(),
  to: dateTime.optional(),
  free: z.boolean({ error: 'must be true or false' }).optional(),
  sort: z.enum(SORTS).optional(),
  limit: z.number({ error: LIMIT_RANGE }).int(LIMIT_RANGE).min(1, LIMIT_RANGE).max(MAX_LIMIT, LIMIT_RANGE).optional(),
  after: z.string().min(1, 'must not be empty').optional(),
});

export const LIST_PARAMETERS = Object.keys(listQuerySchema.shape);
export const LIST_ARRAY_PARAMETERS: ReadonlySet<string> = new Set(['city', 'category']);

/** Validates a list query; throws a 400 DemoApiError naming each bad parameter. */
export function parseListQuery(query: unknown): ListQuery {
  const result = listQuerySchema.safeParse(query ?? {}, { error: friendlyMessage });
  const details = result.success ? [] : issueDetails(result.error.issues, 'query');
  if (result.success && result.data.from !== undefined && result.data.to !== undefined) {
    const from = parseDateTime(result.data.from) as { ms: number };
    const to = parseDateTime(result.data.to) as { ms: number };
    if (to.ms < from.ms) details.push({ in: 'query', field: 'to', message: 'must not be before from' });
  }
  if (details.length > 0) {
    throw new DemoApiError(400, 'invalid_parameter', `Invalid query parameter${details.length > 1 ? 's' : ''}: ${describe(details)}.`, details);
  }
  return result.data as ListQuery;
}

export function describe(details: ErrorDetail[]): string {
  return details.map((d) => (d.field ? `${d.field} ${d.message}` : d.message)).join('; ');
}

function friendlyMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type') return `must be ${article(issue.expected)}, not ${typeName(issue.input)}`;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')} (got ${JSON.stringify(issue.input)})`;
  return undefined;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

function issueDetails(issues: z.core.$ZodIssue[], location: ErrorLocation): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = location === 'body' ? WRITABLE : LIST_PARAMETERS;
      for (const key of issue.keys) {
        const what = location === 'body' ? 'property' : 'parameter';
        details.push({ in: location, field: [...issue.path, key].join('.'), message: `is not a known ${what} (known: ${known.join(', ')})` });
      }
      continue;
    }
    // A query parameter is named as such (`category`), not by array index.
    const path = location === 'query' ? issue.path.slice(0, 1) : issue.path;
    details.push({ in: location, field: path.map(String).join('.') || `(${location})`, message: issue.message });
  }
  return details;
}

function bodyNotObject(body: unknown): DemoApiError {
  const got = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
  return new DemoApiError(422, 'validation_failed', `The body must be a JSON object, not ${got}.`, [
    { in: 'body', field: '(body)', message: `must be a JSON object, not ${got}` },
  ]);
}
