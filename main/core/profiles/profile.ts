// An API profile: which OpenAPI document, which base URL, how the key is
// sent, what the sandbox client is called and how mutations are treated.
// Profiles live as one JSON file each in <data dir>/profiles, validated with
// zod; a bad file is reported with its path and the offending field.
import { z } from 'zod';
import { type AuthScheme, formatAuthScheme, parseAuthScheme } from '../config/auth.ts';
import { checkAllowEntry } from '../openapi/externalRefs.ts';

export const MUTATION_POLICIES = ['ask', 'allow', 'deny'] as const;
export type MutationPolicy = (typeof MUTATION_POLICIES)[number];

/** What a profile may be called (also the file name in <data dir>/profiles). */
export { PROFILE_NAME } from '../../../contract/names.ts';

import { DEMO_SPEC, isEnabled } from './profileDefaults.ts';

export { DEMO_SPEC, isEnabled };

const identifier = z
  .string()
  .regex(/^[A-Za-z_$][\w$]*$/, 'must be a JavaScript identifier')
  .refine((s) => !['api', 'console', 'globalThis', 'undefined', 'eval', 'Function'].includes(s), 'is reserved');

const authField = z.string().transform((value, ctx): AuthScheme => {
  const r = parseAuthScheme(value);
  if (typeof r === 'string') {
    ctx.addIssue({ code: 'custom', message: r });
    return z.NEVER;
  }
  return r;
});

export const profileFileSchema = z
  .object({
    description: z.string().max(500).optional(),
    spec: z.string().min(1, 'is required: an OpenAPI file path or http(s) URL'),
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    auth: authField.optional(),
    alias: identifier.optional(),
    /** Whether the companion serves it (default: yes). */
    enabled: z.boolean().optional(),
    policy: z.enum(MUTATION_POLICIES).default('ask'),
    readOnly: z.boolean().default(false),
    allowPrivateNetwork: z.boolean().default(false),
    /** operationIds treated as mutations even when their method is a read (x-airlock-mutation). */
    mutations: z.array(z.string().min(1)).default([]),
    /** Per-operation policy, overriding the profile's for that operationId (reads included). */
    operationPolicies: z.record(z.string().min(1), z.enum(MUTATION_POLICIES)).default({}),
    /**
     * This API's own words, for search: a word a request may use → the words its document uses for it
     * (`{ "payment": ["intent"] }`: Stripe writes a payment as a PaymentIntent). Read at each search, never indexed.
     */
    words: z.record(z.string().min(1).max(60), z.array(z.string().min(1).max(60)).min(1).max(10)).default({}),
    /** Directories or origins the document's external $refs may point into (none by default). */
    allowExternalRefs: z
      .array(
        z.string().superRefine((entry, ctx) => {
          const problem = checkAllowEntry(entry);
          if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)} ${problem}` });
        }),
      )
      .default([]),
  })
  .strict();

export type ProfileFile = z.input<typeof profileFileSchema>;

export interface Profile {
  name: string;
  description?: string;
  spec: string;
  baseUrl?: string;
  auth?: AuthScheme;
  alias?: string;
  /** Whether the companion serves it. Files written since APIs are served at once say so; see isEnabled for the others. */
  enabled?: boolean;
  policy: MutationPolicy;
  readOnly: boolean;
  allowPrivateNetwork: boolean;
  mutations: string[];
  /** Per-operation policy (operationId → allow | ask | deny), overriding the profile's. */
  operationPolicies?: Record<string, MutationPolicy>;
  /** Directories or origins external $refs may point into; none by default. */
  allowExternalRefs?: string[];
  /** This API's own words, for search: a word a request may use → the words its document uses for it. */
  words?: Record<string, string[]>;
  /** Where it came from: a built-in preset, a file in the data dir, or the command line. */
  origin: 'preset' | 'file' | 'adhoc';
  file?: string;
}

/** What stands for a profile whose file cannot be read, in lists that show it with its error. */
export function unreadableProfile(name: string): Profile {
  return { name, spec: '', policy: 'ask', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'file' };
}

/** A profile's fields as its JSON file holds them (the control API shows the same). */
export function profileToFile(p: Profile) {
  return {
    ...(p.description ? { description: p.description } : {}),
    spec: p.spec,
    ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
    ...(p.auth ? { auth: formatAuthScheme(p.auth) } : {}),
    ...(p.alias ? { alias: p.alias } : {}),
    enabled: isEnabled(p),
    policy: p.policy,
    readOnly: p.readOnly,
    allowPrivateNetwork: p.allowPrivateNetwork,
    mutations: p.mutations,
    ...(p.operationPolicies && Object.keys(p.operationPolicies).length > 0 ? { operationPolicies: p.operationPolicies } : {}),
    ...(p.allowExternalRefs && p.allowExternalRefs.length > 0 ? { allowExternalRefs: p.allowExternalRefs } : {}),
    ...(p.words && Object.keys(p.words).length > 0 ? { words: p.words } : {}),
  };
}
