// The Clients screen: each MCP client on this machine with its registration
// state, and the changes (add, remove, undo) with the diff they make.
import { z } from 'zod';

export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'vscode-insiders',
  'windsurf',
  'codex',
  'gemini',
  'zed',
  'lmstudio',
  'cline',
] as const;
export const clientIdSchema = z.enum(CLIENT_IDS);

/** An API's name in a registration's scope (`airlock stdio --api NAME`, `/mcp?api=NAME`). */
import { API_NAME } from './names.ts';

export { API_NAME };
/**
 * A registration's scope: the APIs the client's session reaches. Absent (or empty): every API the companion serves,
 * including ones added later.
 */
export const clientScopeSchema = z.array(z.string().regex(API_NAME, 'an API name is 1 to 40 letters, digits, _, $ or -')).max(100);

export const clientStatusSchema = z.object({
  id: clientIdSchema,
  label: z.string(),
  state: z.enum(['not-installed', 'not-registered', 'registered', 'outdated', 'broken']),
  file: z.string().optional(),
  reason: z.string().optional(),
  via: z.enum(['cli', 'file']),
  afterwards: z.string(),
  elicitation: z.boolean(),
  installLink: z.string().optional(),
  /** When Airlock last changed this client's file: undo restores it as it was before. Absent when there is nothing to undo. */
  lastChangeAt: z.string().optional(),
  /** The registration's scope (registered only): the APIs it reaches. Absent: every API served. */
  apis: clientScopeSchema.optional(),
});
export type ClientStatusView = z.infer<typeof clientStatusSchema>;

export const handshakeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), tools: z.array(z.string()), ms: z.number() }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);

export const clientChangeSchema = z.object({
  id: clientIdSchema,
  action: z.enum(['add', 'remove']),
  changed: z.boolean(),
  dryRun: z.boolean(),
  file: z.string(),
  diff: z.string(),
  via: z.enum(['cli', 'file']),
  command: z.array(z.string()).optional(),
  backup: z.string().optional(),
  afterwards: z.string(),
  handshake: handshakeSchema.optional(),
  /** The scope an add writes (or would write). Absent: every API served. */
  apis: clientScopeSchema.optional(),
});

export const clientChangeInputSchema = z
  .object({
    id: clientIdSchema,
    action: z.enum(['add', 'remove']),
    dryRun: z.boolean().optional(),
    /** add: the APIs the client reaches (its scope). Absent or empty: every API served. */
    apis: clientScopeSchema.optional(),
  })
  .strict();
export const clientUndoResultSchema = z.object({ id: clientIdSchema, file: z.string(), backup: z.string(), restored: z.enum(['previous', 'removed']) });

/** An HTTP client's own token, as shown: never the token nor its hash; the first 12 hex digits of its sha256 name it. */
export const clientTokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The APIs the token reaches. Absent: every API served. */
  scope: z.array(z.string()).optional(),
  createdAt: z.string(),
  fingerprint: z.string(),
});
export type ClientTokenView = z.infer<typeof clientTokenViewSchema>;

export const clientTokenCreateInputSchema = z
  .object({
    /** A name for the client: 1 to 100 letters, digits, spaces, '.', '-', '_' or '@'; one token per name. */
    name: z.string().max(100),
    /** The APIs the token reaches. Absent or empty: every API served. */
    apis: clientScopeSchema.optional(),
  })
  .strict();
/** The token is in this answer only: it is never kept, and never shown again. */
export const clientTokenCreatedSchema = z.object({ token: z.string(), view: clientTokenViewSchema });
