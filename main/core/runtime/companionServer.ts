// The companion behind its loopback server: MCP Streamable HTTP on
// http://127.0.0.1:<port>/mcp behind the MCP token, the control API under
// /control behind its own token, /health without one, and server.json in the
// data dir while it runs. `airlock serve` and the Electron main process both
// start exactly this.
import { statSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { createCompanion, type Companion } from './companion.ts';
import { createMcpEndpoint } from '../mcp/httpMcpEndpoint.ts';
import { createPipeEndpoint } from '../mcp/pipeMcpEndpoint.ts';
import { startLoopbackServer, sendJson, type LoopbackServer } from '../http/loopbackServer.ts';
import { ensureTokenFile, rotateTokenFile } from '../http/tokenFile.ts';
import { createControlRoutes } from '../control/controlRoutes.ts';
import type { RuntimeContext } from './runtimeContext.ts';
import { localUser } from './localUser.ts';
import { acquireCompanionLock, type LockInfo } from './companionLock.ts';
import { dataPaths, ensureDataDir } from '../config/dataDir.ts';
import { isLoopbackAddress } from '../http/requestGuards.ts';
import { AirlockError } from '../errors.ts';
import { UiSessions } from '../http/uiSessions.ts';
import { assertUiBuilt, createWebUiRoutes } from '../http/webUi.ts';

/** What server.json in the data dir says while a companion serves. */
export interface ServerInfo {
  pid: number;
  port: number;
  url: string;
  mcpUrl: string;
  version: string;
  profile: string;
  startedAt: string;
}

export interface Served {
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
export async function startServing(ctx: RuntimeContext, options: { kind?: LockInfo['kind'] } = {}): Promise<Served> {
  const { settings, logger } = ctx;
  // Refused before anything starts: a non-loopback bind without the explicit flag, a data dir another companion holds.
  if (!isLoopbackAddress(settings.host) && !settings.dangerouslyAllowNonLoopback) {
    throw new AirlockError('usage', `--host ${settings.host} is not a loopback address; Airlock binds 127.0.0.1 only`, {
      hint: 'add --dangerously-allow-non-loopback to expose it to the network anyway',
    });
  }
  const paths = dataPaths(settings.dataDir);
  ensureDataDir(paths.root);
  const lock = acquireCompanionLock(paths.lock, paths.root, options.kind ?? 'serve');
  let companion: Companion;
  try {
    companion = await createCompanion({ resolved: ctx, logger, logBuffer: ctx.logBuffer, mode: 'serve', redaction: ctx.redaction });
  } catch (error) {
    lock.release();
    throw error;
  }
  // Read by the server at each request, so a rotation takes effect at once.
  const tokens = { mcp: ensureTokenFile(paths.mcpToken), control: ensureTokenFile(paths.controlToken) };
  let origin = '';
  const uiSessions = settings.ui ? new UiSessions() : undefined;
  if (uiSessions) assertUiBuilt();
  const endpoint = createMcpEndpoint({ createServer: () => companion.createMcpServer('http'), logger: logger.child('mcp') });
  const pipe = createPipeEndpoint({ createServer: () => companion.createMcpServer('stdio'), logger: logger.child('mcp') });
  let server: LoopbackServer;
  try {
    server = await startLoopbackServer({
      host: settings.host,
      port: settings.port,
      allowNonLoopback: settings.dangerouslyAllowNonLoopback,
      tokens,
      logger: logger.child('http'),
      upgrades: [pipe.route],
      routes: [
        { path: '/health', auth: 'none', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
        endpoint.route,
        ...(uiSessions
          ? createWebUiRoutes({
              sessions: uiSessions,
              origin: () => origin,
              dispatch: companion.dispatch,
              hub: companion.hub,
              replay: (since) => companion.replay(since),
              caller: { by: `${localUser()} via web UI`, channel: 'web' },
            })
          : []),
        ...createControlRoutes({
          dispatch: companion.dispatch,
          hub: companion.hub,
          replay: (since) => companion.replay(since),
          caller: { by: `${localUser()} via control API`, channel: 'http' },
        }),
      ],
    });
  } catch (error) {
    await companion.close();
    lock.release();
    throw error;
  }
  companion.endpoints.http = `${server.url}/mcp`;
  companion.rotateMcpToken = () => {
    tokens.mcp = rotateTokenFile(paths.mcpToken);
    const closed = endpoint.endAll('ended: the MCP token was rotated') + pipe.endAll('ended: the MCP token was rotated');
    logger.warn(`MCP token rotated (${paths.mcpToken}); ${closed} session(s) ended — clients need the new token`);
    return { file: paths.mcpToken, endedSessions: closed };
  };
  origin = server.url;
  if (uiSessions) {
    companion.ui = {
      loginLink: () => {
        const login = uiSessions.issueLoginToken();
        return { url: `${server.url}/ui/#login=${login.token}`, expiresAt: new Date(login.expiresAt).toISOString() };
      },
    };
  }
  const info: ServerInfo = {
    pid: process.pid,
    port: server.port,
    url: server.url,
    mcpUrl: `${server.url}/mcp`,
    version: companion.core.version,
    profile: companion.core.api.profile.name,
    startedAt: companion.core.startedAt.toISOString(),
  };
  writeFileSync(paths.serverInfo, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  lock.update({ url: server.url, port: server.port });
  const idle = watchIdle(
    settings.exitWhenIdle,
    () => endpoint.sessionCount() + pipe.sessionCount() === 0 && companion.caps.stats().active === 0 && companion.broker.list().length === 0,
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

/** Checks every second; three checks in a row that find the companion orphaned resolve `reached` with the reason. */
function watchOrphaned(root: string, serverInfo: string): { reached: Promise<string>; stop(): void } {
  const { promise, resolve } = Promise.withResolvers<string>();
  let strikes = 0;
  const timer = setInterval(() => {
    const why = orphanReason(root, serverInfo);
    strikes = why === undefined ? 0 : strikes + 1;
    if (why === undefined || strikes < 3) return;
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
