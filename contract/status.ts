// What the companion is doing now: the Overview screen, `airlock doctor`
// against a running companion, the `health` MCP tool.
import { z } from 'zod';

export const sessionSchema = z.object({
  /** The key grants and limits are bound to. */
  key: z.string(),
  transport: z.enum(['stdio', 'http']),
  sessionId: z.string().optional(),
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  /** The MCP revision it speaks (the one agreed at initialize, or 2026-07-28), when known. */
  protocolVersion: z.string().optional(),
  connectedAt: z.string(),
  lastSeenAt: z.string(),
  inFlight: z.number(),
});
export type McpSession = z.infer<typeof sessionSchema>;

/** Where API keys live, in plain words (see main/core/secrets/secretStoreView.ts). */
export const secretStoreViewSchema = z.object({
  kind: z.enum(['keychain', 'file', 'memory']),
  osKeychain: z.boolean(),
  plaintext: z.boolean(),
  where: z.string(),
  available: z.boolean(),
  problem: z.string().optional(),
  action: z.string().optional(),
  alternatives: z.string().optional(),
  warning: z.string().optional(),
  detail: z.string(),
});
export type SecretStoreView = z.infer<typeof secretStoreViewSchema>;

/** The key an API runs with: where it came from (never the key itself) and its fingerprint. */
export const credentialStateSchema = z.object({
  source: z.enum(['keychain', 'file', 'env', 'none']),
  fingerprint: z.string().optional(),
  /** Source `env`: the variable it came from, AIRLOCK_KEY_<API> or (the API the command named only) AIRLOCK_API_KEY. */
  env: z.string().optional(),
});
export type CredentialStateView = z.infer<typeof credentialStateSchema>;

export const statusSchema = z.object({
  version: z.string(),
  pid: z.number(),
  startedAt: z.string(),
  uptimeSeconds: z.number(),
  dataDir: z.string(),
  memory: z.object({ rssBytes: z.number(), heapUsedBytes: z.number() }),
  /** The API meant where one is: the one the command named, else the first served (absent: none is served). */
  profile: z.string().optional(),
  api: z
    .object({
      title: z.string(),
      version: z.string(),
      operations: z.number(),
      baseUrl: z.string(),
      spec: z.string(),
      /** How the key is sent (`header:x-api-key`, `bearer`…); `none`: this API sends no key. */
      auth: z.string(),
    })
    .optional(),
  /** Every API served, with how its loading went (the Overview lists them). */
  apis: z.array(
    z.object({
      name: z.string(),
      id: z.string(),
      state: z.enum(['loading', 'ready', 'failed']),
      title: z.string().optional(),
      operations: z.number().optional(),
      error: z.string().optional(),
    }),
  ),
  endpoints: z.object({
    /** MCP Streamable HTTP, when the companion serves it. */
    http: z.string().optional(),
    /** The file holding the MCP token HTTP clients send as `Authorization: Bearer <token>` (never the token). */
    tokenFile: z.string().optional(),
    /** The stdio command a client config uses. */
    stdio: z.string(),
  }),
  engine: z.string(),
  egress: z.string(),
  banner: z.string().optional(),
  boundary: z.string(),
  killSwitch: z.boolean(),
  runs: z.object({ active: z.number(), queued: z.number(), maxConcurrent: z.number() }),
  sessions: z.array(sessionSchema),
  pendingApprovals: z.number(),
  keychain: z.object({ available: z.boolean(), detail: z.string() }),
  secretStore: secretStoreViewSchema,
  /** Headless companions: the command that starts this one again (same flags, same port). */
  startCommand: z.string().optional(),
  credential: credentialStateSchema,
  /** Set in the desktop app: whether the OS shows Airlock's notifications. */
  desktop: z.object({ notifications: z.enum(['enabled', 'unsupported', 'failed']), detail: z.string().optional() }).optional(),
});
export type Status = z.infer<typeof statusSchema>;
