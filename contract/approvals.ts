// Approval requests (a discriminated union of kinds), the decisions that
// answer them, and the grants a decision can leave behind. One pending id is
// answered from any channel (desktop, web UI, CLI, MCP elicitation): the
// first answer wins.
import { z } from 'zod';
import { approvalEvidenceSchema } from './evidence.ts';
import { callKindSchema, callLine } from './calls.ts';

/** An HTTP client's own token, as a caller carries it (`airlock clients token`): its id, and the name the person gave it. */
export const clientTokenRefSchema = z.object({ id: z.string(), name: z.string() });
export type ClientTokenRef = z.infer<typeof clientTokenRefSchema>;

export const callerSchema = z.object({
  /** What grants and per-client limits are bound to: the HTTP session, or the stdio process; never the self-declared client name. */
  key: z.string(),
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  transport: z.enum(['stdio', 'http', 'internal']),
  sessionId: z.string().optional(),
  /** The MCP revision the client speaks on this connection (2025-11-25, 2026-07-28, …), when known. */
  protocolVersion: z.string().optional(),
  /** The HTTP client's own token it came with (`airlock clients token`): its id, and the name the person gave it. */
  clientToken: clientTokenRefSchema.optional(),
});
export type Caller = z.infer<typeof callerSchema>;

/** Why the call is held: it changes data, it deletes, or it only became a mutation through something outside the document's plain reading. */
export const approvalReasonSchema = z.enum(['mutation', 'destructive', 'outside-policy', 'question']);

export const requestHeaderSchema = z.object({
  name: z.string(),
  /** The credential is never here: its header reads `•••• (from keychain: <profile>)`. */
  value: z.string(),
  credential: z.boolean().optional(),
});

/** An earlier call of the run, as the prompt lists it (an API call has its method; a tool call its `mcp://` address only). */
export const earlierCallSchema = z.object({
  callKind: callKindSchema.optional(),
  method: z.string().optional(),
  url: z.string(),
  status: z.number(),
  decision: z.string(),
});
export type EarlierCall = z.infer<typeof earlierCallSchema>;

/** What every request put to a person says, whatever its kind: who asks, in which run, under which rule, and the run's script. */
const requestBase = {
  runId: z.string(),
  caller: callerSchema,
  /** The API's profile; `mcp:<server>` for another MCP server's tool; `airlock` for a server switch. */
  profile: z.string(),
  reason: approvalReasonSchema,
  /** The rule that held it, in words ("policy ask: POST changes data"). */
  rule: z.string(),
  /** The operation's id; the tool's name; `toggle_mcp_server`. What grants are kept under, with the profile. */
  operationId: z.string(),
  /** How the script names it: `api.events.create`, `mcp.fs.write_file`. */
  call: z.string(),
  summary: z.string().optional(),
  /** sha256 of what would be sent: an approval is for exactly this request. */
  requestHash: z.string(),
  /** This is the run's call number `callIndex`; earlier calls are listed. */
  callIndex: z.number().int().min(1),
  earlierCalls: z.array(earlierCallSchema),
  scriptSha256: z.string(),
  /** The whole script (redacted). */
  script: z.string(),
};

/** An API call: the exact HTTP request that would be sent. */
export const apiCallRequestSchema = z.object({
  kind: z.literal('api-call'),
  ...requestBase,
  method: z.string(),
  pathTemplate: z.string(),
  /** Full URL (origin, path and query), the credential removed. */
  url: z.string(),
  query: z.record(z.string(), z.unknown()),
  headers: z.array(requestHeaderSchema),
  /** Pretty-printed body, secrets redacted, capped; empty when there is none. */
  bodyPreview: z.string(),
  /** How this run reached the call: the method it was overridden from (a redirect never asks: it is handed back unfollowed). */
  override: z.object({ from: z.string(), via: z.string() }).optional(),
  /** For a PATCH, PUT or DELETE: the resource as it is now, what changes, or why nothing could be fetched. */
  evidence: approvalEvidenceSchema.optional(),
});

/** A tool of another MCP server, called through Airlock (issue 20): the server, the tool, what it says of itself and the arguments. */
export const toolCallRequestSchema = z.object({
  kind: z.literal('tool-call'),
  ...requestBase,
  server: z.string(),
  tool: z.string(),
  /** `mcp://<server>/<tool>`, as the audit records it. */
  address: z.string(),
  /** The tool's description, as the server gives it (redacted, capped). */
  description: z.string().optional(),
  /** What the tool's annotations say of it (a hint from the server, not a promise). */
  readOnly: z.boolean().optional(),
  destructive: z.boolean().optional(),
  /** Called by a client directly under this name (`fs__write_file`), not from a script. */
  direct: z.string().optional(),
  /** The arguments, pretty-printed, redacted, capped (a yes sends them whole). */
  arguments: z.string(),
});

/** A client's request to turn another MCP server on or off (`toggle_mcp_server`). */
export const serverSwitchRequestSchema = z.object({
  kind: z.literal('server-switch'),
  ...requestBase,
  server: z.string(),
  enabled: z.boolean(),
});

/**
 * One field of a server's question (MCP elicitation's flat form): text (maybe one of `choices`, maybe an email, a URL or
 * a date), a number, yes/no, or a list of `choices` (a multi-select).
 */
export const questionFieldSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  type: z.enum(['string', 'number', 'integer', 'boolean', 'list']),
  /** The values a string (or each item of a list) may take. */
  choices: z.array(z.string()).optional(),
  /** What a string is, as the server says (the form's input kind). */
  format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
  required: z.boolean(),
  /** A number's range; a list's number of items. */
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
});
export type QuestionField = z.infer<typeof questionFieldSchema>;

/** An answer to a server's question: a value by field name. */
export const questionAnswerSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));
export type QuestionAnswer = z.infer<typeof questionAnswerSchema>;

/**
 * Another MCP server asks the person something while one of its tools runs (MCP elicitation: a request of the
 * server's in 2025, `input_required` in 2026-07-28): its message and the fields it wants. A yes sends the answer to
 * that server only; a no declines. Nothing is granted.
 */
export const serverQuestionRequestSchema = z.object({
  kind: z.literal('server-question'),
  ...requestBase,
  server: z.string(),
  /** The tool whose call the question came with, when known. */
  tool: z.string().optional(),
  /** The server's words (redacted, capped): they are the server's, not Airlock's. */
  message: z.string(),
  fields: z.array(questionFieldSchema),
});

export const approvalRequestSchema = z.discriminatedUnion('kind', [
  apiCallRequestSchema,
  toolCallRequestSchema,
  serverSwitchRequestSchema,
  serverQuestionRequestSchema,
]);
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;
export type ApiCallApprovalRequest = z.infer<typeof apiCallRequestSchema>;
export type ToolCallApprovalRequest = z.infer<typeof toolCallRequestSchema>;
export type ServerSwitchApprovalRequest = z.infer<typeof serverSwitchRequestSchema>;
export type ServerQuestionRequest = z.infer<typeof serverQuestionRequestSchema>;

/** Why an answer does not fit the question's fields, in words naming the field (undefined when it fits). */
export function answerProblem(fields: readonly QuestionField[], answer: QuestionAnswer): string | undefined {
  const known = new Set(fields.map((f) => f.name));
  const stray = Object.keys(answer).find((k) => !known.has(k));
  if (stray !== undefined) return `the question has no field "${stray.slice(0, 100)}" (its fields: ${[...known].join(', ') || 'none'})`;
  for (const f of fields) {
    const value = answer[f.name];
    const label = f.title ?? f.name;
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      if (f.required) return `"${label}" needs an answer`;
      continue;
    }
    if (f.type === 'list') {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return `"${label}" is a list of choices`;
      const stray = value.find((v) => f.choices && !f.choices.includes(v));
      if (stray !== undefined) return `"${label}" takes only: ${f.choices!.join(', ')}`;
      if (f.minimum !== undefined && value.length < f.minimum) return `"${label}" needs at least ${f.minimum}`;
      if (f.maximum !== undefined && value.length > f.maximum) return `"${label}" takes at most ${f.maximum}`;
      continue;
    }
    if (Array.isArray(value)) return `"${label}" is one value, not a list`;
    if (f.type === 'boolean' && typeof value !== 'boolean') return `"${label}" is yes or no`;
    if ((f.type === 'number' || f.type === 'integer') && (typeof value !== 'number' || !Number.isFinite(value))) return `"${label}" is a number`;
    if (f.type === 'integer' && !Number.isInteger(value)) return `"${label}" is a whole number`;
    if (typeof value === 'number' && f.minimum !== undefined && value < f.minimum) return `"${label}" is at least ${f.minimum}`;
    if (typeof value === 'number' && f.maximum !== undefined && value > f.maximum) return `"${label}" is at most ${f.maximum}`;
    if (f.type === 'string' && typeof value !== 'string') return `"${label}" is text`;
    if (f.choices && !f.choices.includes(String(value))) return `"${label}" is one of: ${f.choices.join(', ')}`;
  }
  return undefined;
}

/**
 * What a request is for, in one line: `POST /items (items.create)` (`where` picks the template or the full URL),
 * `mcp.fs.write_file (a tool of MCP server fs)`, `turn MCP server fs on`.
 */
export function requestLine(req: ApprovalRequest, where: 'url' | 'template' = 'template'): string {
  switch (req.kind) {
    case 'api-call':
      return `${req.method} ${where === 'url' ? req.url : req.pathTemplate} (${req.operationId})`;
    case 'tool-call':
      return `${req.call} (a tool of MCP server ${req.server})`;
    case 'server-switch':
      return `turn MCP server ${req.server} ${req.enabled ? 'on' : 'off'}`;
    case 'server-question':
      return `answer a question of MCP server ${req.server}${req.tool ? ` (while ${req.tool} runs)` : ''}`;
  }
}

/** What is asked for, in a few words, for headings and notifications: `POST /events`, `mcp.fs.write_file`, `turn MCP server fs on`. */
export function requestTarget(req: ApprovalRequest): string {
  switch (req.kind) {
    case 'api-call':
      return `${req.method} ${req.pathTemplate}`;
    case 'tool-call':
      return req.call;
    case 'server-switch':
      return `turn MCP server ${req.server} ${req.enabled ? 'on' : 'off'}`;
    case 'server-question':
      return `a question of MCP server ${req.server}`;
  }
}

/** What the request would send, for a question asked in words (elicitation, the CLI): the body, the arguments or the switch. */
export function requestPayload(req: ApprovalRequest): string {
  switch (req.kind) {
    case 'api-call':
      return req.bodyPreview;
    case 'tool-call':
      return req.arguments;
    case 'server-switch':
      return JSON.stringify({ name: req.server, enabled: req.enabled }, null, 2);
    case 'server-question':
      return req.message;
  }
}

export const pendingApprovalSchema = z.object({
  id: z.string(),
  request: approvalRequestSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  /** Seconds left before the request times out (a denial). */
  secondsLeft: z.number(),
  /** When the client stopped waiting (it cancelled the call, went away, or was answered "held"): the person can still decide; the run's result waits for `execute {resume}`. */
  clientStoppedWaitingAt: z.string().optional(),
  /** With clientStoppedWaitingAt: whether the client was given the run's id (answered "held"), so it can still collect the result with `execute {resume}`. */
  clientCanResume: z.boolean().optional(),
  /** Scopes the organisation's managed policy refuses, each with why ("… set by your organisation …"): not offered. */
  scopesRefused: z.record(z.string(), z.string()).optional(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/**
 * What a "yes" covers. `once`: this call; `run`: the rest of this run. The
 * others leave a grant, {who} × {until}:
 * - `session`: this client (its session: the HTTP session or stdio process), until that session ends;
 * - `client-always`: this client, until revoked — bound to the name the client declares (another
 *   program may declare the same name), kept in grants.json;
 * - `everyone-session`: every client, until Airlock stops;
 * - `always`: every client, until revoked, kept in grants.json.
 * Destructive operations (DELETE) are never granted "until revoked".
 */
export const APPROVE_SCOPES = ['once', 'run', 'session', 'client-always', 'everyone-session', 'always'] as const;
export const approveScopeSchema = z.enum(APPROVE_SCOPES);
export type ApproveScope = z.infer<typeof approveScopeSchema>;

/** The scopes that leave a grant behind. */
export const GRANT_SCOPES = ['session', 'client-always', 'everyone-session', 'always'] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** Who a grant covers and how long it lasts, in the words the UI and the CLI use. */
export const GRANT_SCOPE_INFO: Record<GrantScope, { who: 'client' | 'every'; until: 'session' | 'revoked'; label: string; persisted: boolean }> = {
  session: { who: 'client', until: 'session', label: 'this client, this session', persisted: false },
  'client-always': { who: 'client', until: 'revoked', label: 'this client, until revoked', persisted: true },
  'everyone-session': { who: 'every', until: 'session', label: 'every client, until Airlock stops', persisted: false },
  always: { who: 'every', until: 'revoked', label: 'every client, until revoked', persisted: true },
};

export function isGrantScope(scope: string): scope is GrantScope {
  return (GRANT_SCOPES as readonly string[]).includes(scope);
}

/** Scopes that last until someone revokes them (never offered for a destructive call). */
export function untilRevoked(scope: string): boolean {
  return isGrantScope(scope) && GRANT_SCOPE_INFO[scope].until === 'revoked';
}

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
    /** The approval a person was asked (absent: no one was, a grant or an earlier yes answered). */
    id: z.string().optional(),
    /** A server's question: the person's answer. */
    answer: questionAnswerSchema.optional(),
  }),
  z.object({ approved: z.literal(false), by: z.string(), reason: z.string(), at: z.string(), code: z.enum(DENIAL_CODES), id: z.string().optional() }),
]);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const decideInputSchema = z
  .object({
    id: z.string().max(100),
    decision: z.enum(['approve', 'deny']),
    scope: approveScopeSchema.optional(),
    reason: z.string().max(500).optional(),
    /** The answer to a server's question (with `approve`): a value by field name. */
    answer: questionAnswerSchema.optional(),
  })
  .strict();

/** Who let a call through without asking: a grant (`grant <id> (…)`) or an earlier yes in the same run. */
export const RUN_GRANT_BY = 'earlier approval (rest of run)';
export const grantBy = (grantId: string, detail: string): string => `grant ${grantId} (${detail})`;

/** Whether an approval was let through by an earlier answer (a grant or the run's "rest of this run"), not answered for this call. */
export function passedWithoutAsking(a: { by: string; grantId?: string | undefined }): boolean {
  return a.by === RUN_GRANT_BY || (a.grantId !== undefined && a.by.startsWith(`grant ${a.grantId} (`));
}

/**
 * The one rule for what may be granted: why a scope is not offered for a request, in words, or undefined when it is.
 * A call that overrides its method gets no grant (a grant is for the operation as the document describes it);
 * "this client, until revoked" needs a client that declared a name; a deletion is never allowed "until revoked".
 * The broker refuses with this text, and the prompt and the CLI show it.
 */
export function scopeWithheld(req: ApprovalRequest, scope: ApproveScope): string | undefined {
  if (req.kind === 'server-switch')
    return scope === 'once' ? undefined : `a server is switched on or off one yes at a time: nothing is granted for ${requestLine(req)}`;
  if (req.kind === 'server-question') return scope === 'once' ? undefined : `a server's question is answered once: nothing is granted`;
  const where = req.kind === 'api-call' ? `${req.method} ${req.pathTemplate}` : `${req.server}/${req.tool}`;
  if (req.kind === 'api-call' && req.override && isGrantScope(scope))
    return `no grant is offered for ${where}: the call overrides its method (${req.override.from} via ${req.override.via}); approve it once or for the rest of this run`;
  if (req.reason === 'destructive' && untilRevoked(scope))
    return `"until revoked" is not offered for ${where}: a deletion is approved one call, one run or one session at a time`;
  if (scope === 'client-always' && !req.caller.clientName && !req.caller.clientToken)
    return `"this client, until revoked" needs the name the client declares, and this client declared none`;
  return undefined;
}

/** The scopes a person may choose for a request, in order (see scopeWithheld). */
export function offeredScopes(req: ApprovalRequest): ApproveScope[] {
  return APPROVE_SCOPES.filter((scope) => scopeWithheld(req, scope) === undefined);
}

/** What the prompt says about the widest scopes when they are withheld for a deletion (undefined otherwise). */
export function untilRevokedWithheld(req: ApprovalRequest): string | undefined {
  return (req.kind === 'api-call' && req.override) || req.kind === 'server-switch' || req.kind === 'server-question' ? undefined : scopeWithheld(req, 'always');
}

export const grantSchema = z.object({
  id: z.string(),
  /** Who and how long: see GRANT_SCOPE_INFO. session: this client session; client-always: the client's declared name, until revoked; everyone-session: every client until Airlock stops; always: every client until revoked. */
  scope: z.enum(GRANT_SCOPES),
  profile: z.string(),
  operationId: z.string(),
  /** What it covers: absent in grants kept before the kinds (those are API calls, or tool calls whose method says TOOL: see callKindOf). */
  callKind: callKindSchema.optional(),
  /** An API call's method and path template; absent for a tool of another MCP server. */
  method: z.string().optional(),
  pathTemplate: z.string().optional(),
  /** The session it is bound to (session scope). */
  callerKey: z.string().optional(),
  /** The client that asked; for client-always, the declared name the grant is bound to (or its token's name). */
  clientName: z.string().optional(),
  /** client-always given to a client with a token of its own: bound to that token, not to a declared name. */
  clientTokenId: z.string().optional(),
  grantedBy: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().optional(),
  uses: z.number().int(),
});
export type Grant = z.infer<typeof grantSchema>;

/** What a grant covers, in one line: `POST /events`, `tool write_file of MCP server fs` (grants of any age). */
export function grantLine(g: Pick<Grant, 'callKind' | 'method' | 'pathTemplate' | 'profile' | 'operationId'>): string {
  return callLine(g);
}
