// Read-only views of a running companion: the control API's status, the
// `health` and `get_config` MCP tools. Built from the parts they read, so
// this module depends on no composition code.
import type { Status } from '../../../contract/status.ts';
import type { AirlockCore } from './airlockCore.ts';
import type { Settings } from '../config/settings.ts';
import type { ExecutionCaps } from '../execute/caps.ts';
import type { ApprovalBroker } from '../approvals/approvalBroker.ts';
import type { SessionRegistry } from './sessionRegistry.ts';
import type { Credentials } from './credentials.ts';
import { defaultDataDir } from '../config/dataDir.ts';
import { CLI_ENTRY } from './installPaths.ts';
import { formatAuthScheme } from '../config/auth.ts';

export interface ViewSource {
  core: AirlockCore;
  settings: Settings;
  egress: string;
  banner: string | undefined;
  boundary: string;
  caps: ExecutionCaps;
  broker: ApprovalBroker;
  sessions: SessionRegistry;
  credentials: Credentials;
  endpoints: { http?: string };
  /** Set by the desktop shell: how the OS treats its notifications. */
  desktop?: () => { notifications: 'enabled' | 'unsupported' | 'failed'; detail?: string };
}

type StdioLauncher = (dataDir: string, defaultDataDir?: string) => { command: string; args: string[] };
let launcher: StdioLauncher | undefined;

/** The desktop app registers clients with its own executable (`--stdio`): no Node needed, a path that stays put. */
export function useStdioLauncher(fn: StdioLauncher): void {
  launcher = fn;
}

/** What a client config runs to reach this companion over stdio: absolute paths, no secret. */
export function stdioLaunch(dataDir: string, defaultDataDir?: string): { command: string; args: string[] } {
  if (launcher) return launcher(dataDir, defaultDataDir);
  return { command: process.execPath, args: [CLI_ENTRY, 'stdio', ...(defaultDataDir && dataDir !== defaultDataDir ? ['--data-dir', dataDir] : [])] };
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The same, as one shell line. */
export function stdioCommand(dataDir: string, defaultDataDir?: string): string {
  const launch = stdioLaunch(dataDir, defaultDataDir);
  return [launch.command, ...launch.args].map(quote).join(' ');
}

/**
 * The command that starts a headless companion again, as it was started (its argv holds no secret:
 * keys come from the environment or the keychain) and pinned to the port it got, so an open web UI
 * page finds it again. Undefined in the desktop app and when this process is not `airlock serve`.
 */
export function startCommandOf(args: readonly string[], httpUrl: string | undefined): string | undefined {
  if (!args.includes('serve')) return undefined;
  const port = httpUrl ? /^http:\/\/[^/]+:(\d+)\//.exec(httpUrl)?.[1] : undefined;
  const out: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (port && a === '--port') {
      k++;
      continue;
    }
    if (port && a.startsWith('--port=')) continue;
    out.push(a);
  }
  if (port) out.push('--port', port);
  return ['airlock', ...out].map(quote).join(' ');
}

/** The API being served, as status and get_config show it (the key's scheme, never the key). */
function apiSummary(c: ViewSource) {
  const { catalogue, baseUrl, origin, auth } = c.core.api;
  return {
    title: catalogue.title,
    version: catalogue.version,
    operations: catalogue.operations.length,
    baseUrl,
    spec: origin.location,
    auth: formatAuthScheme(auth),
  };
}

export function statusOf(c: ViewSource): Status {
  const mem = process.memoryUsage();
  const caps = c.caps.stats();
  const { profile } = c.core.api;
  return {
    version: c.core.version,
    pid: process.pid,
    startedAt: c.core.startedAt.toISOString(),
    uptimeSeconds: Math.round((Date.now() - c.core.startedAt.getTime()) / 1000),
    dataDir: c.core.paths.root,
    memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
    profile: profile.name,
    api: apiSummary(c),
    endpoints: {
      ...(c.endpoints.http ? { http: c.endpoints.http, tokenFile: c.core.paths.mcpToken } : {}),
      stdio: stdioCommand(c.core.paths.root, defaultDataDir()),
    },
    engine: c.settings.engine,
    egress: c.egress,
    ...(c.banner ? { banner: c.banner } : {}),
    boundary: c.boundary,
    killSwitch: c.settings.killSwitch,
    runs: { active: caps.active, queued: caps.queued, maxConcurrent: caps.maxConcurrent },
    sessions: c.sessions.list(),
    pendingApprovals: c.broker.list().length,
    keychain: c.credentials.keychain,
    secretStore: c.credentials.secretStore,
    ...(() => {
      const start = c.desktop ? undefined : startCommandOf(process.argv.slice(2), c.endpoints.http);
      return start ? { startCommand: start } : {};
    })(),
    credential: c.credentials.state,
    ...(c.desktop ? { desktop: c.desktop() } : {}),
  };
}

export function healthOf(c: ViewSource): Record<string, unknown> {
  const mem = process.memoryUsage();
  const caps = c.caps.stats();
  return {
    status: 'ok',
    version: c.core.version,
    uptimeSeconds: Math.round((Date.now() - c.core.startedAt.getTime()) / 1000),
    memory: {
      rssMb: Math.round(mem.rss / 1048576),
      heapUsedMb: Math.round(mem.heapUsed / 1048576),
      heapTotalMb: Math.round(mem.heapTotal / 1048576),
      externalMb: Math.round(mem.external / 1048576),
    },
    activeRuns: caps.active,
    queueDepth: caps.queued,
    connectedClients: c.sessions.size,
    pendingApprovals: c.broker.list().length,
    engine: c.settings.engine,
    egress: c.egress,
    profile: c.core.api.profile.name,
    killSwitch: c.settings.killSwitch,
  };
}

export function configOf(c: ViewSource): Record<string, unknown> {
  const { profile } = c.core.api;
  const s = c.settings;
  return {
    profile: {
      name: profile.name,
      origin: profile.origin,
      policy: profile.policy,
      readOnly: profile.readOnly,
      allowPrivateNetwork: profile.allowPrivateNetwork,
      alias: profile.alias ?? null,
    },
    api: apiSummary(c),
    credential: c.credentials.state,
    engine: s.engine,
    egress: c.egress,
    limits: {
      timeoutMs: s.timeoutMs,
      memoryMb: s.memoryMb,
      outputKb: s.outputKb,
      maxConcurrent: s.maxConcurrent,
      queueSize: s.queueSize,
      perCallerConcurrent: s.perCallerConcurrent,
      rateLimit: s.rateLimit,
      rateBurst: s.rateBurst,
    },
    approvalTimeoutMs: s.approvalTimeoutMs,
    killSwitch: s.killSwitch,
    dataDir: c.core.paths.root,
  };
}
