// The Rules view: every operation of the active profile with its policy
// (allow, ask, deny), the grants that cover it, what is in effect for it,
// and how many calls each rule let through, held for a person or refused —
// counted from the audit, so the counts survive a reload and a restart.
// Also the Answered list: held calls a person (or the timeout) answered,
// read from the audit.
import { z } from 'zod';
import { callKindSchema } from './calls.ts';
import { policySchema } from './profiles.ts';
import { grantSchema } from './approvals.ts';

export const ruleHitsSchema = z.object({
  /** Calls that went through without asking a person (a read, policy allow, a grant, an earlier yes in the run). */
  allowed: z.number().int(),
  /** Calls held for a person (approved, denied, timed out, withdrawn, or no one to ask). */
  asked: z.number().int(),
  /** Of those asked, the calls a person said no to (or left unanswered, or that no one could be asked): not let through. */
  saidNo: z.number().int(),
  /** Calls refused without asking (policy deny, read-only profile). */
  refused: z.number().int(),
  /** The latest of these calls. */
  lastAt: z.string().optional(),
});
export type RuleHits = z.infer<typeof ruleHitsSchema>;

/** What happens to the next call of an operation, grants included. */
export const effectiveSchema = z.object({
  /** allow: no one is asked; ask: a person is asked; deny: refused; some: allowed for some clients (grants), asked for the others. */
  kind: z.enum(['allow', 'ask', 'deny', 'some']),
  /** In words: "Allowed: every client, until revoked (grant)". */
  text: z.string(),
});

export const ruleOperationSchema = z.object({
  operationId: z.string(),
  method: z.string(),
  path: z.string(),
  summary: z.string().optional(),
  mutation: z.boolean(),
  /** A DELETE: never granted "until revoked". */
  destructive: z.boolean(),
  /** The policy that applies: the operation's own, else the profile's for mutations, `allow` for reads. */
  policy: policySchema,
  policySource: z.enum(['operation', 'profile', 'read']),
  effective: effectiveSchema,
  hits: ruleHitsSchema,
  /** Grant ids covering this operation (see `grants`). */
  grantIds: z.array(z.string()),
});
export type RuleOperation = z.infer<typeof ruleOperationSchema>;

export const rulesViewSchema = z.object({
  profile: z.object({ name: z.string(), policy: policySchema, readOnly: z.boolean() }),
  operations: z.array(ruleOperationSchema),
  /** Every grant, with its uses and last use (also those of other profiles). */
  grants: z.array(grantSchema),
  /** The oldest audit record the counts include (older ones were pruned or never existed). */
  countedSince: z.string().optional(),
});
export type RulesView = z.infer<typeof rulesViewSchema>;

export const answeredSchema = z.object({
  /** The audit record (Activity: `#/activity?run=<runId>&seq=<seq>`). */
  seq: z.number(),
  runId: z.string(),
  /** When it was answered. */
  at: z.string(),
  /** The API (profile) the call was for. */
  profile: z.string().optional(),
  operationId: z.string(),
  /** An API call, or a tool of another MCP server. */
  callKind: callKindSchema,
  /** An API call's method; absent for a tool call. */
  method: z.string().optional(),
  /** The API call's URL; a tool call's `mcp://<server>/<tool>`. */
  url: z.string(),
  /** The client's declared name, else its caller key. */
  client: z.string(),
  approved: z.boolean(),
  by: z.string(),
  scope: z.string().optional(),
  reason: z.string().optional(),
  /** denied, timeout, withdrawn, no_approver (denials). */
  code: z.string().optional(),
});
export type Answered = z.infer<typeof answeredSchema>;
