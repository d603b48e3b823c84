// The engine × egress grid of the Engine screen: every combination with its
// state (valid, invalid with the reason, needs-install with the hint, or
// valid only once the person acknowledges an unbounded network), the policy
// it derives, and the request that applies one to the running companion.
import { z } from 'zod';
import { ENGINES, NETWORK_MODES } from './names.ts';

export { ENGINES, NETWORK_MODES };
export const engineNameSchema = z.enum(ENGINES);
export const networkModeSchema = z.enum(NETWORK_MODES);

export const derivedPolicySchema = z.object({
  enforcedBy: z.string(),
  allow: z.array(z.object({ host: z.string(), port: z.string(), purpose: z.string() })),
  deny: z.string(),
  /** sha256 of the policy (canonical JSON), first 16 hex digits: the same policy, the same fingerprint. */
  fingerprint: z.string(),
});
export type DerivedPolicy = z.infer<typeof derivedPolicySchema>;

export const engineCellSchema = z.object({
  engine: engineNameSchema,
  egress: networkModeSchema,
  state: z.enum(['valid', 'invalid', 'needs-install', 'needs-acknowledgement', 'not-allowed']),
  /** Why the cell is invalid, not allowed by the organisation's managed policy, what is missing, or what acknowledging means. */
  reason: z.string().optional(),
  installHint: z.string().optional(),
  /** The warning shown while this combination runs (an unbounded network). */
  banner: z.string().optional(),
  current: z.boolean(),
  policy: derivedPolicySchema,
});
export type EngineCell = z.infer<typeof engineCellSchema>;

export const componentSchema = z.object({
  found: z.boolean(),
  version: z.string().optional(),
  detail: z.string(),
  installHint: z.string().optional(),
});

export const engineMatrixSchema = z.object({
  current: z.object({ engine: engineNameSchema, egress: networkModeSchema }),
  /** Set when a flag or env var chose the engine or egress: the screen cannot change it. */
  lockedBy: z.string().optional(),
  cells: z.array(engineCellSchema),
  components: z.object({ quickjs: componentSchema, node: componentSchema, deno: componentSchema, srt: componentSchema }),
});
export type EngineMatrix = z.infer<typeof engineMatrixSchema>;

export const engineApplySchema = z
  .object({
    engine: engineNameSchema,
    egress: networkModeSchema,
    /** Required for deno with egress none: the person accepts an unbounded network. */
    acknowledgeUnrestricted: z.boolean().optional(),
  })
  .strict();

export const engineApplyResultSchema = z.object({
  engine: engineNameSchema,
  egress: networkModeSchema,
  boundary: z.string(),
  banner: z.string().optional(),
  policy: derivedPolicySchema,
  /** Saved for later starts; an unbounded network is never saved (it is acknowledged at each start). */
  saved: z.boolean(),
});
