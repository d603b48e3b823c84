// The MCP revision a 2025-era session's client speaks: the version its
// server agreed to at initialize (the SDK's rule, agreedProtocolVersion),
// which the v1 SDK keeps to itself. Shown beside each connected client.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { agreedProtocolVersion } from './serverIdentity.ts';

/** The protocol version each live server agreed to at initialize (the SDK keeps it to itself). */
const agreedVersions = new WeakMap<McpServer, string>();

/** The MCP revision a session's client speaks: the version agreed at its initialize (undefined before it). */
export function protocolVersionOf(server: McpServer): string | undefined {
  return agreedVersions.get(server);
}

/** Notes the version the server agrees to at initialize (the SDK's rule, agreedProtocolVersion), as it answers. */
export function rememberAgreedVersion(server: McpServer): void {
  type Handler = (request: { params?: { protocolVersion?: unknown } }, extra: unknown) => Promise<unknown>;
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const original = handlers?.get('initialize');
  if (!handlers || !original) return;
  handlers.set('initialize', async (request, extra) => {
    agreedVersions.set(server, agreedProtocolVersion(request.params?.protocolVersion));
    return original(request, extra);
  });
}
