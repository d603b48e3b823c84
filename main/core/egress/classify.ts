// Read or mutation, and what the policy says about it — for one concrete
// request, not just its operation. A request is classified by the method
// that will take effect upstream: an override header (X-HTTP-Method-Override,
// X-HTTP-Method, X-Method-Override, any case) or a `_method` field in the
// query or the body turns a GET into whatever it names, so a "read" cannot
// mutate unasked. The class names its reason (mutation, destructive, or
// outside-policy when only something beyond the plain method made it a
// mutation) and the rule that matched, in words a person can check.
import type { ApiOperation } from '../openapi/catalogue.ts';
import { READ_METHODS } from '../openapi/catalogue.ts';
import type { MutationPolicy } from '../profiles/profile.ts';

export const OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'] as const;

export interface MethodOverride {
  /** The method the API will act on. */
  method: string;
  /** Where it was asked for: a header name or `_method in query` / `_method in body`. */
  via: string;
}

function asMethod(value: unknown): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.trim() ? text.trim().toUpperCase() : undefined;
}

/** The override a request carries, if any (the first one found; any mutating one wins). */
export function findMethodOverride(
  headers: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
  body: unknown,
): MethodOverride | undefined {
  const found: MethodOverride[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if ((OVERRIDE_HEADERS as readonly string[]).includes(lower)) {
      const m = asMethod(value);
      if (m) found.push({ method: m, via: name });
    }
  }
  for (const [name, value] of Object.entries(query ?? {})) {
    if (name.toLowerCase() === '_method') {
      const m = asMethod(value);
      if (m) found.push({ method: m, via: '_method in query' });
    }
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) {
      if (name.toLowerCase() === '_method') {
        const m = asMethod(value);
        if (m) found.push({ method: m, via: '_method in body' });
      }
    }
  }
  return found.find((f) => !READ_METHODS.has(f.method)) ?? found[0];
}

export interface ClassifyInput {
  op: ApiOperation;
  /** The method the request is sent with (a redirect may change it). */
  method: string;
  override?: MethodOverride;
  profile: {
    name: string;
    policy: MutationPolicy;
    readOnly: boolean;
    mutations: readonly string[];
    operationPolicies?: Readonly<Record<string, MutationPolicy>>;
  };
}

/** What kind of request this is — a read, or a mutation and what the policy does with it — and why. */
export type RequestClass =
  | { kind: 'read'; rule: string }
  | { kind: 'allow' | 'ask' | 'deny' | 'read-only'; reason: 'mutation' | 'destructive' | 'outside-policy'; rule: string; effectiveMethod: string };

/**
 * Whether an operation is a mutation under a profile, by what it is rather than how one request calls it:
 * the document says so (a method that changes data, or x-airlock-mutation) or the profile lists it under "mutations".
 */
export function isMutation(op: ApiOperation, profile: { readonly mutations: readonly string[] }): boolean {
  return op.mutation || profile.mutations.includes(op.id);
}

export function classifyRequest(input: ClassifyInput): RequestClass {
  const { op, profile } = input;
  const effectiveMethod = input.override && !READ_METHODS.has(input.override.method) ? input.override.method : input.method.toUpperCase();
  const plainMutation = !READ_METHODS.has(input.method.toUpperCase());
  const markedMutation = isMutation(op, profile);
  const overridden = input.override !== undefined && !READ_METHODS.has(input.override.method);
  const mutation = plainMutation || markedMutation || overridden;
  const own = profile.operationPolicies?.[op.id];
  const what = `${effectiveMethod} ${op.path} (${op.id})`;

  if (!mutation) {
    if (own === 'deny') return { kind: 'deny', reason: 'outside-policy', rule: `operation policy "deny" for ${op.id}`, effectiveMethod };
    if (own === 'ask') return { kind: 'ask', reason: 'outside-policy', rule: `operation policy "ask" for ${op.id}`, effectiveMethod };
    return { kind: 'read', rule: `${what} reads data` };
  }
  // Destructive when any of the document's method, the wire method or the effective method deletes: an override cannot launder a DELETE.
  const deletes = [effectiveMethod, input.method.toUpperCase(), op.method.toUpperCase()].includes('DELETE');
  const reason = deletes ? 'destructive' : plainMutation && !overridden ? 'mutation' : 'outside-policy';
  const why = overridden
    ? `${input.method.toUpperCase()} overridden to ${input.override!.method} by ${input.override!.via}`
    : plainMutation
      ? `${effectiveMethod} changes data`
      : op.mutation
        ? 'the document marks it x-airlock-mutation'
        : `profile '${profile.name}' lists it under "mutations"`;
  if (profile.readOnly) return { kind: 'read-only', reason, rule: `profile '${profile.name}' is read-only; ${why}`, effectiveMethod };
  const policy = own ?? profile.policy;
  const source = own ? `operation policy "${own}" for ${op.id}` : `profile '${profile.name}' policy "${profile.policy}"`;
  return { kind: policy, reason, rule: `${source}: ${why}`, effectiveMethod };
}
