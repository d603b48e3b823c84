// The text of an operation the search reads, for the index (searchIndex.ts)
// and for re-ranking (operationFeatures.ts) alike: its summary, the first
// sentence of a description, the parameters a call sets and the values they
// take.
import type { ApiOperation, ApiParameter, JsonSchema } from '../openapi/catalogue.ts';

/** At most this many values of one enum are read: a huge enum (every event type, every country) says little about what the operation does. */
export const MAX_ENUM_VALUES = 24;

/** The parameters a request sets itself: headers and cookies left out. */
export function searchableParams(op: ApiOperation): ApiParameter[] {
  return op.parameters.filter((p) => p.in !== 'header' && p.in !== 'cookie');
}

function enumValues(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 3) return [];
  const own = Array.isArray(schema.enum) ? schema.enum.filter((v: unknown) => typeof v === 'string') : [];
  const nested = [schema.items, ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((s) => enumValues(s, depth + 1));
  return [...own, ...nested];
}

/** The enum values of a request body's own properties (`type: reboot | resize | snapshot…`), each property capped. */
function bodyEnumValues(schema: JsonSchema | undefined, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 2) return [];
  const own = Object.values((schema.properties ?? {}) as Record<string, JsonSchema>).flatMap((p) => enumValues(p).slice(0, MAX_ENUM_VALUES));
  const nested = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].flatMap((s: JsonSchema) => bodyEnumValues(s, depth + 1));
  return [...new Set([...own, ...nested])];
}

/** Values an operation's parameters and body take, huge enums capped. */
export function operationValues(op: ApiOperation): string[] {
  return [...searchableParams(op).flatMap((p) => enumValues(p.schema).slice(0, MAX_ENUM_VALUES)), ...bodyEnumValues(op.requestBody?.schema)].slice(
    0,
    3 * MAX_ENUM_VALUES,
  );
}

/** The most of an operation's description read as its prose, in characters. */
const PROSE_MAX = 1000;

/** An operation's prose: its description (the start of it) and its tags' descriptions. */
export function descriptionTexts(op: ApiOperation, tags: Record<string, string>): string[] {
  return [(op.description ?? '').slice(0, PROSE_MAX), ...op.tags.map((t) => tags[t] ?? '')];
}

export function firstSentence(text: string | undefined): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return (end > 0 ? flat.slice(0, end) : flat).slice(0, 200);
}

/** The summary, or the description's first sentence when the document gives none. */
export function summaryOf(op: ApiOperation): string {
  return op.summary?.trim() || firstSentence(op.description);
}

/** At most this many field names of what an operation returns are read. */
export const MAX_RETURNED_FIELDS = 40;
/** A wrapper property the returned things sit in (`{ data: [...] }`): its items' fields are read too. */
const WRAPPERS = /^(data|items|results|records|values|entries|list|objects|elements|content|collection|rows|nodes|edges|hits)$/i;

/** Fields that link or identify rather than hold what a request asks for (`html_url`, `node_id`, `userId`, `_links`). */
const LINK_FIELD = /(^|[_-])(url|uri|href|links?|ids?|etag)$|^(self|_links)$/i;
const LINK_FIELD_CAMEL = /[a-z](Url|Uri|Href|Links?|Ids?)$/;

/**
 * The names of the fields an operation's success response holds (`tempo`, `danceability` for audio features), through
 * arrays, `allOf`, the first branch of a `oneOf` or `anyOf`, and wrappers (`{ data: [...] }`), links and ids left
 * out: a request may name what it wants to read rather than the operation that reads it.
 */
export function returnedFields(op: ApiOperation): string[] {
  const out = new Set<string>();
  const walk = (schema: JsonSchema | undefined, depth: number): void => {
    if (!schema || typeof schema !== 'object' || depth > 3 || out.size >= MAX_RETURNED_FIELDS) return;
    if (schema.items) walk(schema.items, depth + 1);
    for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []).slice(0, 1), ...(schema.anyOf ?? []).slice(0, 1)]) walk(part, depth + 1);
    for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      if (out.size >= MAX_RETURNED_FIELDS) return;
      if (LINK_FIELD.test(name) || LINK_FIELD_CAMEL.test(name)) continue;
      out.add(name);
      if (WRAPPERS.test(name)) walk(prop, depth + 1);
    }
  };
  walk(op.responses.find((r) => /^2/.test(r.status))?.schema, 0);
  return [...out];
}
