// The driver the official MCP conformance suite starts to test Airlock as an
// MCP client (issue 20): `conformance client --command "node
// scripts/conformanceClient.ts"` appends the scenario server's URL and sets
// MCP_CONFORMANCE_SCENARIO. It connects with Airlock's own client for remote
// servers (httpConnection.ts: the checked fetch, Streamable HTTP then SSE),
// lists the tools, calls each one with arguments made from its schema, and
// stops. The suite's servers are on localhost, so private addresses are
// allowed here; a question a server asks (elicitation) is answered as a
// person accepting the defaults would, and a sign-in (OAuth) as a person
// approving on the authorization page would.
//   node scripts/conformanceClient.ts <server URL>
import { connectHttp } from '../main/core/upstream/httpConnection.ts';
import { CLIENT_SECRET, IDP_ID_TOKEN, secretAccount, type HttpServerEntry } from '../main/core/upstream/serverEntry.ts';
import { launchServer } from '../main/core/upstream/serverLauncher.ts';
import type { UpstreamConnection } from '../main/core/upstream/upstreamClient.ts';
import { oauthProvider } from '../main/core/upstream/oauthProvider.ts';
import { createMemoryStore } from '../main/core/secrets/memoryStore.ts';

const url = process.argv.at(-1);
if (!url || !/^https?:\/\//.test(url)) {
  process.stderr.write('usage: node scripts/conformanceClient.ts <server URL> (the conformance suite appends it)\n');
  process.exit(2);
}
const entry: HttpServerEntry = { transport: 'http', url, headers: [], allowPrivateNetwork: true, enabled: true, timeoutMs: 20_000 };
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Arguments for a tool from its schema: each property's default, else a small value of its type. */
function argumentsFor(schema: unknown): Record<string, unknown> {
  const properties = ((schema ?? {}) as { properties?: Record<string, { type?: string; default?: unknown; enum?: unknown[] }> }).properties ?? {};
  return Object.fromEntries(
    Object.entries(properties).map(([name, p]) => {
      if (p.default !== undefined) return [name, p.default];
      if (p.enum?.length) return [name, p.enum[0]];
      const sample: Record<string, unknown> = { number: 2, integer: 3, boolean: true, array: [], object: {} };
      return [name, sample[p.type ?? ''] ?? 'conformance'];
    }),
  );
}

/**
 * A person signing in, as the suite's authorization server expects one: its authorization page is opened (no
 * browser here: one request) and the code is read from where it sends the person back.
 */
async function authorize(url: URL): Promise<URLSearchParams> {
  const page = await fetch(url, { redirect: 'manual' });
  const location = page.headers.get('location');
  const callback = location ? new URL(location, url).searchParams : undefined;
  if (!callback?.get('code')) throw new Error(`the authorization page sent no code back (HTTP ${page.status})`);
  return callback;
}

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
/**
 * Where the suite's client ID metadata scenario has the client's metadata document published (its own test domain,
 * as the SDK's reference client uses it): a person gives theirs with `servers add --client-metadata-url`.
 */
const SUITE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  /** The calls a scenario asks for, with their arguments (SEP-2243's header scenarios); else each tool once, made up. */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
};

async function connect(): Promise<UpstreamConnection> {
  if (context.idp_token_endpoint && context.idp_id_token && context.idp_client_id && context.client_id) {
    // Cross-app access, as a person would set it up: the client's secret and the ID token from their identity provider in the key store.
    const keys = createMemoryStore();
    await keys.set(secretAccount('conformance', CLIENT_SECRET), context.client_secret ?? '');
    await keys.set(secretAccount('conformance', IDP_ID_TOKEN), context.idp_id_token);
    const enterprise: HttpServerEntry = {
      ...entry,
      crossApp: { clientId: context.client_id, idpTokenEndpoint: context.idp_token_endpoint, idpClientId: context.idp_client_id },
    };
    return launchServer('conformance', enterprise, { keys, onSecret: () => undefined, log, redact: (t) => t });
  }
  if (scenario.startsWith('auth/client-credentials') && context.client_id) {
    // A machine-to-machine server, as a person would add one: its client secret (or private key) in the key store.
    const keys = createMemoryStore();
    const jwt = context.private_key_pem !== undefined;
    // The key store holds one line: a PEM key is kept with its line breaks taken out (the launcher puts them back).
    await keys.set(secretAccount('conformance', CLIENT_SECRET), jwt ? context.private_key_pem!.replace(/\r?\n/g, ' ').trim() : (context.client_secret ?? ''));
    const m2m: HttpServerEntry = {
      ...entry,
      clientCredentials: jwt
        ? { clientId: context.client_id, auth: 'private-key-jwt', ...(context.signing_algorithm ? { algorithm: context.signing_algorithm } : {}) }
        : { clientId: context.client_id, auth: 'client-secret' },
    };
    return launchServer('conformance', m2m, { keys, onSecret: () => undefined, log, redact: (t) => t });
  }
  // A person's sign-in; a client registered beforehand where the scenario gives one.
  const oauth = oauthProvider('conformance', {
    keys: createMemoryStore(),
    redirectUrl: 'http://127.0.0.1:8976/callback',
    authorize,
    onSecret: () => undefined,
    ...(scenario === 'auth/basic-cimd' ? { clientMetadataUrl: SUITE_CLIENT_METADATA_URL } : {}),
    ...(context.client_id
      ? { preRegistered: { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) } }
      : {}),
  });
  return connectHttp('conformance', entry, { headers: {}, log, elicit: async () => ({}), oauth });
}

const connection = await connect();
try {
  const tools = await connection.tools();
  log(`scenario ${scenario || '?'}: ${tools.length} tools`);
  const calls = context.toolCalls ?? tools.map((tool) => ({ name: tool.name, arguments: argumentsFor(tool.inputSchema) }));
  if (scenario === 'json-schema-2020-12-preservation') {
    // The schema of the scenario's other tool as Airlock's client received it, handed back through its echo tool (which takes `schema`).
    const echo = tools.find((tool) => Object.hasOwn((tool.inputSchema as { properties?: object }).properties ?? {}, 'schema'));
    const focal = tools.find((tool) => tool !== echo);
    if (echo && focal) calls.push({ name: echo.name, arguments: { schema: focal.inputSchema } });
  }
  for (const call of calls) {
    // A call whose connection was reset before any answer is made once more, as a client would (Airlock's own client
    // never sends a tool call twice itself: httpConnection.ts); the suite's server says whether it arrived.
    const result = await connection.call(call.name, call.arguments).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && !/ECONNRESET/.test(String(error.message))) throw error;
      log(`${call.name}: the connection was reset before an answer; calling it again`);
      return connection.call(call.name, call.arguments);
    });
    log(`${call.name}: ${JSON.stringify(result.content).slice(0, 200)}`);
  }
} finally {
  await connection.close();
}
