// Both revisions of MCP on one stdio connection — the joined pipe and
// `airlock stdio --in-process` alike. The v2 SDK's stdio entry (serveStdio)
// reads the opening exchange and pins the connection to one revision for its
// lifetime, by its own rules (the same body rules its HTTP entry applies):
// a client that opens with `initialize` (or sends no envelope) gets a
// server of the 2025 revision — Airlock's SDK 1.x server, served exactly as
// before; one that opens with `server/discover` or a request carrying the
// 2026-07-28 `_meta` envelope gets a server of that revision, built for the
// connection's caller (its pipe, never a name the client declares). The
// unsupported-version error, malformed envelopes and subscriptions/listen
// are the SDK's.
//
// The wire stays Airlock's line transport (stdioTransport.ts): lines over the
// limit answered, not fatal; calls in flight answered when the companion
// goes. A plain tools/list is answered there: from the prepared reply once the
// connection is of the 2025 revision, from the SDK's last answer once it is of
// 2026-07-28 (each reply is its own revision's answer). A plain 2026-07-28
// tools/call of one of Airlock's tools is answered there too, without the
// SDK (modernDirectCall.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ModernMcpServer, Transport as ModernTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { LineLimitedStdioTransport } from './stdioTransport.ts';
import { keptListOf, preparedAnswer } from './createMcpServer.ts';
import { DirectCallLine, directToolsOf } from './modernDirectCall.ts';
import { MODERN_REVISION } from './serverIdentity.ts';

/** The modern revision a connection pinned to it speaks (the only one the SDK serves). */
export { MODERN_REVISION };

export interface StdioRevisionServers {
  /** The connection's server of the 2025 revision (built when a client opens with `initialize`). */
  legacy(): McpServer;
  /** Its server of the 2026-07-28 revision (built when a client opens with `server/discover` or an envelope). */
  modern(): Promise<ModernMcpServer>;
  /** Errors that never reach the wire (reporting only). */
  onerror?(error: Error): void;
}

export interface StdioConnection {
  /** Closes the connection's server and the transport. */
  close(): Promise<void>;
}

/** Serves one stdio connection (`wire`, not yet started) with the server of whichever revision its client opens with. */
export function serveStdioRevisions(wire: LineLimitedStdioTransport & { sessionId?: string }, servers: StdioRevisionServers): StdioConnection {
  const handle = serveStdio(
    async ({ era }) => {
      if (era === 'modern') {
        const server = await servers.modern();
        // A plain tools/list from the answer the SDK gave last, until the tools change (keptModernList.ts).
        const kept = keptListOf(server);
        if (kept) {
          wire.answerEarly = kept.answer;
          wire.sent = kept.sent;
        }
        // A plain call of one of Airlock's tools, answered without the SDK (modernDirectCall.ts).
        const direct = new DirectCallLine(
          directToolsOf(server),
          MODERN_REVISION,
          (message) => wire.send(message as never),
          (raw) => wire.deliver(raw),
        );
        wire.direct = { take: (raw) => direct.take(raw), close: () => direct.close() };
        return server;
      }
      const server = servers.legacy();
      wire.answerEarly = (raw) => preparedAnswer(server, raw);
      // The SDK 1.x server is handed the SDK's channel, not the wire: it carries the wire's session id (the caller key).
      return {
        connect: (channel: ModernTransport & { sessionId?: string }) => {
          if (wire.sessionId !== undefined) channel.sessionId = wire.sessionId;
          return server.connect(channel as never);
        },
        close: () => server.close(),
      } as never;
    },
    { transport: wire as unknown as ModernTransport, legacy: 'serve', ...(servers.onerror ? { onerror: servers.onerror } : {}) },
  );
  return handle;
}
