// Approval requests (a discriminated union of kinds), the decisions that
// answer them, and the grants a decision can leave behind. One pending id is
// answered from any channel (desktop, web UI, CLI, MCP elicitation): the
// first answer wins.
import { z } from 'zod';
import { approvalEvidenceSchema } from './evidence.ts';

export const callerSchema = z.object({
  /** What grants and per-client limits are bound to: the HTTP session, or the stdio process; never the self-declared client name. */
  key: z.string(),
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  transport: z.enum(['stdio', 'http', 'internal']),
  sessionId: z.string().optional(),
});
export type Caller = z.infer<typeof callerSchema>;

/** Why the call is held: it changes data, it deletes, or it only became a mutation through something outside the document's plain reading. */
export const approvalReasonSchema = z.enum(['mutation', 'destructive', 'outside-policy']);

export const requestHeaderSchema = z.object({
  name: z.string(),
  /** The credential is never here: its header reads `•••• (from keychain: <profile>)`. */
  value: z.string(),
  credential: z.boolean().optional(),
});

export const apiMutationRequestSchema = z.object({
  kind: z.literal('api-mutation'),
  runId: z.string(),
  caller: callerSchema,
  profile: z.string(),
  reason: approvalReasonSchema,
  /** The rule that held it, in words ("policy ask: POST changes data"). */
  rule: z.string(),
  operationId: z.string(),
  /** `api.events.create` */
  call: z.string(),
  summary: z.string().optional(),
  method: z.string(),
  pathTemplate: z.string(),
  /** Full URL (origin, path and query), the credential removed. */
  url: z.string(),
  query: z.record(z.string(), z.unknown()),
  headers: z.array(requestHeaderSchema),
  /** Pretty-printed body, secrets redacted, capped; empty when there is none. */
  bodyPreview: z.string(),
  /** sha256 of method, full URL and body: an approval is for exactly this request. */
  requestHash: z.string(),
  /** How this run reached the call: the method it was overridden from (a redirect never asks: it is handed back unfollowed). */
  override: z.object({ from: z.string(), via: z.string() }).optional(),
  /** This is the run's call number `callIndex`; earlier calls are listed. */
  callIndex: z.number().int().min(1),
  earlierCalls: z.array(z.object({ method: z.string(), url: z.string(), status: z.number(), decision: z.string() })),
  scriptSha256: z.string(),
  /** The whole script (redacted). */
  script: z.string(),
  /** For a PATCH, PUT or DELETE: the resource as it is now, what changes, or why nothing could be fetched. */
  evidence: approvalEvidenceSchema.optional(),
});

export const approvalRequestSchema = z.discriminatedUnion('kind', [apiMutationRequestSchema]);
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;
export type MutationApprovalRequest = z.infer<typeof apiMutationRequestSchema>;

export const pendingApprovalSchema = z.object({
  id: z.string(),
  request: approvalRequestSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  /** Seconds left before the request times out (a denial). */
  secondsLeft: z.number(),
  /** When the client stopped waiting (it cancelled the call, went away, or was answered "held"): the person can still decide; the run's result waits for `execute {resume}`. */
  clientStoppedWaitingAt: z.string().optional(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

export const APPROVE_SCOPES = ['once', 'run', 'session', 'always'] as const;
export const approveScopeSchema = z.enum(APPROVE_SCOPES);
export type ApproveScope = z.infer<typeof approveScopeSchema>;

/** Why a call was not approved: a person said no, nobody could be asked, nobody answered in time, or the client gave up first. */
export const DENIAL_CODES = ['denied', 'no_approver', 'timeout', 'withdrawn'] as const;

export const approvalDecisionSchema = z.discriminatedUnion('approved', [
  z.object({
    approved: z.literal(true),
    by: z.string(),
    scope: z.enum([...APPROVE_SCOPES, 'policy']),
    at: z.string(),
    /** The grant that let it through without asking. */
    grantId: z.string().optional(),
  }),
  z.object({ approved: z.literal(false), by: z.string(), reason: z.string(), at: z.string(), code: z.enum(DENIAL_CODES) }),
]);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const decideInputSchema = z
  .object({
    id: z.string().max(100),
    decision: z.enum(['approve', 'deny']),
    scope: approveScopeSchema.optional(),
    reason: z.string().max(500).optional(),
  })
  .strict();

export const grantSchema = z.object({
  id: z.string(),
  /** session: this operation for one client session until it ends; always: this operation, for every client, until revoked. */
  scope: z.enum(['session', 'always']),
  profile: z.string(),
  operationId: z.string(),
  method: z.string(),
  pathTemplate: z.string(),
  /** The session it is bound to (session scope). */
  callerKey: z.string().optional(),
  clientName: z.string().optional(),
  grantedBy: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().optional(),
  uses: z.number().int(),
});
export type Grant = z.infer<typeof grantSchema>;
