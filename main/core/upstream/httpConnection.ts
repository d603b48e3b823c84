// Airlock as the MCP client of a remote server (issue 20): Streamable HTTP,
// or the legacy SSE transport for a server that does not speak it. Every
// request goes through one fetch that checks where it connects: the host is
// resolved and each address classified, a cloud metadata address is always
// refused and a private or loopback one unless the entry allows it, and the
// connection is made to the address that was checked (no second DNS answer
// can swap it) — the authorization server's requests too. Redirects are not
// followed. A JSON answer larger than the message cap is refused. Header
// values (a static token) come from the key store by name and are known to
// the redactor before the first request; a server behind OAuth is signed in
// to through oauthProvider.ts (the SDK does the protocol), at connection and
// again when a call asks for more (step-up). The client is the v2 SDK's
// (upstreamClient.ts `airlockClient`): `server/discover` first, MCP
// 2026-07-28 with a server that answers it, else `initialize` and 2025.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { SSEClientTransport, StreamableHTTPClientTransport, UnauthorizedError, type Client, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { BlockedAddressError, checkNameAddresses, hostAddresses, systemResolver, type Resolver } from '../util/addressPolicy.ts';
import { AirlockError } from '../util/errors.ts';
import type { ChildExit } from './childProcess.ts';
import type { HttpServerEntry } from './serverEntry.ts';
import { airlockClient, clientCalls, toolCaller, type ElicitHandler, type UpstreamConnection } from './upstreamClient.ts';
import type { AirlockOAuth } from './oauthProvider.ts';
import { messageOf } from '../../../contract/values.ts';

export interface HttpConnectOptions {
  /** Header values by header name (from the key store). */
  headers: Record<string, string>;
  log(line: string): void;
  redact?(text: string): string;
  maxMessageBytes?: number;
  onToolsChanged?(): void;
  /** Answers a server's questions (elicitation); absent, a server cannot ask. */
  elicit?: ElicitHandler;
  /**
   * Signs in where the server asks for OAuth: a person's sign-in (oauthProvider.ts, which hands back the code), or a
   * machine-to-machine client (the SDK's client credentials providers, no code); absent, a server that answers 401 fails.
   */
  oauth?: OAuthClientProvider & Partial<Pick<AirlockOAuth, 'pendingCallback'>>;
  resolver?: Resolver;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The address to connect to for a host: checked against the entry's rule (metadata never; private and loopback only when allowed). */
export async function checkedAddress(
  hostname: string,
  allowPrivate: boolean,
  resolver: Resolver = systemResolver,
): Promise<{ address: string; family: 4 | 6 }> {
  const { bare, found } = await hostAddresses(hostname, resolver);
  if (found.length === 0) throw new AirlockError('network', `${bare} does not resolve`);
  // The gate's rule for a name (util/addressPolicy.ts), in the words of a server entry.
  try {
    return checkNameAddresses(bare, found, allowPrivate);
  } catch (error) {
    if (!(error instanceof BlockedAddressError)) throw error;
    const cls = error.addressClass;
    throw new AirlockError(
      'denied',
      `${bare} is ${error.address} (${cls}): ${cls === 'metadata' ? 'a cloud metadata address is never reached' : 'a private or local address is reached only when the server entry allows it (--allow-private-network)'}`,
    );
  }
}

/** How many times a request is sent again after a kept-alive connection turned out closed. */
const MAX_STALE_RETRIES = 2;

/** Whether an MCP message (or batch) being sent calls a tool (anything but a message that only asks or tells). */
function callsATool(body: string | Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString()) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).some((m) => (m as { method?: unknown } | null)?.method === 'tools/call');
  } catch {
    return true;
  }
}

/** A fetch that connects only to checked addresses, follows no redirect, and refuses a JSON answer over the cap. */
export function checkedFetch(entry: HttpServerEntry, options: { resolver?: Resolver; maxMessageBytes: number }): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AirlockError('denied', `${url.protocol} is not HTTP`);
    const pinned = await checkedAddress(url.hostname, entry.allowPrivateNetwork, options.resolver);
    const lookup: LookupFunction = (_host, opts, callback) => {
      if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const headers = new Headers(init.headers);
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : Buffer.from(await new Response(init.body).arrayBuffer());
    // A kept-alive connection the server had already closed fails before any answer (ECONNRESET on a reused socket):
    // the request is sent again on a new connection, as Node's documentation advises — unless it calls a tool. Whether
    // the server read it first cannot be known, and a tool call the person approved once must never run twice: that
    // one fails, and says so.
    const repeatable = body === undefined || !callsATool(body);
    const send = (retries: number): Promise<Response> =>
      attempt().catch((error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
        if (repeatable && error.reusedSocket && error.code === 'ECONNRESET' && retries > 0 && !init.signal?.aborted) return send(retries - 1);
        throw error;
      });
    const attempt = () =>
      new Promise<Response>((resolve, reject) => {
        const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
          url,
          { method: init.method ?? 'GET', headers: Object.fromEntries(headers), lookup, ...(init.signal ? { signal: init.signal } : {}) },
          (res: IncomingMessage) => {
            const out = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
            const status = res.statusCode ?? 502;
            const length = Number(res.headers['content-length'] ?? 0);
            if (length > options.maxMessageBytes) {
              res.destroy();
              reject(new AirlockError('denied', `the server answered ${length} bytes, over the ${options.maxMessageBytes}-byte message cap`));
              return;
            }
            if (!/event-stream/.test(String(res.headers['content-type'] ?? ''))) {
              // A plain answer is one message: counted as it arrives, cut off over the cap.
              let seen = 0;
              res.on('data', (chunk: Buffer) => {
                seen += chunk.length;
                if (seen > options.maxMessageBytes)
                  res.destroy(new AirlockError('denied', `the server's answer is over the ${options.maxMessageBytes}-byte message cap`));
              });
            } else {
              // A stream carries one message per event: an event (up to the blank line that ends it) over the cap ends it.
              const event = sseEventSize();
              res.on('data', (chunk: Buffer) => {
                if (event(chunk) > options.maxMessageBytes)
                  res.destroy(new AirlockError('denied', `an event on the server's stream is over the ${options.maxMessageBytes}-byte message cap`));
              });
            }
            const noBody = status === 204 || status === 304 || init.method === 'HEAD';
            resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage ?? '', headers: out }));
          },
        );
        req.on('error', (error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
          error.reusedSocket = req.reusedSocket;
          reject(error);
        });
        req.end(body);
      });
    return send(MAX_STALE_RETRIES);
  }) as typeof fetch;
}

/**
 * Measures server-sent events as they arrive: fed each chunk, it returns the size of the largest event in it (an
 * event ends at a blank line, two line endings in a row), counting an event that spans chunks in full.
 */
export function sseEventSize(): (chunk: Buffer) => number {
  let size = 0;
  let tail = '';
  return (chunk) => {
    const seen = tail + chunk.toString('latin1');
    let pos = tail.length;
    let largest = 0;
    // Two line endings in a row (CRLF, LF or CR, mixed too) make the blank line that ends an event.
    for (const blank of seen.matchAll(/\r\n\r\n|\r\n\n|\n\r\n|\n\n|\r\r|\n\r(?=[^\n])/g)) {
      const end = blank.index + blank[0].length;
      if (end <= tail.length) continue; // seen with the previous chunk
      size += Math.max(0, blank.index - pos);
      largest = Math.max(largest, size);
      size = 0;
      pos = end;
    }
    size += seen.length - pos;
    tail = seen.slice(-3);
    return Math.max(largest, size);
  };
}

/** Connects to a remote MCP server: Streamable HTTP first, the legacy SSE transport when the server does not speak it. */
export async function connectHttp(name: string, entry: HttpServerEntry, options: HttpConnectOptions): Promise<UpstreamConnection> {
  const redact = options.redact ?? ((text: string) => text);
  const fetchChecked = checkedFetch(entry, {
    ...(options.resolver ? { resolver: options.resolver } : {}),
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  });
  const url = new URL(entry.url);
  const requestInit = { headers: options.headers };
  const failed = (why: string) => new AirlockError('config', redact(`MCP server ${name} (${entry.url}) ${why}`));
  let closedResolve!: (exit: ChildExit) => void;
  const exited = new Promise<ChildExit>((resolve) => (closedResolve = resolve));
  const oauth = options.oauth;
  /**
   * When the server sent the person to sign in (OAuth), what they came back with is handed to the transport: the
   * code, and the issuer the SDK checks against the authorization server it asked (RFC 9207: a mix-up is refused).
   */
  const signedIn = async (error: unknown, transport: AuthTransport): Promise<boolean> => {
    const callback = oauth?.pendingCallback?.();
    if (!callback) return false;
    options.log(redact(`MCP server ${name}: signing in (${messageOf(error)})`));
    await transport.finishAuth(await callback);
    return true;
  };
  const attempt = async (make: () => AuthTransport) => {
    for (let round = 0; ; round++) {
      const transport = make();
      const client = airlockClient(options.onToolsChanged, options.elicit);
      try {
        await client.connect(transport, { timeout: entry.timeoutMs });
        // Only the client that connected says when the connection ends (a failed attempt closes itself).
        client.onclose = () => closedResolve({ code: 0, signal: null });
        return { client, transport };
      } catch (error) {
        await client.close().catch(() => undefined);
        if (round >= 2 || !(await signedIn(error, transport))) throw error;
      }
    }
  };
  const auth = oauth ? { authProvider: oauth } : {};
  let connection: { client: Client; transport: AuthTransport };
  try {
    connection = await attempt(() => new StreamableHTTPClientTransport(url, { fetch: fetchChecked, requestInit, ...auth }));
  } catch (error) {
    // The checked fetch's refusal, however the SDK wrapped it (the version probe's failure carries it as its cause).
    const refused = airlockErrorIn(error);
    if (refused) throw failed(refused.line);
    if (error instanceof UnauthorizedError) throw failed(`needs you to sign in: airlock servers login ${name} (${error.message})`);
    // A server that does not speak Streamable HTTP (4xx to its POST) may speak the legacy SSE transport.
    options.log(redact(`MCP server ${name}: Streamable HTTP failed (${messageOf(error)}); trying the legacy SSE transport`));
    try {
      connection = await attempt(() => new SSEClientTransport(url, { fetch: fetchChecked, eventSourceInit: { fetch: fetchChecked }, requestInit, ...auth }));
    } catch (second) {
      throw failed(`did not answer initialize: ${messageOf(second)}`);
    }
  }
  const { client: connected, transport } = connection;
  const calls = clientCalls(toolCaller(connected, 'sdk'), entry.timeoutMs, failed);
  /** A call the server answers with a demand to sign in again (a larger scope: step-up) is made again once, signed in. */
  const again = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (!(await signedIn(error, transport))) throw error;
      return run();
    }
  };
  return {
    tools: () => again(() => calls.tools()),
    call: (tool, args, o) => again(() => calls.call(tool, args, o)),
    stderrTail: () => [],
    exited,
    async close() {
      await connected.close().catch(() => undefined);
      closedResolve({ code: 0, signal: null });
    },
  };
}

type AuthTransport = StreamableHTTPClientTransport | SSEClientTransport;

/** An AirlockError the error is, or was caused by. */
function airlockErrorIn(error: unknown): AirlockError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof AirlockError) return e;
  return undefined;
}
