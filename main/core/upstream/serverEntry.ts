// An MCP server Airlock stands in front of (issue 20): how to reach it — a
// command it starts (stdio) or a URL (Streamable HTTP, or legacy SSE) — and
// what it may be given. The child's environment is empty but for the
// variables named here: `env` passed through from Airlock's own, `secrets`
// read from the OS keychain at spawn (childEnvironment.ts). Header values of
// an HTTP server come from the keychain the same way. No value of a secret
// is ever written in this entry.
import { isLoopbackAddress } from '../http/requestGuards.ts';
import { posix, win32 } from 'node:path';
import { z } from 'zod';
import { SERVER_NAME } from '../../../contract/names.ts';
import { INLINE_SECRET_MIN_CHARS } from '../log/redactor.ts';

export { SERVER_NAME };
/** An environment variable's name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** An HTTP header's name, as its secret is kept under it: letters, digits, - and _ (every header a server asks for in practice). */
export const HEADER_NAME = /^[A-Za-z0-9_-]{1,100}$/;
/** The shortest secret value the redactor learns (an imported server's inline values are all kept as secrets, `LOG_LEVEL=info` too). */
export const REDACTED_FROM_LENGTH = INLINE_SECRET_MIN_CHARS;
/** A call (or a start) without an answer or a progress notification for this long fails. */
export const DEFAULT_TIMEOUT_MS = 60_000;

const envName = z.string().regex(ENV_NAME, 'is not an environment variable name (letters, digits and _; not starting with a digit)');

const policy = z.enum(['allow', 'ask', 'deny']);

const common = {
  enabled: z.boolean().default(true),
  timeoutMs: z.number().int().min(1000).max(3_600_000).default(DEFAULT_TIMEOUT_MS),
  /** The person's default for this server's tools (toolPolicy.ts); absent: by each tool's annotations. */
  defaultPolicy: policy.optional(),
  /** The person's policy for single tools, by the tool's name: first of all. */
  toolPolicies: z.record(z.string().min(1).max(200), policy).optional(),
  /** Its accepted tools are also offered to clients directly, as `<server>__<tool>` (the person opts in per server). */
  direct: z.boolean().optional(),
  /** Started when the companion starts, not on first use (a server slow to start, or one whose state a person watches). */
  autostart: z.boolean().optional(),
};

export const stdioServerSchema = z
  .object({
    transport: z.literal('stdio'),
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(8192)).max(200).default([]),
    /** Variables of Airlock's own environment passed through, by name (never Airlock's own settings and key, AIRLOCK_*). */
    env: z
      .array(envName.refine((n) => !n.toUpperCase().startsWith('AIRLOCK_'), "is one of Airlock's own (AIRLOCK_*), never passed to a server"))
      .max(100)
      .default([]),
    /** Variables set from the keychain at spawn, by name (not PATH, which Airlock sets). */
    secrets: z
      .array(envName.refine((n) => n.toUpperCase() !== 'PATH', 'cannot be PATH (Airlock sets it)'))
      .max(50)
      .default([]),
    ...common,
  })
  .strict();

export const httpServerSchema = z
  .object({
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    /** Headers sent with every request, their values from the keychain, by name. */
    headers: z.array(z.string().regex(HEADER_NAME, 'is not an HTTP header name')).max(50).default([]),
    /** Private and loopback addresses refused unless this is set (cloud metadata addresses always are). */
    allowPrivateNetwork: z.boolean().default(false),
    /**
     * A machine-to-machine server: Airlock signs in as this OAuth client (the client credentials grant), with a
     * secret or a private key kept in the key store as its `oauth-client` secret, instead of a person's sign-in.
     */
    clientCredentials: z
      .object({
        clientId: z.string().min(1).max(500),
        /** How the client proves itself: its secret (HTTP Basic), or a JWT signed with its private key. */
        auth: z.enum(['client-secret', 'private-key-jwt']).default('client-secret'),
        /** For private-key-jwt: the key's signing algorithm. */
        algorithm: z.string().max(20).optional(),
        scope: z.string().max(1000).optional(),
      })
      .strict()
      .optional(),
    /**
     * Cross-app access (an enterprise identity provider's extension of MCP authorization): Airlock exchanges the
     * person's ID token from their identity provider (the `idp-id-token` secret) for an authorization grant there,
     * then that grant for an access token at the server's authorization server, signing in as `clientId` with its
     * secret (the `oauth-client` secret). No browser and no authorization page.
     */
    crossApp: z
      .object({
        clientId: z.string().min(1).max(500),
        // The ID token and the grant travel to it: HTTPS, or plain HTTP on this machine only.
        idpTokenEndpoint: z
          .url({ protocol: /^https?$/ })
          .refine(
            (u) => URL.canParse(u) && (new URL(u).protocol === 'https:' || isLoopbackAddress(new URL(u).hostname)),
            'must be HTTPS (plain HTTP only for an identity provider on this machine)',
          ),
        idpClientId: z.string().min(1).max(500),
        scope: z.string().max(1000).optional(),
      })
      .strict()
      .optional(),
    /**
     * Where Airlock's OAuth client metadata document is published (HTTPS, with a path): an authorization server
     * that accepts client ID metadata documents gets this URL as Airlock's client_id instead of a registration.
     * `airlock servers client-metadata URL` prints the document to publish there.
     */
    clientMetadataUrl: z
      .url({ protocol: /^https$/ })
      .refine((u) => URL.canParse(u) && new URL(u).pathname.length > 1, 'needs a path (https://example.org/airlock/client.json)')
      .optional(),
    ...common,
  })
  .strict()
  .refine((e) => [e.clientCredentials, e.crossApp, e.clientMetadataUrl].filter((x) => x !== undefined).length <= 1, {
    message: 'clientCredentials, crossApp and clientMetadataUrl are three ways to sign in: give one',
  });

export const serverEntrySchema = z.discriminatedUnion('transport', [stdioServerSchema, httpServerSchema]);
export type ServerEntry = z.infer<typeof serverEntrySchema>;
export type StdioServerEntry = z.infer<typeof stdioServerSchema>;
export type HttpServerEntry = z.infer<typeof httpServerSchema>;

/**
 * Why a command may not be run, if it may not. A bare name is found on PATH at spawn; an absolute path is taken
 * as it is; a relative path (whose meaning would depend on where Airlock was started) and a path that climbs
 * with `..` are refused.
 */
export function commandProblem(command: string): string | undefined {
  if (command.trim() !== command || command.length === 0) return 'is empty or starts or ends with spaces';
  if (command.includes('\0')) return 'holds a NUL character';
  if (command.split(/[\\/]/).includes('..')) return "climbs out of its folder with '..': give an absolute path, or a command found on PATH";
  if (/[\\/]/.test(command) && !posix.isAbsolute(command) && !win32.isAbsolute(command)) {
    return 'is a relative path: give an absolute path, or a command found on PATH';
  }
  return undefined;
}

/** The account a secret of a server is kept under in the keychain (beside API profiles' keys). */
export function secretAccount(server: string, variable: string): string {
  return `mcp-server:${server}:${variable}`;
}

/** The names a server's secrets are kept under: a stdio server's variables, an HTTP server's headers. */
export function secretNames(entry: ServerEntry): string[] {
  if (entry.transport === 'stdio') return entry.secrets;
  if (entry.crossApp) return [...entry.headers, CLIENT_SECRET, IDP_ID_TOKEN];
  return entry.clientCredentials ? [...entry.headers, CLIENT_SECRET] : entry.headers;
}

/** The key-store name of the ID token a cross-app access server's sign-in starts from. */
export const IDP_ID_TOKEN = 'idp-id-token';

/** The key-store name of a machine-to-machine server's client secret or private key. */
export const CLIENT_SECRET = 'oauth-client';

/** A server as a person reads it: the command line, or the URL. */
export function serverTarget(entry: ServerEntry): string {
  return entry.transport === 'stdio' ? [entry.command, ...entry.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ') : entry.url;
}
