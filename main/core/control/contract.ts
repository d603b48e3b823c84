// The control API contract: one typed table of methods (zod schemas for
// input and output), used by the loopback server, the `airlock` CLI, the
// desktop preload and the headless web UI alike. Adding a method here is the
// only change the compiler needs to follow it everywhere. Outputs are parsed
// on the way out too, so a handler cannot leak a field the contract does not
// declare (a secret, say).
import { z } from 'zod';
import { LOG_LEVELS } from '../log/logBuffer.ts';

const level = z.enum(LOG_LEVELS);

export const callerSchema = z.object({
  key: z.string(),
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  transport: z.enum(['stdio', 'http', 'internal']),
  sessionId: z.string().optional(),
});

export const approvalRequestSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('api-mutation'),
    runId: z.string(),
    caller: callerSchema,
    profile: z.string(),
    operationId: z.string(),
    method: z.string(),
    pathTemplate: z.string(),
    url: z.string(),
    query: z.record(z.string(), z.unknown()),
    bodyPreview: z.string(),
    scriptSha256: z.string(),
    scriptExcerpt: z.string(),
  }),
]);

export const pendingApprovalSchema = z.object({
  id: z.string(),
  request: approvalRequestSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  /** Seconds left before the request times out (a denial). */
  secondsLeft: z.number(),
});

export const approvalDecisionSchema = z.discriminatedUnion('approved', [
  z.object({ approved: z.literal(true), by: z.string(), scope: z.enum(['once', 'run', 'session', 'policy']), at: z.string() }),
  z.object({ approved: z.literal(false), by: z.string(), reason: z.string(), at: z.string(), code: z.enum(['no_approver', 'timeout']).optional() }),
]);

export const logEntrySchema = z.object({
  seq: z.number(),
  time: z.string(),
  level,
  source: z.string(),
  message: z.string(),
  runId: z.string().optional(),
});

export const profileSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  spec: z.string(),
  baseUrl: z.string().optional(),
  auth: z.string().optional(),
  alias: z.string().optional(),
  policy: z.enum(['ask', 'allow', 'deny']),
  readOnly: z.boolean(),
  allowPrivateNetwork: z.boolean(),
  mutations: z.array(z.string()),
  origin: z.enum(['preset', 'file', 'adhoc']),
  active: z.boolean(),
  error: z.string().optional(),
});

export const statusSchema = z.object({
  version: z.string(),
  pid: z.number(),
  startedAt: z.string(),
  uptimeSeconds: z.number(),
  memory: z.object({ rssBytes: z.number(), heapUsedBytes: z.number() }),
  profile: z.string(),
  api: z.object({ title: z.string(), version: z.string(), operations: z.number(), baseUrl: z.string(), spec: z.string() }),
  engine: z.string(),
  egress: z.string(),
  banner: z.string().optional(),
  boundary: z.string(),
  killSwitch: z.boolean(),
  runs: z.object({ active: z.number(), queued: z.number(), maxConcurrent: z.number() }),
  mcpSessions: z.number(),
  pendingApprovals: z.number(),
  keychain: z.object({ available: z.boolean(), detail: z.string() }),
  credential: z.object({ source: z.enum(['keychain', 'file', 'env', 'none']), fingerprint: z.string().optional() }),
});

export const auditRecordSchema = z.object({
  seq: z.number(),
  kind: z.enum(['tool', 'api', 'prune']),
  time: z.string(),
  runId: z.string().optional(),
  fields: z.record(z.string(), z.unknown()),
});

export const auditFiltersSchema = z.object({
  from: z.string().optional(),
  to: z.string().optional(),
  client: z.string().optional(),
  tool: z.string().optional(),
  outcome: z.string().optional(),
  text: z.string().optional(),
  kind: z.enum(['tool', 'api']).optional(),
  before: z.number().int().optional(),
  limit: z.number().int().min(1).max(500).optional(),
});

const empty = z.object({}).strict();
const settingValue = z.union([z.string(), z.number(), z.boolean()]);

export const controlContract = {
  status: { input: empty, output: statusSchema },
  'settings.get': {
    input: empty,
    output: z.object({ values: z.record(z.string(), z.unknown()), sources: z.record(z.string(), z.string()), persisted: z.array(z.string()) }),
  },
  'settings.update': {
    input: z.object({ values: z.record(z.string(), settingValue) }).strict(),
    output: z.object({ saved: z.array(z.string()), applied: z.array(z.string()), restartRequired: z.array(z.string()) }),
  },
  'profiles.list': { input: empty, output: z.array(profileSchema) },
  'profiles.save': {
    input: z
      .object({
        name: z.string(),
        spec: z.string(),
        description: z.string().optional(),
        baseUrl: z.string().optional(),
        auth: z.string().optional(),
        alias: z.string().optional(),
        policy: z.enum(['ask', 'allow', 'deny']).optional(),
        readOnly: z.boolean().optional(),
        allowPrivateNetwork: z.boolean().optional(),
        mutations: z.array(z.string()).optional(),
      })
      .strict(),
    output: z.object({ file: z.string(), restartRequired: z.boolean() }),
  },
  'profiles.remove': { input: z.object({ name: z.string() }).strict(), output: z.object({ removed: z.boolean() }) },
  'keys.list': {
    input: empty,
    output: z.array(z.object({ profile: z.string(), fingerprint: z.string(), source: z.enum(['keychain', 'file']) })),
  },
  'keys.set': { input: z.object({ profile: z.string(), secret: z.string().min(1) }).strict(), output: z.object({ fingerprint: z.string() }) },
  'keys.remove': { input: z.object({ profile: z.string() }).strict(), output: z.object({ removed: z.boolean() }) },
  'approvals.list': { input: empty, output: z.array(pendingApprovalSchema) },
  'approvals.decide': {
    input: z
      .object({
        id: z.string(),
        decision: z.enum(['approve', 'deny']),
        scope: z.enum(['once', 'run', 'session']).optional(),
        reason: z.string().max(500).optional(),
      })
      .strict(),
    output: approvalDecisionSchema,
  },
  'audit.query': { input: auditFiltersSchema.strict(), output: z.object({ records: z.array(auditRecordSchema), next: z.number().optional() }) },
  'audit.verify': {
    input: empty,
    output: z.object({ ok: z.boolean(), records: z.number(), firstBad: z.object({ seq: z.number(), reason: z.string() }).optional() }),
  },
  'logs.query': {
    input: z
      .object({
        level: level.optional(),
        source: z.string().optional(),
        grep: z.string().optional(),
        since: z.union([z.number(), z.string()]).optional(),
        limit: z.number().int().min(1).max(5000).optional(),
      })
      .strict(),
    output: z.array(logEntrySchema),
  },
} as const;

export type ControlContract = typeof controlContract;
export type ControlMethod = keyof ControlContract;
export type ControlInput<M extends ControlMethod> = z.input<ControlContract[M]['input']>;
export type ControlOutput<M extends ControlMethod> = z.output<ControlContract[M]['output']>;

/** Who is calling a handler (for "decided by" and the audit trail). */
export interface ControlCaller {
  by: string;
}

export type ControlHandlers = {
  [M in ControlMethod]: (
    input: z.output<ControlContract[M]['input']>,
    caller: ControlCaller,
  ) => Promise<z.input<ControlContract[M]['output']>> | z.input<ControlContract[M]['output']>;
};

/** Events streamed to subscribers (SSE), in batches. */
export const controlEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('log'), entry: logEntrySchema }),
  z.object({ type: z.literal('approval-requested'), approval: pendingApprovalSchema }),
  z.object({ type: z.literal('approval-decided'), id: z.string(), decision: approvalDecisionSchema }),
  z.object({ type: z.literal('audit'), record: auditRecordSchema }),
  z.object({ type: z.literal('status'), status: statusSchema }),
]);
export type ControlEvent = z.infer<typeof controlEventSchema>;

export const CONTROL_PREFIX = '/control';
export const controlPath = (method: ControlMethod) => `${CONTROL_PREFIX}/rpc/${method}`;
