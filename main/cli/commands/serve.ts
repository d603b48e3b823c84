// `airlock serve`: the headless companion. MCP Streamable HTTP on
// http://127.0.0.1:<port>/mcp behind a bearer token, /health without one,
// and server.json in the data dir while it runs.
import { writeFileSync, readFileSync, rmSync } from 'node:fs';
import { createCore } from '../../core/runtime/airlockCore.ts';
import { createMcpServer } from '../../core/mcp/createMcpServer.ts';
import { createMcpEndpoint } from '../../core/mcp/httpMcpEndpoint.ts';
import { startLoopbackServer, sendJson } from '../../core/http/loopbackServer.ts';
import { ensureTokenFile } from '../../core/http/tokenFile.ts';
import type { CliContext } from '../context.ts';
import { onShutdown } from '../shutdown.ts';

export interface ServerInfo {
  pid: number;
  port: number;
  url: string;
  mcpUrl: string;
  version: string;
  profile: string;
  startedAt: string;
}

export async function serveCommand(ctx: CliContext): Promise<void> {
  const { settings, logger } = ctx;
  const core = await createCore({ settings, logger, logBuffer: ctx.logBuffer });
  const mcpToken = ensureTokenFile(core.paths.mcpToken);
  const endpoint = createMcpEndpoint({ createServer: () => createMcpServer({ core }), logger: logger.child('mcp') });
  const server = await startLoopbackServer({
    host: settings.host,
    port: settings.port,
    allowNonLoopback: settings.dangerouslyAllowNonLoopback,
    tokens: { mcp: mcpToken },
    logger: logger.child('http'),
    routes: [{ path: '/health', auth: 'none', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) }, endpoint.route],
  }).catch(async (error) => {
    await core.close();
    throw error;
  });

  const info: ServerInfo = {
    pid: process.pid,
    port: server.port,
    url: server.url,
    mcpUrl: `${server.url}/mcp`,
    version: core.version,
    profile: core.api.profile.name,
    startedAt: core.startedAt.toISOString(),
  };
  writeFileSync(core.paths.serverInfo, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  logger.info(`Airlock ${core.version} serving ${core.api.catalogue.title} on ${info.mcpUrl} (bearer token in ${core.paths.mcpToken})`);

  onShutdown(async () => {
    logger.info('shutting down');
    removeServerInfoIfOurs(core.paths.serverInfo);
    await endpoint.close();
    await server.close();
    await core.close();
  });
}

function removeServerInfoIfOurs(file: string): void {
  try {
    const current = JSON.parse(readFileSync(file, 'utf8')) as ServerInfo;
    if (current.pid === process.pid) rmSync(file);
  } catch {
    // Already gone.
  }
}
