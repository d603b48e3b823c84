// The APIs a companion knows: every profile, whether it is enabled, and how
// its serving goes (loading, ready with its operation count, or failed with
// the reason). `apis.enable` and `apis.disable` change it while the
// companion runs, and are saved in the profile.
import { z } from 'zod';
import { credentialStateSchema } from './status.ts';

export const apiStateSchema = z.enum(['loading', 'ready', 'failed', 'disabled']);

/** The steps of preparing a document, in order (a prepared document is only opened). */
export const preparePhaseSchema = z.enum(['reading', 'parsing', 'resolving', 'cataloguing', 'indexing', 'writing', 'opening']);

/** How far an API that is loading is. */
export const apiProgressSchema = z.object({
  phase: preparePhaseSchema,
  /** Of the whole load, 0–100. */
  percent: z.number().min(0).max(100),
  /** Operations catalogued or indexed so far… */
  operations: z.number().int().nonnegative().optional(),
  /** …of this many, when it is known. */
  total: z.number().int().nonnegative().optional(),
});
export type ApiProgress = z.infer<typeof apiProgressSchema>;

export const apiViewSchema = z.object({
  /** The profile's name. */
  name: z.string(),
  /** What `execute` reaches it by (`github.repos.get`). */
  id: z.string(),
  enabled: z.boolean(),
  state: apiStateSchema,
  /** The document's title and operation count, once loaded. */
  title: z.string().optional(),
  operations: z.number().int().optional(),
  /** Why it could not be loaded, or why its profile cannot be read. */
  error: z.string().optional(),
  /** While it loads: how far. */
  progress: apiProgressSchema.optional(),
  spec: z.string(),
  baseUrl: z.string().optional(),
  auth: z.string().optional(),
  alias: z.string().optional(),
  origin: z.enum(['preset', 'file', 'adhoc']),
  /** The environment variable its key may be given in, read whatever the store (AIRLOCK_KEY_<API>). */
  keyEnv: z.string(),
  /** Once it is loaded: the key it runs with (where from, its fingerprint), never the key. */
  credential: credentialStateSchema.optional(),
  /** When a run last called it (ISO time), as the audit log keeps it; absent when it never was, or the records were pruned. */
  lastUsed: z.string().optional(),
});
export type ApiView = z.infer<typeof apiViewSchema>;

export const apiNameInputSchema = z.object({ name: z.string().min(1).max(40) }).strict();
