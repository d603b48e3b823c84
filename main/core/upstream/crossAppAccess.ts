// Cross-app access (SEP-990, "enterprise-managed authorization"): a person's
// organisation signs them in to its identity provider (IdP) once, and each
// MCP server's authorization server trusts grants that IdP issues. Airlock,
// as the server's OAuth client:
//   1. exchanges the person's ID token at the IdP's token endpoint for an
//      identity assertion authorization grant (an ID-JAG; RFC 8693 token
//      exchange), naming the authorization server (audience) and the MCP
//      server (resource) it is for;
//   2. gives that grant to the authorization server (RFC 7523 JWT bearer
//      grant), signing in as its own client with its secret, and gets the
//      access token.
// The MCP SDK drives the rest (discovery, the token request, retrying after
// a 401); this provider supplies step 1 and the grant of step 2. The ID
// token comes from the key store (the `idp-id-token` secret): Airlock does
// not sign the person in to the IdP itself.
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { AirlockError } from '../util/errors.ts';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

export interface CrossAppOptions {
  /** The MCP server's URL: the resource, when its metadata names none. */
  serverUrl: string;
  /** Airlock's client at the server's authorization server, and its secret. */
  clientId: string;
  clientSecret: string;
  /** The IdP's token endpoint and Airlock's client there. */
  idpTokenEndpoint: string;
  idpClientId: string;
  /** The person's ID token from the IdP. */
  idToken(): Promise<string>;
  scope?: string;
  /** How the IdP is reached (the checked fetch: no cloud metadata address, no private one unless allowed). */
  fetch: typeof fetch;
  /** Learns each token as it arrives, so no log line or record shows one. */
  onSecret(value: string): void;
}

export class CrossAppAccessProvider implements OAuthClientProvider {
  private saved: OAuthTokens | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private readonly options: CrossAppOptions;

  constructor(options: CrossAppOptions) {
    this.options = options;
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Airlock',
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.options.clientId, client_secret: this.options.clientSecret };
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.options.onSecret(tokens.access_token);
    this.saved = tokens;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  redirectToAuthorization(): void {
    throw new AirlockError('denied', 'a cross-app access server is signed in to through the identity provider, never a browser');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new AirlockError('denied', 'a cross-app access server has no authorization code flow');
  }

  /** Step 1 at the IdP, then the JWT bearer grant the SDK sends to the authorization server. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const grant = await this.exchangeIdToken(scope);
    return new URLSearchParams({ grant_type: JWT_BEARER, assertion: grant, ...(scope ? { scope } : {}) });
  }

  private async exchangeIdToken(scope: string | undefined): Promise<string> {
    // The grant is for the authorization server discovery found (the one the token request then goes to), and only
    // when its metadata says it is that server: metadata naming another issuer could get a grant for a server that
    // is not the one the grant is sent to.
    const audience = this.discovery?.authorizationServerUrl;
    if (!audience) throw new AirlockError('unavailable', "the server's authorization server is not known yet: discovery found none");
    const issuer = this.discovery?.authorizationServerMetadata?.issuer;
    if (issuer !== undefined && issuer.replace(/\/+$/, '') !== audience.replace(/\/+$/, '')) {
      throw new AirlockError('denied', `the authorization server at ${audience} says it is ${issuer}: no grant is asked for a server that names another`);
    }
    const resource = this.discovery?.resourceMetadata?.resource ?? this.options.serverUrl;
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: await this.options.idToken(),
      subject_token_type: ID_TOKEN,
      audience,
      resource,
      client_id: this.options.idpClientId,
      ...(scope ? { scope } : {}),
    });
    const answer = await this.options.fetch(this.options.idpTokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    });
    const text = await answer.text();
    let parsed: { access_token?: unknown; issued_token_type?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      // Said below.
    }
    if (!answer.ok || typeof parsed.access_token !== 'string') {
      const said = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : '');
      const why = said(parsed.error)
        ? `${said(parsed.error)}${said(parsed.error_description) ? `: ${said(parsed.error_description)}` : ''}`
        : `HTTP ${answer.status}`;
      throw new AirlockError('denied', `the identity provider refused the token exchange (${why})`, {
        hint: 'is the ID token (the idp-id-token secret) current? airlock servers secret NAME idp-id-token',
      });
    }
    if (parsed.issued_token_type !== undefined && parsed.issued_token_type !== ID_JAG) {
      throw new AirlockError('denied', `the identity provider issued a ${String(parsed.issued_token_type)}, not an authorization grant (ID-JAG)`);
    }
    this.options.onSecret(parsed.access_token);
    return parsed.access_token;
  }
}
