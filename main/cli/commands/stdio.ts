// `airlock stdio`: MCP over stdin/stdout for clients that spawn their
// servers (Claude Desktop, Cursor…), running the companion in-process.
// stdout carries protocol only: anything that tries console.log is sent to
// stderr instead. With no control API in this mode, mutations under "ask"
// are put to the person through the client's elicitation when it supports
// it, and denied with instructions otherwise.
import { LineLimitedStdioTransport } from '../../core/mcp/stdioTransport.ts';
import { createCompanion } from '../../core/runtime/companion.ts';
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
  const { logger } = ctx;
  const companion = await createCompanion({ resolved: ctx, logger, logBuffer: ctx.logBuffer, mode: 'stdio', redaction: ctx.redaction });
  const server = companion.createMcpServer('stdio');
  onShutdown(async () => {
    await server.close();
    await companion.close();
  });
  process.stdin.on('end', () => void shutdown(0));
  const mcpLog = logger.child('mcp');
  await server.connect(new LineLimitedStdioTransport(process.stdin, process.stdout, { log: (m) => mcpLog.warn(m) }));
  logger.info(
    `Airlock ${companion.core.version} on stdio: ${companion.core.api.catalogue.title}, ${companion.core.api.catalogue.operations.length} operations`,
  );
}
