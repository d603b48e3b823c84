// Renders a JSON Schema (dereferenced, possibly cyclic) as a compact
// TypeScript-like shape for a model to read: `{ title: string; when?: string(date-time) }`.
// Depth, property count and enum length are bounded so one schema cannot
// flood a search answer; named components show by name past the depth limit.
import type { JsonSchema } from './catalogue.ts';
import { descriptionEnum } from './descriptionEnum.ts';

export interface ShapeOptions {
  refNames?: WeakMap<object, string>;
  depth?: number;
  maxProps?: number;
  maxEnum?: number;
  /** Request bodies hide readOnly properties, responses hide writeOnly ones. */
  omit?: 'readOnly' | 'writeOnly';
  /** A parameter's description, read for values it lists when its schema has no enum. */
  description?: string;
}

export function schemaShape(schema: JsonSchema | undefined, options: ShapeOptions = {}): string {
  const ctx: Ctx = { refNames: options.refNames ?? new WeakMap(), maxProps: options.maxProps ?? 14, maxEnum: options.maxEnum ?? 8, omit: options.omit };
  return shape(schema, options.depth ?? 2, new Set(), ctx);
}

interface Ctx {
  refNames: WeakMap<object, string>;
  maxProps: number;
  maxEnum: number;
  omit: 'readOnly' | 'writeOnly' | undefined;
}

function shape(schema: JsonSchema | undefined, depth: number, seen: Set<object>, ctx: Ctx): string {
  if (!schema || typeof schema !== 'object') return 'unknown';
  const name = ctx.refNames.get(schema);
  if (seen.has(schema)) return name ?? 'object';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return enumShape(schema.enum, ctx.maxEnum);
  const listed = listedValues(schema);
  if (listed) return listed.array ? `(${enumShape(listed.values, ctx.maxEnum)})[]` : enumShape(listed.values, ctx.maxEnum);
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union) && union.length > 0) {
    if (depth < 0 && name) return name;
    seen.add(schema);
    const parts = [...new Set(union.map((s: JsonSchema) => shape(s, depth, seen, ctx)))];
    seen.delete(schema);
    return parts.join(' | ');
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return shape(mergeAllOf(schema), depth, seen, ctx);
  }
  const types = typesOf(schema);
  const nullable = schema.nullable === true || types.includes('null');
  const rendered = types.filter((t) => t !== 'null').map((t) => typeShape(t, schema, depth, seen, ctx, name));
  if (rendered.length === 0) rendered.push(schema.properties ? typeShape('object', schema, depth, seen, ctx, name) : 'unknown');
  if (nullable) rendered.push('null');
  return rendered.join(' | ');
}

/**
 * Values a string (or string array) field lists only in its description
 * ("Can be `a` or `b`"), shown like an enum; `description` overrides the
 * schema's own (a parameter's description sits beside its schema).
 */
export function listedValues(schema: JsonSchema, description: string | undefined = schema.description): { values: string[]; array: boolean } | undefined {
  if (typeof description !== 'string' || schema.const !== undefined || Array.isArray(schema.enum)) return undefined;
  const types = typesOf(schema).filter((t) => t !== 'null');
  const items = schema.items && typeof schema.items === 'object' ? (schema.items as JsonSchema) : undefined;
  const array = types.length === 1 && types[0] === 'array';
  if (array) {
    if (!items || Array.isArray(items.enum) || items.const !== undefined || (items.type !== undefined && items.type !== 'string')) return undefined;
  } else if (types.length === 0) {
    if (schema.oneOf || schema.anyOf || schema.allOf) return undefined;
  } else if (types.length !== 1 || types[0] !== 'string') {
    return undefined;
  }
  const values = descriptionEnum(description);
  return values ? { values, array } : undefined;
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type.filter((t: unknown): t is string => typeof t === 'string');
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function typeShape(type: string, schema: JsonSchema, depth: number, seen: Set<object>, ctx: Ctx, name: string | undefined): string {
  switch (type) {
    case 'string':
      return schema.format ? `string(${schema.format})` : 'string';
    case 'integer':
    case 'number':
    case 'boolean':
      return type;
    case 'array': {
      const item = shape(schema.items, depth - 1, withSeen(seen, schema), ctx);
      return /[ |]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectShape(schema, depth, seen, ctx, name);
    default:
      return type;
  }
}

function objectShape(schema: JsonSchema, depth: number, seen: Set<object>, ctx: Ctx, name: string | undefined): string {
  const all = schema.properties && typeof schema.properties === 'object' ? Object.entries(schema.properties as Record<string, JsonSchema>) : [];
  const props = ctx.omit ? all.filter(([, s]) => !(s && s[ctx.omit!] === true)) : all;
  const extra = schema.additionalProperties;
  if (props.length === 0) {
    if (extra && typeof extra === 'object') {
      if (depth <= 0) return name ?? 'Record<string, unknown>';
      return `Record<string, ${shape(extra, depth - 1, withSeen(seen, schema), ctx)}>`;
    }
    return name ?? 'object';
  }
  if (depth <= 0) return name ?? '{…}';
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  const inner = withSeen(seen, schema);
  // Shortened, a shape keeps every required property (then optional ones, in document order, up to the limit).
  const requiredCount = props.filter(([key]) => required.has(key)).length;
  let optionalRoom = Math.max(0, ctx.maxProps - requiredCount);
  const kept = props.filter(([key]) => required.has(key) || optionalRoom-- > 0);
  const shown = kept.map(([key, s]) => `${safeKey(key)}${required.has(key) ? '' : '?'}: ${shape(s, depth - 1, inner, ctx)}`);
  if (props.length > kept.length) shown.push(`…${props.length - kept.length} more`);
  return `{ ${shown.join('; ')} }`;
}

function withSeen(seen: Set<object>, schema: object): Set<object> {
  const next = new Set(seen);
  next.add(schema);
  return next;
}

function safeKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

export function enumShape(values: unknown[], max: number): string {
  const shown = values.slice(0, max).map((v) => JSON.stringify(v));
  if (values.length > max) shown.push(`… (${values.length - max} more)`);
  return shown.join(' | ');
}

/** allOf flattened into one object schema (properties and required merged). */
export function mergeAllOf(schema: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...schema, allOf: undefined };
  const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  for (const part of schema.allOf as JsonSchema[]) {
    if (!part || typeof part !== 'object') continue;
    const flat = Array.isArray(part.allOf) ? mergeAllOf(part) : part;
    Object.assign(properties, flat.properties ?? {});
    for (const r of Array.isArray(flat.required) ? flat.required : []) required.add(r);
    if (!merged.type && flat.type) merged.type = flat.type;
    if (!merged.description && flat.description) merged.description = flat.description;
  }
  merged.properties = properties;
  merged.required = [...required];
  delete merged.allOf;
  return merged;
}

/** One line about a parameter's schema: type, enum, default, bounds. */
export function describeParamSchema(schema: JsonSchema | undefined, options: ShapeOptions = {}): string {
  if (!schema) return 'unknown';
  const s = Array.isArray(schema.allOf) ? mergeAllOf(schema) : schema;
  const listed = options.description !== undefined ? listedValues(s, options.description) : undefined;
  const max = options.maxEnum ?? 8;
  const parts = [listed ? (listed.array ? `(${enumShape(listed.values, max)})[]` : enumShape(listed.values, max)) : schemaShape(s, { ...options, depth: 1 })];
  const items = s.items && typeof s.items === 'object' ? s.items : undefined;
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  const bound = (k: string, label: string, src: JsonSchema) => {
    if (typeof src[k] === 'number') parts.push(`${label} ${src[k]}`);
  };
  bound('minimum', 'min', s);
  bound('maximum', 'max', s);
  bound('maxItems', 'max items', s);
  if (items && Array.isArray(items.enum) === false && typeof items.pattern === 'string') parts.push(`pattern ${items.pattern}`);
  if (typeof s.pattern === 'string' && s.pattern.length < 60) parts.push(`pattern ${s.pattern}`);
  return parts.join(', ');
}
