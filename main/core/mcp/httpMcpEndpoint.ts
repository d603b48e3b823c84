// MCP Streamable HTTP on /mcp (POST, GET, DELETE), one SDK transport and one
// server per session. Bounded: at most `maxSessions` live sessions.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../log/logger.ts';
import { readBody, sendJson, type Route } from '../http/loopbackServer.ts';

const MAX_BODY = 4 * 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export interface McpEndpoint {
  route: Route;
  sessionCount(): number;
  close(): Promise<void>;
}

export function createMcpEndpoint(options: { createServer: () => McpServer; logger: Logger; maxSessions?: number }): McpEndpoint {
  const sessions = new Map<string, Session>();
  const max = options.maxSessions ?? 64;
  const log = options.logger;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        const raw = await readBody(req, MAX_BODY);
        body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        const status = (error as { status?: number }).status ?? 400;
        return sendJson(res, status, {
          jsonrpc: '2.0',
          error: { code: -32700, message: status === 413 ? 'request too large' : 'parse error: body is not JSON' },
          id: null,
        });
      }
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, POST, DELETE' });
    }

    if (id) {
      const session = sessions.get(id);
      if (!session) return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'session not found: initialize again' }, id: null });
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      if (sessions.size >= max)
        return sendJson(res, 503, { jsonrpc: '2.0', error: { code: -32000, message: `too many sessions (${max}); close one first` }, id: null });
      const server = options.createServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, { transport, server });
          log.info(`mcp session ${sid.slice(0, 8)} opened (${sessions.size} live)`);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId && sessions.delete(transport.sessionId)) log.info(`mcp session ${transport.sessionId.slice(0, 8)} closed`);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    return sendJson(res, 400, {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'no session: send initialize first (without an Mcp-Session-Id header)' },
      id: null,
    });
  }

  return {
    route: { path: '/mcp', auth: 'mcp', handle },
    sessionCount: () => sessions.size,
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((s) => s.server.close()));
    },
  };
}
