// The floor for bench:mcp: a minimal MCP server on the official SDK, over
// stdio, with one tool. What any MCP server costs per request on this machine.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'floor', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes its input', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
await server.connect(new StdioServerTransport());
