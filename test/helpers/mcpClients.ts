// Real MCP clients for integration tests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function httpClient(mcpUrl: string, token: string, name = 'airlock-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

export interface ToolText {
  text: string;
  isError: boolean;
}

/** Calls `execute` and returns its text and error flag. */
export async function execute(client: Client, code: string): Promise<ToolText> {
  const result = await client.callTool({ name: 'execute', arguments: { code } }, undefined, { timeout: 120_000 });
  return { text: (result.content as { text: string }[])[0]!.text, isError: result.isError === true };
}
