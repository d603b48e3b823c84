// The JSON body of a POST to /mcp, read once with its cap; a body that is too
// large or not JSON is answered here with MCP's parse error.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson } from '../http/loopbackServer.ts';

export const MAX_MCP_BODY = 4 * 1024 * 1024;

/** The parsed body, or undefined once the refusal has been sent. */
export async function readMcpBody(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | undefined> {
  try {
    const raw = await readBody(req, MAX_MCP_BODY);
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch (error) {
    const status = (error as { status?: number }).status ?? 400;
    sendJson(
      res,
      status,
      {
        jsonrpc: '2.0',
        error: { code: -32700, message: status === 413 ? `request body over ${MAX_MCP_BODY} bytes` : 'parse error: the body is not JSON' },
        id: null,
      },
      status === 413 ? { connection: 'close' } : {},
    );
    return undefined;
  }
}
