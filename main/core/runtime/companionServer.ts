// The companion behind its loopback server: MCP Streamable HTTP on
// http://127.0.0.1:<port>/mcp behind the MCP token, the control API under
// /control behind its own token, /health without one, and server.json in the
// data dir while it runs. `airlock serve` and the Electron main process both
// start exactly this.
//
// It binds its port before the companion is built, so a client's MCP
// `initialize` is answered while the core loads (mcp/earlyHttpMcp.ts); every
// other request waits for the rest. The heavy modules (the core, the MCP
// SDK, the control API) are loaded after the bind for that reason.
import { openClientTokens, type ClientTokenStore } from '../http/clientTokens.ts';
import { statSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import type { Companion, Host } from './companion.ts';
import { openLoopbackServer, sendJson, type LoopbackServer, type OpeningServer } from '../http/loopbackServer.ts';
import { ensureTokenFile, rotateTokenFile } from '../http/tokenFile.ts';
import type { StartContext } from './startContext.ts';
import { localUser } from './localUser.ts';
import type { ServerInfo } from '../config/serverInfo.ts';
import { acquireCompanionLock, type LockInfo } from './companionLock.ts';
import { dataPaths, ensureDataDir } from '../config/dataDir.ts';
import { isLoopbackAddress } from '../http/requestGuards.ts';
import { AirlockError } from '../util/errors.ts';
import { checkEngineNetwork } from '../sandbox/engineMatrix.ts';
import { UiSessions } from '../http/uiSessions.ts';
import { assertUiBuilt } from '../http/uiFiles.ts';
import type { McpEndpoint } from '../mcp/httpMcpEndpoint.ts';
import type { PipeEndpoint } from '../mcp/pipeMcpEndpoint.ts';
import { PIPE_PROTOCOL } from '../mcp/pipeProtocol.ts';
import { httpSessionKey } from '../mcp/sessionRegistry.ts';
import { createEarlyMcp, type EarlyMcp } from '../mcp/earlyHttpMcp.ts';
import { changesTools } from './toolsChanged.ts';

export interface ServingCompanion {
  companion: Companion;
  server: LoopbackServer;
  info: ServerInfo;
  /** Resolves when `--exit-when-idle` finds nothing to do for that long. */
  idle: Promise<void>;
  /**
   * Resolves, with one line saying why, when clients can no longer find this companion: its data dir
   * is gone, or its server.json is gone or names another process (three checks a second apart in a row).
   */
  orphaned: Promise<string>;
  close(): Promise<void>;
}

/** Starts the companion and its loopback server (also used by the Electron adapter). */
export interface ServingOptions {
  kind?: LockInfo['kind'];
  /** What the desktop shell adds to the host: how the OS treats its notifications. */
  desktop?: Host['desktop'];
}

export async function startServing(ctx: StartContext, options: ServingOptions = {}): Promise<ServingCompanion> {
  const { settings, logger } = ctx;
  // Refused before anything starts: a non-loopback bind without the explicit flag, an engine × network the matrix
  // forbids, a data dir another companion holds.
  if (!isLoopbackAddress(settings.host) && !settings.dangerouslyAllowNonLoopback) {
    throw new AirlockError('usage', `--host ${settings.host} is not a loopback address; Airlock binds 127.0.0.1 only`, {
      hint: 'add --dangerously-allow-non-loopback to expose it to the network anyway',
    });
  }
  const network = checkEngineNetwork(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  if (!network.ok) throw new AirlockError('usage', network.reason);
  const paths = dataPaths(settings.dataDir);
  ensureDataDir(paths.root);
  const lock = acquireCompanionLock(paths.lock, paths.root, options.kind ?? 'serve');
  let tokens: { mcp: string; control: string; mcpClients: (token: string) => boolean };
  let clientTokens: ClientTokenStore;
  const uiSessions = settings.ui ? new UiSessions() : undefined;
  try {
    // Read by the server at each request, so a rotation takes effect at once.
    clientTokens = openClientTokens(paths.clientTokens);
    const store = clientTokens;
    tokens = { mcp: ensureTokenFile(paths.mcpToken), control: ensureTokenFile(paths.controlToken), mcpClients: (token) => store.match(token) !== undefined };
    if (uiSessions) assertUiBuilt();
  } catch (error) {
    lock.release();
    throw error;
  }
  // The host's parts are asked for only once the server below serves (a control call or a status), so they may refer to it.
  let server: LoopbackServer | undefined;
  const sessions: { http?: McpEndpoint; pipe?: PipeEndpoint } = {};
  const host: Host = {
    mcpUrl: () => (server ? `${server.url}/mcp` : undefined),
    rotateMcpToken: () => {
      tokens.mcp = rotateTokenFile(paths.mcpToken);
      const why = 'ended: the MCP token was rotated';
      const closed = (sessions.http?.endAll(why) ?? 0) + (sessions.pipe?.endAll(why) ?? 0);
      logger.warn(`MCP token rotated (${paths.mcpToken}); ${closed} session(s) ended — clients need the new token`);
      return { file: paths.mcpToken, endedSessions: closed };
    },
    ...(uiSessions
      ? {
          loginLink: () => {
            const login = uiSessions.issueLoginToken();
            return { url: `${server!.url}/ui/#login=${login.token}`, expiresAt: new Date(login.expiresAt).toISOString() };
          },
        }
      : {}),
    ...(options.desktop ? { desktop: options.desktop } : {}),
  };
  // Bound first: /health and /mcp's initialize are served at once, the rest once the companion is built. With
  // --profile or --spec, that API is what a session gets, so nothing is answered before it is loaded.
  // The instructions for a session that names no scope are worked out once the port is bound, before a client's
  // initialize is likely to arrive (reading the profiles, and zod with them, costs ~30 ms the first time).
  let everyApi: Promise<string> | undefined;
  const read = (scope: string[] | undefined) => import('../mcp/earlyInstructions.ts').then((m) => m.earlyInstructions(settings.dataDir, scope));
  const instructions = (scope: string[] | undefined) => (scope ? read(scope) : (everyApi ??= read(undefined)));
  const early =
    settings.profile === undefined && settings.spec === undefined
      ? createEarlyMcp({ instructions, logger: logger.child('mcp'), clientToken: (token) => clientTokens.match(token) })
      : undefined;
  let opening: OpeningServer;
  try {
    opening = server = await openLoopbackServer({
      host: settings.host,
      port: settings.port,
      allowNonLoopback: settings.dangerouslyAllowNonLoopback,
      tokens,
      logger: logger.child('http'),
      upgradeProtocols: [PIPE_PROTOCOL],
      routes: [{ path: '/health', auth: 'none', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) }, ...(early ? [early.route] : [])],
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  logger.info(`listening on ${opening.url}/mcp; the companion is starting`);
  if (early) await instructions(undefined);
  let companion: Companion | undefined;
  try {
    // Loaded one part at a time, so a client's initialize that arrives meanwhile waits for one part, not all.
    const part = <T>(load: () => Promise<T>) => loadPart(load, early);
    await part(() => import('@modelcontextprotocol/sdk/types.js'));
    await part(() => import('@hono/node-server'));
    await part(() => import('@modelcontextprotocol/sdk/server/mcp.js'));
    const { createMcpEndpoint } = await part(() => import('../mcp/httpMcpEndpoint.ts'));
    const { createPipeEndpoint } = await part(() => import('../mcp/pipeMcpEndpoint.ts'));
    const { unservedScope } = await part(() => import('../mcp/sessionScope.ts'));
    const { createControlRoutes } = await part(() => import('../control/controlRoutes.ts'));
    const { createWebUiRoutes } = await part(() => import('../control/webUi.ts'));
    const { createCompanion } = await part(() => import('./companion.ts'));
    companion = await createCompanion({ resolved: ctx, logger, logBuffer: ctx.logBuffer, mode: 'serve', redaction: ctx.redaction, host });
    const { services } = companion;
    const built = companion;
    const { createModernMcp } = await part(() => import('../mcp/modernHttp.ts'));
    const modern = createModernMcp({
      createServer: (caller, request) => built.createModernServer(caller, 'http', request),
      logger: logger.child('mcp'),
      clientToken: (token) => clientTokens.match(token),
    });
    // A client of the 2026-07-28 revision listening (subscriptions/listen) hears that the tools changed.
    services.hub.subscribe({
      send: (batch) => {
        if (changesTools(batch)) modern.toolsChanged();
      },
    });
    const endpoint = (sessions.http = createMcpEndpoint({
      modern,
      clientToken: (token) => clientTokens.match(token),
      createServer: (scope, clientToken) => built.createMcpServer('http', { ...(scope ? { scope } : {}), ...(clientToken ? { clientToken } : {}) }),
      logger: logger.child('mcp'),
      idleMs: () => services.settings.values.httpSessionIdle * 1000,
      onSeen: (sessionId) => services.sessions.seen(httpSessionKey(sessionId)),
      ...(services.telemetry ? { telemetry: services.telemetry } : {}),
    }));
    const pipe = (sessions.pipe = createPipeEndpoint({
      createServer: (scope) => built.createMcpServer('stdio', scope ? { scope } : {}),
      createModernServer: (scope, key) => built.createModernServer({ key, scope }, 'stdio'),
      refuseScope: (scope) => unservedScope(scope, services.apis.list(), `the running companion (pid ${process.pid})`).join('\n') || undefined,
      logger: logger.child('mcp'),
      ...(services.telemetry ? { telemetry: services.telemetry } : {}),
    }));
    if (early) await early.handOver(endpoint);
    opening.serve(
      [
        ...(early ? [] : [endpoint.route]),
        ...(uiSessions
          ? createWebUiRoutes({
              sessions: uiSessions,
              origin: () => server?.url ?? '',
              dispatch: built.dispatch,
              hub: services.hub,
              replay: (since) => built.replay(since),
              caller: { by: `${localUser()} via web UI`, channel: 'web' },
            })
          : []),
        ...createControlRoutes({
          dispatch: built.dispatch,
          hub: services.hub,
          replay: (since) => built.replay(since),
          caller: { by: `${localUser()} via control API`, channel: 'http' },
        }),
        // Prometheus's scrape (--metrics): its own token, checked by the endpoint, or none when opted in.
        ...(built.metrics ? [{ path: '/metrics', auth: 'none' as const, handle: built.metrics.handle }] : []),
      ],
      [pipe.route],
    );
  } catch (error) {
    await sessions.http?.close();
    await sessions.pipe?.close();
    await opening.close();
    await companion?.close();
    lock.release();
    throw error;
  }
  const { services } = companion;
  const endpoint = sessions.http!;
  const pipe = sessions.pipe!;
  const listening = opening;
  const info: ServerInfo = {
    pid: process.pid,
    port: listening.port,
    url: listening.url,
    mcpUrl: `${listening.url}/mcp`,
    version: services.info.version,
    ...(services.settings.values.profile !== undefined || services.settings.values.spec !== undefined ? { profile: services.apis.list()[0]?.name } : {}),
    startedAt: services.info.startedAt.toISOString(),
  };
  writeFileSync(paths.serverInfo, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  lock.update({ url: listening.url, port: listening.port });
  const idle = watchIdle(
    settings.exitWhenIdle,
    () => endpoint.sessionCount() + pipe.sessionCount() === 0 && services.runs.caps.stats().active === 0 && services.broker.list().length === 0,
  );
  const orphan = watchOrphaned(paths.root, paths.serverInfo);
  return {
    companion,
    server,
    info,
    idle: idle.reached,
    orphaned: orphan.reached,
    async close() {
      idle.stop();
      orphan.stop();
      removeServerInfoIfOurs(paths.serverInfo);
      await endpoint.close();
      await pipe.close();
      await server.close();
      await companion.close();
      lock.release();
    },
  };
}

/**
 * Loads one part of the companion between two pauses for the event loop: a request takes a few turns (the
 * connection is accepted, its body read, then it is answered and written out), and one being answered early is
 * let finish, for 50 ms at most. Module evaluation gives the loop no turn, so without these a request that came in
 * would wait for every part.
 */
async function loadPart<T>(load: () => Promise<T>, early: EarlyMcp | undefined): Promise<T> {
  await letRequestsThrough(early);
  const loaded = await load();
  await letRequestsThrough(early);
  return loaded;
}

async function letRequestsThrough(early: EarlyMcp | undefined): Promise<void> {
  const turns = async (n: number) => {
    for (let turn = 0; turn < n; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  await turns(3);
  if (early?.busy()) {
    await early.quiet(50);
    await turns(2); // its answer is written out
  }
}

/** Resolves `reached` once `quiet()` has held for `seconds` in a row (checked every second); never when seconds is 0. */
function watchIdle(seconds: number, quiet: () => boolean): { reached: Promise<void>; stop(): void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  if (seconds <= 0) return { reached: promise, stop: () => {} };
  let since = Date.now();
  const timer = setInterval(() => {
    if (!quiet()) since = Date.now();
    else if (Date.now() - since >= seconds * 1000) {
      clearInterval(timer);
      resolve();
    }
  }, 1000);
  timer.unref();
  return { reached: promise, stop: () => clearInterval(timer) };
}

/** Why no client can find this companion any more, or undefined while server.json in its data dir still names it. */
export function orphanReason(root: string, serverInfo: string, pid = process.pid): string | undefined {
  try {
    statSync(root);
  } catch (error) {
    // Only "not there" is proof; a slow or unreadable file system (EACCES, EIO) is not.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? `the data dir ${root} no longer exists` : undefined;
  }
  let current: unknown;
  try {
    current = JSON.parse(readFileSync(serverInfo, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return `${serverInfo} was removed`;
    return undefined; // Being rewritten, or unreadable for a moment: not proof of anything.
  }
  const named = current && typeof current === 'object' ? (current as Partial<ServerInfo>).pid : undefined;
  if (named !== pid) return `${serverInfo} now names process ${String(named)}, not this one (${pid})`;
  return undefined;
}

/** Checks every second; the data dir gone, or three checks in a row that find the companion orphaned, resolve `reached` with the reason. */
function watchOrphaned(root: string, serverInfo: string): { reached: Promise<string>; stop(): void } {
  const { promise, resolve } = Promise.withResolvers<string>();
  let strikes = 0;
  const timer = setInterval(() => {
    const why = orphanReason(root, serverInfo);
    strikes = why === undefined ? 0 : strikes + 1;
    // The data dir gone is proof at once (nothing can be kept any more); server.json is looked at three times.
    if (why === undefined || (strikes < 3 && !why.startsWith('the data dir'))) return;
    clearInterval(timer);
    resolve(why);
  }, 1000);
  timer.unref();
  return { reached: promise, stop: () => clearInterval(timer) };
}

function removeServerInfoIfOurs(file: string): void {
  try {
    const current = JSON.parse(readFileSync(file, 'utf8')) as ServerInfo;
    if (current.pid === process.pid) rmSync(file);
  } catch {
    // Already gone.
  }
}
