// Other MCP servers behind Airlock (issue 20), as the Servers screen and
// `airlock servers` see them: each one's state while the companion runs, its
// tools with the policy a call to each gets, and the review — what a person
// accepted against what the server says now, as a diff. `servers.accept`
// names the digest of what the person was shown, so a server that changes
// its tools between the look and the yes is not accepted.
import { z } from 'zod';
import { SERVER_NAME } from './names.ts';

export const serverStateSchema = z.enum(['disabled', 'configured', 'starting', 'connected', 'failed', 'stopped']);
export const toolPolicySchema = z.enum(['allow', 'ask', 'deny']);
export const reviewStateSchema = z.enum(['unreviewed', 'accepted', 'changed']);

export const serverViewSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** The command line (stdio) or the URL (http). */
  target: z.string(),
  enabled: z.boolean(),
  state: serverStateSchema,
  /** Connected: how many tools it lists. */
  toolCount: z.number().int().optional(),
  /** Failed or stopped: why. */
  reason: z.string().optional(),
  /** A stdio server whose command is not found on the PATH it is started with: why (it fails to start until the command is there). */
  commandMissing: z.string().optional(),
  /** Its last stderr lines, redacted. */
  stderr: z.array(z.string()),
  /** How its tools compare with what a person accepted; absent until they were listed once (and nothing was accepted). */
  review: reviewStateSchema.optional(),
  defaultPolicy: toolPolicySchema.optional(),
  /** Its accepted tools are offered to clients directly too (`<server>__<tool>`). */
  direct: z.boolean().optional(),
  /** A remote server a person signs in to (OAuth, authorization code): whether a sign-in is kept. */
  signIn: z.enum(['not-needed', 'signed-in', 'not-signed-in']).optional(),
  /** The names of the variables it is given from the key store, and whether each is set (absent: the key store could not be read). */
  secrets: z.array(z.object({ name: z.string(), set: z.boolean().optional() })),
  /** Why the key store could not be read, when it could not (the secrets' state is unknown). */
  secretsUnknown: z.string().optional(),
});
export type ServerView = z.infer<typeof serverViewSchema>;

export const serverToolSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  /** What its annotations say (a hint from the server). */
  kind: z.enum(['read-only', 'writes', 'may-destroy']),
  /** What a call does once the server's tools are accepted (while they are held, every call is refused): the person's policy for it, else the server's default, else by its kind. */
  effective: toolPolicySchema,
  /** The person's policy for this tool, if set. */
  policy: toolPolicySchema.optional(),
  inputSchema: z.unknown(),
});

export const serverReviewSchema = z.object({
  name: z.string(),
  tools: z.array(serverToolSchema),
  state: reviewStateSchema,
  /** What differs from what was accepted (every tool, as added, when nothing was). */
  changes: z.array(z.object({ tool: z.string(), change: z.enum(['added', 'removed', 'changed']), diff: z.string() })),
  /** Of the tool definitions shown: `servers.accept` accepts only these. */
  digest: z.string(),
});
export type ServerReview = z.infer<typeof serverReviewSchema>;

const serverName = z.string().regex(SERVER_NAME);
export const serverNameInputSchema = z.object({ name: serverName }).strict();
export const serverAcceptInputSchema = z.object({ name: serverName, digest: z.string().max(100) }).strict();
export const serverEnableInputSchema = z.object({ name: serverName, enabled: z.boolean() }).strict();
export const serverDirectInputSchema = z.object({ name: serverName, direct: z.boolean() }).strict();
export const serverPolicyInputSchema = z
  .object({ name: serverName, tool: z.string().min(1).max(200).optional(), policy: toolPolicySchema.nullable() })
  .strict();

/** A server to add: a form's entry, or a JSON entry pasted in any client's format (its inline values go to the key store). */
export const serverAddInputSchema = z
  .object({
    name: serverName,
    /** The entry as the form builds it (see main/core/upstream/serverEntry.ts). */
    entry: z.record(z.string(), z.unknown()).optional(),
    /** Or one server's entry as a client writes it (`{"command": …}`, `{"url": …}`), or a whole `{"mcpServers": {…}}` holding one. */
    json: z.string().max(200_000).optional(),
  })
  .strict();

/** A server of a client's own, as the import shows it: never the values of its secrets. */
export const importableServerSchema = z.object({
  from: z.string(),
  name: z.string(),
  target: z.string().optional(),
  secrets: z.array(z.string()),
  problem: z.string().optional(),
  notes: z.array(z.string()),
});

export const importableClientSchema = z.object({
  client: z.string(),
  label: z.string(),
  file: z.string().optional(),
  /** Why its file could not be read (its servers are then unknown). */
  error: z.string().optional(),
  servers: z.array(importableServerSchema),
});

export const serverImportInputSchema = z
  .object({
    client: z.string().max(40),
    servers: z.array(z.string().max(200)).max(200).optional(),
    all: z.boolean().optional(),
    dryRun: z.boolean().optional(),
    /** The preview's digest: the move is made only if it would still do exactly what was previewed. */
    digest: z.string().max(100).optional(),
  })
  .strict();

export const serverImportResultSchema = z.object({
  moved: z.array(z.string()),
  refused: z.array(z.object({ from: z.string(), problem: z.string() })),
  /** The client's file afterwards, as a diff (its inline values scrubbed). */
  diff: z.string(),
  dryRun: z.boolean(),
  /** Of what this preview shows: pass it back to move exactly this. */
  digest: z.string(),
  backup: z.string().optional(),
  afterwards: z.string().optional(),
});
