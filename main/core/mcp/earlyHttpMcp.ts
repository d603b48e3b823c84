// /mcp while the companion is still being built: `airlock serve` binds its
// port first and answers a client's `initialize` at once (clients time out
// servers that are slow to answer, and the answer needs nothing that is
// loading), giving the client a session id. Every other request waits. Once
// the MCP endpoint exists it takes over: it first adopts each session
// answered here (its server is built and sees that `initialize`, so it
// learns the client's capabilities as usual), then serves what waited.
// Only a session-less POST whose body is one well-formed `initialize`, with a
// valid scope, is answered early; anything else is left to the endpoint. The
// doors (Host, Origin, the bearer token) are the loopback server's, passed
// before this runs. No SDK and no zod here.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, type Route } from '../http/loopbackServer.ts';
import type { Logger } from '../log/logger.ts';
import { initializeMessage, initializeResult } from './earlyInitialize.ts';
import { readMcpBody } from './mcpRequestBody.ts';
import { readScope } from './sessionScope.ts';
import { readCredential, sessionCredential } from './httpCredential.ts';
import type { ClientTokenView } from '../http/clientTokens.ts';
import type { ClientTokenRef } from '../../../contract/approvals.ts';

/** A session whose `initialize` was answered before the endpoint existed. */
export interface EarlySession {
  sessionId: string;
  scope: string[] | undefined;
  /** The client's `initialize` request, as it sent it. */
  initialize: unknown;
  /** What the session is bound to: a hash of the token it was opened with (httpCredential.ts). */
  credential: string;
  /** The HTTP client's own token it was opened with, if any. */
  clientToken?: ClientTokenRef;
}

/** What takes /mcp over: the MCP endpoint. */
export interface McpTakeover {
  /** Serves a request; `preread` is its body when it was read already. */
  handle(req: IncomingMessage, res: ServerResponse, preread?: { body: unknown }): Promise<void>;
  /** Builds the session answered early, under the same id. */
  adopt(session: EarlySession): Promise<void>;
}

export interface EarlyMcpOptions {
  /** The server instructions for a session with this scope. */
  instructions(scope: string[] | undefined): string | Promise<string>;
  logger: Logger;
  /** At most this many sessions are answered early (default 64, the endpoint's session cap); the rest wait. */
  maxSessions?: number;
  /** The clients' own tokens: a session opened with one reaches what its token allows. */
  clientToken?: (token: string) => ClientTokenView | undefined;
}

export interface EarlyMcp {
  route: Route;
  /** Adopts the sessions answered early, then serves what waited and everything after through `endpoint`. */
  handOver(endpoint: McpTakeover): Promise<void>;
  /** How many sessions were answered early. */
  answered(): number;
  /**
   * Resolves once no request is being answered here, or after `maxMs`: the companion loads its next part after
   * this, so that a request whose body is still being read is not left waiting for the whole part.
   */
  quiet(maxMs: number): Promise<void>;
  /** A request is being answered here. */
  busy(): boolean;
  /** How many requests wait for the endpoint, their clients still connected. */
  waiting(): number;
}

export function createEarlyMcp(options: EarlyMcpOptions): EarlyMcp {
  const max = options.maxSessions ?? 64;
  const early: EarlySession[] = [];
  let taken: McpTakeover | undefined;
  // From the hand-over on, nothing more is answered here: a session answered then would never be adopted.
  let handingOver = false;
  const takenOver = Promise.withResolvers<McpTakeover>();
  let count = 0;
  let answering = 0;
  let waiting = 0;
  const quieted: (() => void)[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (taken) return taken.handle(req, res);
    answering++;
    let outcome: 'answered' | 'refused' | { preread?: { body: unknown } };
    try {
      outcome = await answerEarly(req, res);
    } finally {
      if (--answering === 0) for (const done of quieted.splice(0)) done();
    }
    if (typeof outcome === 'string') return;
    let endpoint: McpTakeover | undefined = taken;
    if (!endpoint) {
      // Counted while its client is there to be answered.
      waiting++;
      let counted = true;
      const leave = () => {
        if (counted) waiting--;
        counted = false;
      };
      res.once('close', leave);
      try {
        endpoint = await takenOver.promise;
      } finally {
        leave();
        res.off('close', leave);
      }
    }
    // A client that gave up while it waited is not served: its requests would run for nobody.
    if (res.closed) return;
    return endpoint.handle(req, res, outcome.preread);
  }

  /** Answers a session-less `initialize`; anything else is read (a POST's body) and left for the endpoint. */
  async function answerEarly(req: IncomingMessage, res: ServerResponse): Promise<'answered' | 'refused' | { preread?: { body: unknown } }> {
    if (req.method !== 'POST') return {};
    const preread = await readMcpBody(req, res);
    if (!preread) return 'refused';
    // Only what the endpoint would accept as it is: no session yet, JSON in, JSON or a stream accepted back.
    const accept = String(req.headers.accept ?? '');
    const acceptable =
      accept.includes('application/json') && accept.includes('text/event-stream') && /^application\/json/i.test(String(req.headers['content-type'] ?? ''));
    const request = handingOver || !acceptable || req.headers['mcp-session-id'] !== undefined ? undefined : initializeMessage(preread.body);
    const scoped = request ? readScope(req.url) : undefined;
    // A URL or a token that is refused is left to the endpoint, which says why.
    const who = scoped?.ok ? readCredential(req.headers.authorization, scoped.scope, options.clientToken) : undefined;
    if (!request || !who?.ok || early.length >= max) return { preread };
    const scope = { scope: who.credential.scope };
    const instructions = await options.instructions(scope.scope);
    if (handingOver || early.length >= max) return { preread };
    const sessionId = randomUUID();
    const token = who.credential.token;
    early.push({
      sessionId,
      scope: scope.scope,
      initialize: preread.body,
      credential: sessionCredential(req.headers.authorization),
      ...(token ? { clientToken: token } : {}),
    });
    count++;
    options.logger.info(`mcp session ${sessionId.slice(0, 8)} answered while the companion starts`);
    sendJson(
      res,
      200,
      { jsonrpc: '2.0', id: request.id, result: initializeResult(request.protocolVersion, instructions, true) },
      { 'mcp-session-id': sessionId },
    );
    return 'answered';
  }

  return {
    route: { path: '/mcp', auth: 'mcp', handle },
    answered: () => count,
    busy: () => answering > 0,
    waiting: () => waiting,
    quiet(maxMs) {
      if (answering === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxMs);
        quieted.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async handOver(endpoint) {
      handingOver = true;
      for (const session of early.splice(0)) {
        await endpoint.adopt(session).catch((error: Error) => {
          options.logger.warn(
            `mcp session ${session.sessionId.slice(0, 8)} answered early could not be opened: ${error.message}; its client must initialize again`,
          );
        });
      }
      taken = endpoint;
      takenOver.resolve(endpoint);
    },
  };
}
