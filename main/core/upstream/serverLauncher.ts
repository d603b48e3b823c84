// Starting one MCP server from its entry: its secrets read from the key
// store by name (each one handed to the redactor before the server can echo
// it); a stdio server started with its environment (childEnvironment.ts) and
// the login shell's PATH, a remote one reached over HTTP with its headers
// (httpConnection.ts); then Airlock connected to it as a client. The CLI
// (`airlock servers show`, `accept`) and the companion's servers start a
// server the same way, here.
import type { SecretStore } from '../secrets/secretStore.ts';
import { childEnvironment, loginShellPath } from './childEnvironment.ts';
import { connectStdio, type ElicitHandler, type UpstreamConnection } from './upstreamClient.ts';
import { checkedFetch, connectHttp, DEFAULT_MAX_MESSAGE_BYTES } from './httpConnection.ts';
import { CrossAppAccessProvider } from './crossAppAccess.ts';
import { oauthProvider } from './oauthProvider.ts';
import { AirlockError } from '../util/errors.ts';
import { CLIENT_SECRET, IDP_ID_TOKEN, REDACTED_FROM_LENGTH, secretAccount, secretNames, type ServerEntry } from './serverEntry.ts';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';

export interface LaunchOptions {
  /** Its secrets are read here; a remote server's sign-in (OAuth tokens) is kept here too. */
  keys: Pick<SecretStore, 'get' | 'set'>;
  /** Each secret read, before the server starts: the redactor learns it. */
  onSecret(value: string): void;
  /** The server's stderr lines and refused messages, redacted. */
  log(line: string): void;
  redact(text: string): string;
  /** Airlock's own environment (what `env` passes through from). */
  parent?: Readonly<Record<string, string | undefined>>;
  /** PATH as a login shell gives it; read once per process by default. */
  loginPath?: () => Promise<string | undefined>;
  /** A secret the key store does not hold: the server starts without it, and this says so. */
  onMissingSecret?(variable: string): void;
  /** The server said its tools changed. */
  onToolsChanged?(): void;
  /** Puts the server's questions (elicitation) to the person; absent, the server cannot ask. */
  elicit?: ElicitHandler;
  /** The largest message to or from the server, in bytes (default 10 MB). */
  maxMessageBytes?: number;
  /**
   * A remote server behind OAuth: takes the person to its authorization page and resolves with the code (the
   * browser flow of `airlock servers login`). Absent (the companion, serving scripts), a server that needs a
   * sign-in fails with the line that signs in.
   */
  authorize?(url: URL): Promise<URLSearchParams>;
}

/** Where an authorization server sends the person back after a sign-in (the login's loopback listener). */
export const OAUTH_CALLBACK_PORT = 33418;
export const OAUTH_REDIRECT_URL = `http://127.0.0.1:${OAUTH_CALLBACK_PORT}/callback`;

let loginPathOnce: Promise<string | undefined> | undefined;

/** PATH as the person's login shell sets it, read once per process (a shell start costs tens of milliseconds). */
export function cachedLoginPath(): Promise<string | undefined> {
  loginPathOnce ??= loginShellPath();
  return loginPathOnce;
}

export async function launchServer(name: string, entry: ServerEntry, options: LaunchOptions): Promise<UpstreamConnection> {
  // Its secrets (a stdio server's variables, an HTTP server's header values), each known to the redactor before the server starts.
  const secrets: Record<string, string> = {};
  for (const secret of secretNames(entry)) {
    const value = await options.keys.get(secretAccount(name, secret));
    if (value === undefined) {
      options.onMissingSecret?.(secret);
      continue;
    }
    // A value too short to be a key (`info`, `true`, a port) would be scrubbed from every text it appears in: not learnt.
    if (value.length >= REDACTED_FROM_LENGTH) options.onSecret(value);
    secrets[secret] = value;
  }
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const common = {
    log: options.log,
    redact: options.redact,
    maxMessageBytes,
    ...(options.onToolsChanged ? { onToolsChanged: options.onToolsChanged } : {}),
    ...(options.elicit ? { elicit: options.elicit } : {}),
  };
  if (entry.transport === 'http' && entry.crossApp) {
    // Signed in through the person's identity provider: its ID token exchanged for a grant, the grant for a token.
    const { [CLIENT_SECRET]: clientSecret, [IDP_ID_TOKEN]: idToken, ...headers } = secrets;
    for (const [secret, value] of [
      [CLIENT_SECRET, clientSecret],
      [IDP_ID_TOKEN, idToken],
    ] as const) {
      if (!value) {
        throw new AirlockError('config', `MCP server ${name} signs in through an identity provider, and its ${secret} secret is not set`, {
          hint: `airlock servers secret ${name} ${secret}`,
        });
      }
    }
    // The ID token is read again at each sign-in: a fresh one set meanwhile is the one used.
    const oauth = new CrossAppAccessProvider({
      serverUrl: entry.url,
      clientId: entry.crossApp.clientId,
      clientSecret: clientSecret!,
      idpTokenEndpoint: entry.crossApp.idpTokenEndpoint,
      idpClientId: entry.crossApp.idpClientId,
      idToken: async () => {
        const current = (await options.keys.get(secretAccount(name, IDP_ID_TOKEN))) ?? idToken!;
        options.onSecret(current);
        return current;
      },
      ...(entry.crossApp.scope ? { scope: entry.crossApp.scope } : {}),
      fetch: checkedFetch(entry, { maxMessageBytes }),
      onSecret: options.onSecret,
    });
    return connectHttp(name, entry, { headers, oauth, ...common });
  }
  if (entry.transport === 'http' && entry.clientCredentials) {
    // A machine-to-machine server: Airlock signs in as its client; the header values are sent as well.
    const { [CLIENT_SECRET]: credential, ...headers } = secrets;
    if (!credential) {
      throw new AirlockError('config', `MCP server ${name} signs in as an OAuth client, and its ${CLIENT_SECRET} secret is not set`, {
        hint: `airlock servers secret ${name} ${CLIENT_SECRET}`,
      });
    }
    options.onSecret(credential);
    const cc = entry.clientCredentials;
    const oauth =
      cc.auth === 'private-key-jwt'
        ? new PrivateKeyJwtProvider({
            clientId: cc.clientId,
            privateKey: credential,
            algorithm: cc.algorithm ?? 'RS256',
            ...(cc.scope ? { scope: cc.scope } : {}),
          })
        : new ClientCredentialsProvider({ clientId: cc.clientId, clientSecret: credential, ...(cc.scope ? { scope: cc.scope } : {}) });
    return connectHttp(name, entry, { headers, oauth, ...common });
  }
  if (entry.transport === 'http') {
    const oauth = oauthProvider(name, {
      keys: options.keys,
      redirectUrl: OAUTH_REDIRECT_URL,
      onSecret: options.onSecret,
      ...(entry.clientMetadataUrl ? { clientMetadataUrl: entry.clientMetadataUrl } : {}),
      authorize:
        options.authorize ??
        (() =>
          Promise.reject(
            new AirlockError('denied', `MCP server ${name} needs you to sign in`, {
              hint: `airlock servers login ${name}, then airlock servers restart ${name}`,
            }),
          )),
    });
    return connectHttp(name, entry, { headers: secrets, oauth, ...common });
  }
  const loginPath = await (options.loginPath ?? cachedLoginPath)();
  const env = childEnvironment({ pass: entry.env, secrets, parent: options.parent ?? process.env, ...(loginPath ? { loginPath } : {}) });
  return connectStdio(name, entry, { env, ...common });
}
