// `airlock serve`: the headless companion on loopback, until a signal.
import { startServing } from '../../core/runtime/companionServer.ts';
import type { CliContext } from '../context.ts';
import { onShutdown, shutdown } from '../shutdown.ts';

export async function serveCommand(ctx: CliContext): Promise<void> {
  const served = await startServing(ctx);
  onShutdown(async () => {
    ctx.logger.info('shutting down');
    await served.close();
  });
  // Announced only once a signal would shut it down cleanly.
  const { info, apis } = served.companion.services;
  const names = apis.list().map((a) => a.name);
  const what = names.length === 0 ? 'no API yet' : names.length === 1 ? `the ${names[0]} API` : `${names.length} APIs (${names.join(', ')})`;
  ctx.logger.info(`Airlock ${info.version} serving ${what} on ${served.info.mcpUrl} (MCP token in ${info.paths.mcpToken})`);
  void served.orphaned.then((why) => {
    ctx.logger.error(`${why}: no client can find this companion any more, so it exits`);
    void shutdown(1);
  });
  void served.idle.then(() => {
    ctx.logger.info(`no client, run or approval for ${ctx.settings.exitWhenIdle} s: exiting (--exit-when-idle)`);
    void shutdown(0);
  });
}
