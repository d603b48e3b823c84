// API profiles (which document, which origin, which auth, how mutations are
// treated) and the API keys that go with them — keys go in, only
// fingerprints come out.
import { z } from 'zod';

export const POLICIES = ['ask', 'allow', 'deny'] as const;
/** What a profile name may be (the core's rule, for forms to check as the name is typed). */
export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const policySchema = z.enum(POLICIES);

export const profileViewSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  spec: z.string(),
  baseUrl: z.string().optional(),
  auth: z.string().optional(),
  alias: z.string().optional(),
  policy: policySchema,
  readOnly: z.boolean(),
  allowPrivateNetwork: z.boolean(),
  mutations: z.array(z.string()),
  /** Per-operation policy overriding the profile's. */
  operationPolicies: z.record(z.string(), policySchema),
  allowExternalRefs: z.array(z.string()).optional(),
  /** This API's own words, for search (a word a request may use → the words its document uses). */
  words: z.record(z.string(), z.array(z.string())).optional(),
  origin: z.enum(['preset', 'file', 'adhoc']),
  active: z.boolean(),
  error: z.string().optional(),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

export const profileSaveSchema = z
  .object({
    name: z.string().max(40),
    spec: z.string().max(4000),
    description: z.string().max(500).optional(),
    baseUrl: z.string().max(2000).optional(),
    auth: z.string().max(200).optional(),
    alias: z.string().max(40).optional(),
    policy: policySchema.optional(),
    readOnly: z.boolean().optional(),
    allowPrivateNetwork: z.boolean().optional(),
    mutations: z.array(z.string().max(300)).max(10_000).optional(),
    operationPolicies: z.record(z.string().max(300), policySchema).optional(),
    allowExternalRefs: z.array(z.string().max(2000)).max(20).optional(),
    /** Serve it at once (the default), or save it disabled. */
    enabled: z.boolean().optional(),
    /** Replace the profile of that name (a saved one, or override a built-in one). Without it, an existing name is refused (code conflict). */
    replace: z.boolean().optional(),
  })
  .strict();

export const operationViewSchema = z.object({
  operationId: z.string(),
  call: z.string(),
  method: z.string(),
  path: z.string(),
  summary: z.string().optional(),
  mutation: z.boolean(),
  deprecated: z.boolean(),
  /** The policy that applies: the operation's own, else the profile's for mutations, `allow` for reads. */
  policy: policySchema,
  policySource: z.enum(['operation', 'profile', 'read']),
});

/** What a document holds, read before it is saved as a profile. */
export const documentSummarySchema = z.object({
  title: z.string(),
  version: z.string(),
  operations: z.number(),
  mutations: z.number(),
  servers: z.array(z.string()),
  /** The auth scheme Airlock would use (`bearer`, `header:X-Api-Key`, `none`…). */
  auth: z.string(),
  warnings: z.array(z.string()),
  fromCache: z.boolean(),
  loadMs: z.number(),
});

export const keyViewSchema = z.object({ profile: z.string(), fingerprint: z.string(), source: z.enum(['keychain', 'file']) });
export type DocumentSummary = z.infer<typeof documentSummarySchema>;
