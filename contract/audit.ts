// Audit records as they leave the core (control API, event stream, exports,
// the Activity screen): one record per tool call and one per API call,
// linked by run id, each carrying its place in the hash chain.
import { z } from 'zod';
import { callKindSchema } from './calls.ts';

const chain = {
  /** Position in the chain: 1, 2, 3… never reused. */
  seq: z.number(),
  /** When the event happened. */
  time: z.string(),
  /** The store's clock when the record was written. */
  recordedAt: z.string(),
  /** `ok` or what went wrong. */
  outcome: z.string(),
  prevHash: z.string(),
  hash: z.string(),
};

export const toolCallRecordSchema = z.object({
  kind: z.literal('tool'),
  ...chain,
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  transport: z.enum(['stdio', 'http', 'internal']),
  sessionId: z.string().optional(),
  tool: z.string(),
  durationMs: z.number(),
  /** The input, redacted and capped (execute: the code). */
  input: z.string(),
  inputSha256: z.string(),
  inputBytes: z.number(),
  inputTruncated: z.boolean(),
  bytesOut: z.number(),
  error: z.string().optional(),
  credentialFingerprint: z.string().optional(),
  profile: z.string().optional(),
  /** execute: the sandbox engine that ran the code. */
  engine: z.string().optional(),
  runId: z.string().optional(),
});

/**
 * evidence: a read Airlock made itself, to show a person what a held call would change (never seen by the run).
 * pending: a call held for a person, recorded when it is held (its outcome is a later record with the same
 * approval id); interrupted: one whose companion ended before anyone answered, recorded at the next start.
 */
export const GATE_DECISIONS = ['read', 'allowed', 'approved', 'denied', 'refused', 'evidence', 'pending', 'interrupted'] as const;

export const apiCallRecordSchema = z.object({
  kind: z.literal('api'),
  ...chain,
  runId: z.string(),
  callerKey: z.string(),
  /** The client's self-declared name (grants bind to callerKey). */
  clientName: z.string().optional(),
  /** The API profile the call went through. */
  profile: z.string().optional(),
  /** The operation's id; for a tool of another MCP server, the tool's name. */
  operationId: z.string(),
  /** What was called (absent in records written before the kinds: read them with callKindOf). */
  callKind: callKindSchema.optional(),
  /** An API call's HTTP method; absent for a tool call (older records say TOOL: see httpMethodOf). */
  method: z.string().optional(),
  /** A tool call's server (its profile is `mcp:<server>`). */
  server: z.string().optional(),
  /** Origin, path and query, the credential removed; a tool call's `mcp://<server>/<tool>`. */
  url: z.string(),
  status: z.number(),
  durationMs: z.number(),
  bytes: z.number(),
  decision: z.enum(GATE_DECISIONS),
  approval: z
    .object({
      by: z.string(),
      at: z.string(),
      scope: z.string().optional(),
      reason: z.string().optional(),
      code: z.string().optional(),
      grantId: z.string().optional(),
      /** The approval a person was asked: the same on the pending record and on its outcome. */
      id: z.string().optional(),
    })
    .optional(),
  /** pending: the process that holds it (a pending record of a process that is gone is interrupted at the next start). */
  heldBy: z.number().optional(),
  error: z.string().optional(),
  startedAt: z.string(),
  /** A tool call's arguments as JSON, redacted, capped. */
  arguments: z.string().optional(),
});

export const pruneRecordSchema = z.object({
  kind: z.literal('prune'),
  ...chain,
  olderThanDays: z.number(),
  cutoff: z.string(),
  pruned: z.number(),
  throughSeq: z.number(),
  anchorHash: z.string(),
});

export const auditRecordSchema = z.discriminatedUnion('kind', [toolCallRecordSchema, apiCallRecordSchema, pruneRecordSchema]);
export type AuditRecord = z.infer<typeof auditRecordSchema>;

export const auditFiltersSchema = z
  .object({
    from: z.string().max(40).optional(),
    to: z.string().max(40).optional(),
    client: z.string().max(200).optional(),
    tool: z.string().max(100).optional(),
    profile: z.string().max(100).optional(),
    operation: z.string().max(300).optional(),
    method: z.string().max(10).optional(),
    /** API calls, tool calls of other MCP servers (records of any age). */
    callKind: callKindSchema.optional(),
    outcome: z.string().max(40).optional(),
    decision: z.enum(GATE_DECISIONS).optional(),
    text: z.string().max(500).optional(),
    kind: z.enum(['tool', 'api']).optional(),
    runId: z.string().max(100).optional(),
  })
  .strict();
export type AuditFilters = z.infer<typeof auditFiltersSchema>;

export const auditQuerySchema = auditFiltersSchema
  .extend({
    order: z.enum(['newest', 'oldest']).optional(),
    before: z.number().int().optional(),
    after: z.number().int().optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

export const auditPageSchema = z.object({ records: z.array(auditRecordSchema), next: z.number().optional(), total: z.number().optional() });

export const verifyResultSchema = z.object({ ok: z.boolean(), records: z.number(), firstBad: z.object({ seq: z.number(), reason: z.string() }).optional() });
