// `airlock stdio`: MCP over stdin/stdout for clients that spawn their
// servers (Claude Desktop, Cursor…). stdout carries protocol only: anything
// that tries console.log is sent to stderr instead.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCore } from '../../core/runtime/airlockCore.ts';
import { createMcpServer } from '../../core/mcp/createMcpServer.ts';
import type { CliContext } from '../context.ts';
import { onShutdown, shutdown } from '../shutdown.ts';

/** Keeps stdout for the protocol: console.log/info/debug go to stderr. */
export function protectStdout(): void {
  const toStderr = (...args: unknown[]) => process.stderr.write(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export async function stdioCommand(ctx: CliContext): Promise<void> {
  protectStdout();
  const { settings, logger } = ctx;
  const core = await createCore({ settings, logger, logBuffer: ctx.logBuffer });
  const server = createMcpServer({ core });
  const transport = new StdioServerTransport();
  onShutdown(async () => {
    await server.close();
    await core.close();
  });
  process.stdin.on('end', () => void shutdown(0));
  await server.connect(transport);
  logger.info(`Airlock ${core.version} on stdio: ${core.api.catalogue.title}, ${core.api.catalogue.operations.length} operations`);
}
