// The control API: one table from method name to its input and output
// schemas. The loopback HTTP API, Electron IPC, the web UI's client, the
// preload bridge and the CLI are all derived from it: adding a method here
// (and its handler) is the whole change.
import { z } from 'zod';
import { CONTROL_METHOD_NAMES, type ControlMethodName } from './methods.ts';
import { statusSchema, sessionSchema } from './status.ts';
import { settingsViewSchema, settingsUpdateSchema, settingsUpdateResultSchema } from './settings.ts';
import { profileViewSchema, profileSaveSchema, operationViewSchema, keyViewSchema, policySchema, documentSummarySchema } from './profiles.ts';
import { pendingApprovalSchema, approvalDecisionSchema, decideInputSchema, grantSchema } from './approvals.ts';
import { answeredSchema, rulesViewSchema } from './rules.ts';
import { auditQuerySchema, auditPageSchema, verifyResultSchema } from './audit.ts';
import { logEntrySchema, logQuerySchema, uiLogLineSchema } from './logs.ts';
import { engineApplyResultSchema, engineApplySchema, engineMatrixSchema } from './engine.ts';
import { apiNameInputSchema, apiViewSchema } from './apis.ts';
import {
  importableClientSchema,
  serverAcceptInputSchema,
  serverAddInputSchema,
  serverDirectInputSchema,
  serverImportInputSchema,
  serverImportResultSchema,
  serverEnableInputSchema,
  serverNameInputSchema,
  serverPolicyInputSchema,
  serverReviewSchema,
  serverViewSchema,
} from './servers.ts';
import {
  clientChangeInputSchema,
  clientChangeSchema,
  clientIdSchema,
  clientStatusSchema,
  clientTokenCreatedSchema,
  clientTokenCreateInputSchema,
  clientTokenViewSchema,
  clientUndoResultSchema,
} from './clients.ts';

const empty = z.object({}).strict();
const profileName = z.string().max(40);

export const controlContract = {
  status: { input: empty, output: statusSchema },
  'sessions.list': { input: empty, output: z.array(sessionSchema) },

  'settings.get': { input: empty, output: settingsViewSchema },
  'settings.update': { input: settingsUpdateSchema, output: settingsUpdateResultSchema },

  'profiles.list': { input: empty, output: z.array(profileViewSchema) },
  'profiles.save': { input: profileSaveSchema, output: z.object({ file: z.string(), restartRequired: z.boolean() }) },
  'profiles.remove': { input: z.object({ name: profileName }).strict(), output: z.object({ removed: z.boolean() }) },
  'profiles.operations': {
    input: z.object({ name: profileName.optional(), query: z.string().max(200).optional() }).strict(),
    output: z.array(operationViewSchema),
  },

  /** A served API's policy for one operation (null: back to the profile's; no profile: the primary API); applies to the next call, saved with the profile. */
  'profiles.setOperationPolicy': {
    input: z.object({ operationId: z.string().min(1).max(300), policy: policySchema.nullable(), profile: profileName.optional() }).strict(),
    output: z.object({ operation: operationViewSchema, saved: z.boolean() }),
  },

  /** Loads a document (URL or file path) as a new profile would, and says what it holds or where it is broken. */
  'profiles.inspect': {
    input: z.object({ spec: z.string().min(1).max(4000), allowExternalRefs: z.array(z.string().max(2000)).max(20).optional() }).strict(),
    output: documentSummarySchema,
  },

  /** Every API the companion knows (its profiles), enabled or not, with how its serving goes. */
  'apis.list': { input: empty, output: z.array(apiViewSchema) },
  /** Serves an API from now on (no restart): saved as enabled in its profile; resolves once it is loaded or failed. */
  'apis.enable': { input: apiNameInputSchema, output: apiViewSchema },
  /** Stops serving an API: new calls to it are refused; runs already going finish. Saved as disabled in its profile. */
  'apis.disable': { input: apiNameInputSchema, output: apiViewSchema },

  /** Other MCP servers behind Airlock, with their state; none is started by listing. */
  'servers.list': { input: empty, output: z.array(serverViewSchema) },
  /** Starts a server if needed and shows its tools and what changed since a person accepted them. */
  'servers.review': { input: serverNameInputSchema, output: serverReviewSchema },
  /** Accepts a server's tools as shown (the review's digest); refused when they changed since. */
  'servers.accept': { input: serverAcceptInputSchema, output: serverReviewSchema },
  /** Turns a server on or off (off: its process stops); saved in servers.json. */
  'servers.setEnabled': { input: serverEnableInputSchema, output: serverViewSchema },
  /** Offers a server's accepted tools to clients directly (`<server>__<tool>`, at most 40 in all), or stops offering them. */
  'servers.setDirect': { input: serverDirectInputSchema, output: serverViewSchema },
  /** Adds a server from a form's entry or a pasted JSON entry (inline values into the key store); it waits for review. */
  'servers.add': { input: serverAddInputSchema, output: serverViewSchema },
  /** Removes a server: its process stops; its secrets, sign-in and review go with it. */
  'servers.remove': {
    input: serverNameInputSchema,
    /** leftBehind: the key store entries (secrets, sign-in) that could not be removed with it (a keychain not readable here). */
    output: z.object({ removed: z.boolean(), leftBehind: z.array(z.string()).optional() }),
  },
  /** The servers each MCP client on this machine runs itself (never their secrets' values). */
  'servers.importable': { input: empty, output: z.array(importableClientSchema) },
  /** Moves a client's servers behind Airlock (dryRun: only what would change): previewed, backed up, undone by clients.undo. */
  'servers.import': { input: serverImportInputSchema, output: serverImportResultSchema },
  /** Signs in to a remote server behind OAuth: the companion opens the authorization page in the browser and waits (up to 5 minutes) for the person. */
  'servers.login': { input: serverNameInputSchema, output: serverViewSchema },
  /** Stops and starts a server again; a crash loop's stop ends. */
  'servers.restart': { input: serverNameInputSchema, output: serverViewSchema },
  /** The person's policy for one tool, or (no tool) the server's default; null clears it. Applies to the next call. */
  'servers.setPolicy': { input: serverPolicyInputSchema, output: serverReviewSchema },

  'keys.list': { input: empty, output: z.array(keyViewSchema) },
  'keys.set': { input: z.object({ profile: profileName, secret: z.string().min(1).max(16_384) }).strict(), output: z.object({ fingerprint: z.string() }) },
  'keys.remove': { input: z.object({ profile: profileName }).strict(), output: z.object({ removed: z.boolean() }) },

  'approvals.list': { input: empty, output: z.array(pendingApprovalSchema) },
  'approvals.decide': { input: decideInputSchema, output: approvalDecisionSchema },
  'approvals.denyAll': { input: z.object({ reason: z.string().max(500).optional() }).strict(), output: z.object({ denied: z.number() }) },

  /** Held calls that were answered (by a person, the timeout, or the client going away), newest first, from the audit. */
  'approvals.answered': { input: z.object({ limit: z.number().int().min(1).max(200).optional() }).strict(), output: z.array(answeredSchema) },

  /** The active profile's operations with their policy, the grants covering each, what is in effect, and hit counts from the audit. */
  'rules.list': { input: z.object({ profile: profileName.optional() }).strict(), output: rulesViewSchema },

  'grants.list': { input: empty, output: z.array(grantSchema) },
  'grants.revoke': { input: z.object({ id: z.string().max(100) }).strict(), output: z.object({ revoked: z.boolean() }) },
  'grants.revokeAll': { input: empty, output: z.object({ revoked: z.number() }) },

  'audit.query': { input: auditQuerySchema, output: auditPageSchema },
  'audit.verify': { input: empty, output: verifyResultSchema },

  'logs.query': { input: logQuerySchema, output: z.array(logEntrySchema) },
  /** A one-time login link for the web UI (two minutes, single use); `airlock open` asks for it. */
  'ui.loginLink': { input: empty, output: z.object({ url: z.string(), expiresAt: z.string() }) },
  /** The renderer's console, errors and uncaught exceptions, into the live log (source `ui`). */
  'logs.append': { input: z.object({ lines: z.array(uiLogLineSchema).max(200) }).strict(), output: z.object({ appended: z.number() }) },

  /** A new MCP token in <data dir>/token; the old one is refused at once and HTTP sessions end (clients need the new one). */
  'tokens.rotateMcp': { input: empty, output: z.object({ file: z.string(), endedSessions: z.number() }) },

  /** Each MCP client on this machine: installed, its file, registered, outdated or broken. */
  'clients.list': { input: empty, output: z.array(clientStatusSchema) },
  /** Registers Airlock in a client or takes it out (dryRun: the diff only); add ends with a handshake with the command written. */
  'clients.change': { input: clientChangeInputSchema, output: clientChangeSchema },
  /** Restores the client's file as it was before the last change. */
  'clients.undo': { input: z.object({ id: clientIdSchema }).strict(), output: clientUndoResultSchema },
  /** HTTP clients' own tokens (`airlock clients token list`): names, fingerprints, scopes; never a token. */
  'clientTokens.list': { input: empty, output: z.array(clientTokenViewSchema) },
  /** Makes a token for an HTTP client; the answer is the only place it ever appears. */
  'clientTokens.create': { input: clientTokenCreateInputSchema, output: clientTokenCreatedSchema },
  /** Revokes a client's token by its id: the client's next request is refused. */
  'clientTokens.revoke': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ revoked: clientTokenViewSchema }) },

  /** Every engine × egress combination with its state and derived policy. */
  'engine.matrix': { input: empty, output: engineMatrixSchema },
  /** Switches the running companion to a valid combination: the next run uses it; saved for later starts. */
  'engine.apply': { input: engineApplySchema, output: engineApplyResultSchema },
} as const;

export type ControlContract = typeof controlContract;
export type ControlMethod = keyof ControlContract;
export const CONTROL_METHODS: readonly ControlMethod[] = CONTROL_METHOD_NAMES;
// Both ways: every method in the table is named in methods.ts, and every name has a table entry.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const namesMatchTable: Same<ControlMethod, ControlMethodName> = true;
void namesMatchTable;
export type ControlInput<M extends ControlMethod> = z.input<ControlContract[M]['input']>;
export type ControlOutput<M extends ControlMethod> = z.output<ControlContract[M]['output']>;

export function isControlMethod(name: string): name is ControlMethod {
  return Object.hasOwn(controlContract, name);
}

/** Who is calling (for "decided by" and the audit trail). */
export interface ControlCaller {
  /** `alice via desktop`, `alice via web UI`, `alice via CLI`. */
  by: string;
  channel: 'http' | 'ipc' | 'web' | 'internal';
}

export const CONTROL_PREFIX = '/control';
export const controlPath = (method: ControlMethod): string => `${CONTROL_PREFIX}/rpc/${method}`;
