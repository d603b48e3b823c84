// Signing in to a remote MCP server behind OAuth, as the MCP authorization
// spec says (issue 20). The SDK does the protocol: it discovers the protected
// resource and the authorization server, registers a client (dynamically, or
// with a client ID metadata document, or uses a pre-registered one), sends
// the person to the authorization page with PKCE, exchanges the code and
// refreshes the token when it expires. This is what it keeps and asks for:
// the client registration, the tokens and the PKCE verifier live in the key
// store under the server's `oauth` account (never in a file of ours), and the
// authorization itself is asked of `authorize` — the browser flow of `airlock
// servers login`, or, where no person is at hand (the companion serving a
// script), a refusal that says to sign in.
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationContext,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { SecretStore } from '../secrets/secretStore.ts';
import { secretAccount } from './serverEntry.ts';

/** The key-store name the OAuth state of a server is kept under (beside its secrets). */
export const OAUTH_SECRET = 'oauth';

interface Stored {
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  verifier?: string;
  /** Which authorization server a sign-in under way was sent to: its answer must come from that one (SEP-2352). */
  discovery?: OAuthDiscoveryState;
}

export interface OAuthOptions {
  keys: Pick<SecretStore, 'get' | 'set'>;
  /** Where the authorization server sends the person back. */
  redirectUrl: string;
  /**
   * Takes the person to the authorization page and resolves with the query it sends back, state checked: the code,
   * and the issuer where the authorization server names it (RFC 9207, checked by the SDK against the one it asked);
   * rejects when no person can sign in now.
   */
  authorize(url: URL): Promise<URLSearchParams>;
  /** Learns each token as it arrives, so no log line, result or record ever shows one. */
  onSecret(value: string): void;
  /** A client registered beforehand (`client_id`, maybe `client_secret`), instead of registering one. */
  preRegistered?: OAuthClientInformationMixed;
  /** A client ID metadata document's URL, where the authorization server accepts one instead of registering. */
  clientMetadataUrl?: string;
  scope?: string;
}

export interface AirlockOAuth extends OAuthClientProvider {
  /** What `authorize` resolved with, once the SDK has sent the person to authorize (else undefined). */
  pendingCallback(): Promise<URLSearchParams> | undefined;
}

/** What Airlock says of itself as an OAuth client: registered dynamically, or published as a client ID metadata document. */
export function clientMetadata(redirectUrl: string, scope?: string): OAuthClientMetadata {
  return {
    client_name: 'Airlock',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(scope ? { scope } : {}),
  };
}

/** The client ID metadata document to publish at `url`: Airlock's metadata, with that URL as its client_id. */
export function clientMetadataDocument(url: string, redirectUrl: string): OAuthClientMetadata & { client_id: string } {
  return { client_id: url, ...clientMetadata(redirectUrl) };
}

export function oauthProvider(server: string, options: OAuthOptions): AirlockOAuth {
  const account = secretAccount(server, OAUTH_SECRET);
  let cache: Stored | undefined;
  let pending: Promise<URLSearchParams> | undefined;
  const load = async (): Promise<Stored> => {
    if (cache) return cache;
    const raw = await options.keys.get(account);
    try {
      cache = raw ? (JSON.parse(raw) as Stored) : {};
    } catch {
      cache = {};
    }
    for (const value of [cache.tokens?.access_token, cache.tokens?.refresh_token]) if (value) options.onSecret(value);
    return cache;
  };
  const save = async (change: Partial<Stored>) => {
    cache = { ...(await load()), ...change };
    await options.keys.set(account, JSON.stringify(cache));
  };
  const metadata = clientMetadata(options.redirectUrl, options.scope);
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    // A fresh state for each sign-in: the callback takes back only the answer to this one.
    state: () => randomBytes(16).toString('hex'),
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    get clientMetadata() {
      return metadata;
    },
    // A registration and tokens are the authorization server's that issued them (the SDK stamps its issuer on them):
    // asked for another's, there are none, so a server that moved to another authorization server is registered with
    // anew and signed in to there, and nothing of the first is shown to the second (SEP-2352).
    clientInformation: async (ctx) => options.preRegistered ?? issuedBy((await load()).client, ctx),
    saveClientInformation: async (client) => save({ client }),
    tokens: async (ctx) => issuedBy((await load()).tokens, ctx),
    saveTokens: async (tokens) => {
      for (const value of [tokens.access_token, tokens.refresh_token]) if (value) options.onSecret(value);
      // The sign-in is over: where it went is found again next time, so a move to another authorization server is seen.
      await save({ tokens, discovery: undefined });
    },
    redirectToAuthorization: (url) => {
      pending = options.authorize(url);
      // Handled where the code is awaited; never an unhandled rejection here.
      pending.catch(() => undefined);
    },
    saveCodeVerifier: async (verifier) => save({ verifier }),
    saveDiscoveryState: async (discovery) => save({ discovery }),
    discoveryState: async () => (await load()).discovery,
    codeVerifier: async () => {
      const verifier = (await load()).verifier;
      if (!verifier) throw new Error('no PKCE verifier was saved for this sign-in');
      return verifier;
    },
    invalidateCredentials: async (scope) => {
      const now = await load();
      if (scope === 'all') await save({ client: undefined, tokens: undefined, verifier: undefined, discovery: undefined });
      else if (scope === 'client') await save({ ...now, client: undefined });
      else if (scope === 'tokens') await save({ ...now, tokens: undefined });
      else if (scope === 'verifier') await save({ ...now, verifier: undefined });
      else if (scope === 'discovery') await save({ ...now, discovery: undefined });
    },
    pendingCallback: () => {
      const callback = pending;
      pending = undefined;
      return callback;
    },
  };
}

/** What was stored, unless the SDK asks for an authorization server's and it was issued by another. */
function issuedBy<T extends { issuer?: string | undefined }>(stored: T | undefined, ctx: OAuthClientInformationContext | undefined): T | undefined {
  if (!stored || !ctx?.issuer || !stored.issuer) return stored;
  return stored.issuer === ctx.issuer ? stored : undefined;
}
