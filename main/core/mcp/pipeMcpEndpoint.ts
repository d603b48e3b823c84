// The joined stdio path, companion side: `airlock stdio` asks to upgrade a
// loopback HTTP request (the MCP token, Host and Origin checked first, as for
// /mcp) and the connection then carries newline-delimited JSON-RPC both
// ways, exactly what the client writes on the shim's stdin. One MCP server
// per connection, as for stdio in process: no per-message HTTP request, no
// SSE framing, no session header, so a joined call costs about what an
// in-process one does. The connection speaks the revision its client opens
// with (stdioRevisions.ts): 2025 (`initialize`) or 2026-07-28.
//
// The session lives as long as the connection: when the shim goes away —
// stdin closed, crash, SIGKILL — the OS closes its socket, the server closes,
// its in-flight calls are aborted (pending approvals withdrawn) and its
// session grants end. No timeout has to notice.
import { readScope } from './sessionScope.ts';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import type { Logger } from '../log/logger.ts';
import type { UpgradeRoute } from '../http/loopbackServer.ts';
import { LineLimitedStdioTransport } from './stdioTransport.ts';
import { serveStdioRevisions, type StdioConnection } from './stdioRevisions.ts';
import { GOING_AWAY } from './goingAway.ts';
import { PIPE_PATH, PIPE_PROTOCOL } from './pipeProtocol.ts';
import { MessageTracer } from './requestTracing.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

/** The line transport over one upgraded connection; its session id keys the caller. */
class PipeTransport extends LineLimitedStdioTransport {
  readonly sessionId = randomUUID();
}

export interface PipeEndpointOptions {
  /** A server of the 2025 revision for a new session; `scope` is what the upgrade request names (absent: every API). */
  createServer: (scope: string[] | undefined) => McpServer;
  /** A server of the 2026-07-28 revision for a connection, whose caller key is `key` (its pipe). */
  createModernServer: (scope: string[] | undefined, key: string) => Promise<ModernMcpServer>;
  /** Why a session asking for this scope is refused (an API the companion does not serve), or undefined. */
  refuseScope?: (scope: string[]) => string | undefined;
  logger: Logger;
  /** Joined sessions at most (each holds a server); one more is refused with 503 (default 64, as for HTTP sessions). */
  maxSessions?: number;
  /** Where each request's span goes (telemetry on); a tools/call's is opened by its tool. */
  telemetry?: Telemetry;
}

export interface PipeEndpoint {
  route: UpgradeRoute;
  sessionCount(): number;
  /** Ends every joined session (the token was rotated): their shims reconnect with the new token. */
  endAll(why: string): number;
  /** Answers every request still in flight with a JSON-RPC error under its id (`why`), then ends every session. */
  close(why?: string): Promise<void>;
}

export function createPipeEndpoint(options: PipeEndpointOptions): PipeEndpoint {
  const log = options.logger;
  const live = new Map<Duplex, StdioConnection>();
  const transports = new Map<Duplex, PipeTransport>();

  const end = (socket: Duplex, why: string) => {
    const connection = live.get(socket);
    if (!connection) return;
    live.delete(socket);
    transports.delete(socket);
    log.info(`stdio session ${why} (${live.size} joined)`);
    void connection.close().catch(() => undefined);
    socket.destroy();
  };

  const max = options.maxSessions ?? 64;

  /** Answers the upgrade with an error and closes: the shim reports it. */
  const refuse = (socket: Duplex, status: string, error: string) => {
    const body = JSON.stringify({ error });
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`, () =>
      socket.destroy(),
    );
    setTimeout(() => socket.destroy(), 2000).unref();
  };

  function handle(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (live.size >= max) {
      log.warn(`refused a joined stdio session: all ${max} are open`);
      return refuse(socket, '503 Service Unavailable', `all ${max} joined sessions are open; close a client and retry`);
    }
    const read = readScope(req.url);
    if (!read.ok) {
      log.warn(`refused a joined stdio session: ${read.error}`);
      return refuse(socket, '400 Bad Request', read.error);
    }
    const unserved = read.scope ? options.refuseScope?.(read.scope) : undefined;
    if (unserved) {
      log.warn(`refused a joined stdio session: ${unserved}`);
      return refuse(socket, '400 Bad Request', unserved);
    }
    (socket as Socket).setNoDelay?.(true);
    // Beyond loopback (--dangerously-allow-non-loopback), a peer that vanished without a FIN is found out.
    (socket as Socket).setKeepAlive?.(true, 30_000);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${PIPE_PROTOCOL}\r\nconnection: Upgrade\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    const transport = new PipeTransport(socket, socket, { log: (m) => log.warn(m) });
    if (options.telemetry?.enabled)
      transport.tracer = new MessageTracer(options.telemetry, () => ({
        key: `stdio:${transport.sessionId}`,
        transport: 'stdio',
        sessionId: transport.sessionId,
      }));
    const scope = read.scope;
    const connection = serveStdioRevisions(transport, {
      legacy: () => {
        log.debug(`stdio session ${transport.sessionId.slice(0, 8)} opened with initialize: MCP 2025`);
        return options.createServer(scope);
      },
      modern: () => {
        log.debug(`stdio session ${transport.sessionId.slice(0, 8)} opened with server/discover: MCP 2026-07-28`);
        return options.createModernServer(scope, `stdio:${transport.sessionId}`);
      },
      onerror: (error) => log.debug(`stdio session ${transport.sessionId.slice(0, 8)}: ${error.message}`),
    });
    live.set(socket, connection);
    transports.set(socket, transport);
    log.info(`stdio session ${transport.sessionId.slice(0, 8)} joined (${live.size} joined)`);
    // The shim ends its side when its client is done; the OS closes it when the shim dies.
    socket.once('end', () => end(socket, 'ended by the client'));
    socket.once('close', () => end(socket, 'ended: the client went away'));
    socket.on('error', (error) => log.debug(`stdio session socket: ${error.message}`));
  }

  return {
    route: { path: PIPE_PATH, auth: 'mcp', protocol: PIPE_PROTOCOL, handle },
    sessionCount: () => live.size,
    endAll(why) {
      const sockets = [...live.keys()];
      for (const socket of sockets) end(socket, why);
      return sockets.length;
    },
    async close(why = GOING_AWAY) {
      const all = [...live.entries()].map(([socket, connection]) => ({ socket, connection, transport: transports.get(socket) }));
      live.clear();
      transports.clear();
      // Every call still waiting is answered under its id, and the answers flushed, before the connection ends.
      await Promise.allSettled(all.map(({ transport }) => transport?.answerInFlight(why)));
      await Promise.allSettled(
        all.map(async ({ socket, connection }) => {
          await new Promise<void>((resolve) => {
            socket.end(resolve);
            setTimeout(resolve, 1000).unref();
          });
          await connection.close();
          socket.destroy();
        }),
      );
    },
  };
}
