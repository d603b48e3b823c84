// `airlock stdio`: MCP over stdin/stdout for clients that spawn their
// servers (Claude Desktop, Cursor…). By default it joins the companion for
// its data dir — the desktop app or `airlock serve` — starting a headless one
// in the background when none runs (it exits after --exit-when-idle seconds
// without clients, 300 by default here), so every client shares one approval
// queue, audit log and key store. `--in-process` runs a private companion in
// this process instead: there, with no approval window, mutations under
// "ask" are put to the person through the client's elicitation when it
// supports it, and denied with instructions otherwise.
// stdout carries protocol only: anything that tries console.log goes to stderr.
import { CLI_ENTRY } from '../../core/util/installPaths.ts';
import type { CliContext } from '../context.ts';
import { onShutdown, shutdown } from '../shutdown.ts';

/** Keeps stdout for the protocol: console.log/info/debug go to stderr. */
export function protectStdout(): void {
  const toStderr = (...args: unknown[]) => process.stderr.write(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export async function stdioCommand(ctx: CliContext, options: { inProcess?: boolean; serveArgs?: string[] } = {}): Promise<void> {
  protectStdout();
  if (options.inProcess) return inProcess(ctx);
  const { connectOrStart } = await import('../../core/mcp/companionLocator.ts');
  const { runForwarder } = await import('../../core/mcp/stdioForwarder.ts');
  const dataDir = ctx.settings.dataDir;
  const log = ctx.logger.child('stdio');
  await runForwarder({
    stdin: process.stdin,
    stdout: process.stdout,
    log: (m) => log.warn(m),
    connect: () =>
      connectOrStart({
        dataDir,
        node: process.execPath,
        cli: CLI_ENTRY,
        idleExitSeconds: ctx.settings.exitWhenIdle,
        ...(options.serveArgs ? { serveArgs: options.serveArgs } : {}),
        log: (at, m) => log[at](m),
      }),
  });
  await shutdown(0);
}

async function inProcess(ctx: CliContext): Promise<void> {
  const { LineLimitedStdioTransport } = await import('../../core/mcp/stdioTransport.ts');
  const { createCompanion } = await import('../../core/runtime/companion.ts');
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
    `Airlock ${companion.services.info.version} on stdio: ${companion.services.api.catalogue.title}, ${companion.services.api.catalogue.operations.length} operations`,
  );
}
