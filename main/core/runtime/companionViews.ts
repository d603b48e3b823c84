// Read-only views of a running companion: the control API's status, the
// `health` and `get_config` MCP tools. Built from the parts they read, so
// this module depends on no composition code.
import type { Status } from '../../../contract/status.ts';
import { defaultDataDir } from '../config/dataDir.ts';
import { formatAuthScheme } from '../config/auth.ts';
import { stdioCommand } from '../clients/stdioLaunch.ts';
import { shellQuote } from '../../../contract/values.ts';
import type { Services } from './services.ts';

/** What the views read: the companion's parts, never its composition. */
export type ViewSource = Pick<Services, 'info' | 'settings' | 'apis' | 'engines' | 'runs' | 'broker' | 'sessions' | 'keys' | 'host'>;

/**
 * The command that starts a headless companion again, as it was started (its argv holds no secret:
 * keys come from the environment or the keychain) and pinned to the port it got, so an open web UI
 * page finds it again; a data dir given in AIRLOCK_DATA_DIR is written out as --data-dir, since the
 * shell the person types in may not have it. Undefined in the desktop app and when this process is not
 * `airlock serve`.
 */
export function startCommandOf(args: readonly string[], httpUrl: string | undefined, dataDirFromEnv?: string): string | undefined {
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
  if (dataDirFromEnv !== undefined && !args.some((a) => a === '--data-dir' || a.startsWith('--data-dir='))) out.push('--data-dir', dataDirFromEnv);
  return ['airlock', ...out].map(shellQuote).join(' ');
}

/** The primary API, as status and get_config show it (the key's scheme, never the key); undefined when none is served. */
function apiSummary(c: Pick<ViewSource, 'apis'>) {
  const primary = c.apis.primaryOrNone();
  if (!primary) return undefined;
  const { catalogue, baseUrl, origin, auth } = primary.api;
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
  const caps = c.runs.caps.stats();
  const engine = c.engines.state();
  const mcpUrl = c.host.mcpUrl?.();
  return {
    version: c.info.version,
    pid: process.pid,
    startedAt: c.info.startedAt.toISOString(),
    uptimeSeconds: Math.round((Date.now() - c.info.startedAt.getTime()) / 1000),
    dataDir: c.info.paths.root,
    memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
    ...(() => {
      const primary = c.apis.primaryOrNone();
      return primary ? { profile: primary.api.profile.name, api: apiSummary(c)! } : {};
    })(),
    apis: c.apis.list().map((a) => ({
      name: a.name,
      id: a.id,
      state: a.state,
      ...(a.opened ? { title: a.opened.api.catalogue.title, operations: a.opened.api.catalogue.operations.length } : {}),
      ...(a.error ? { error: a.error } : {}),
    })),
    endpoints: {
      ...(mcpUrl ? { http: mcpUrl, tokenFile: c.info.paths.mcpToken } : {}),
      stdio: stdioCommand(c.info.paths.root, defaultDataDir()),
    },
    engine: engine.engine,
    egress: engine.network,
    ...(engine.banner ? { banner: engine.banner } : {}),
    boundary: engine.boundary,
    killSwitch: c.settings.values.killSwitch,
    runs: { active: caps.active, queued: caps.queued, maxConcurrent: caps.maxConcurrent },
    sessions: c.sessions.list(),
    pendingApprovals: c.broker.list().length,
    keychain: c.keys.credentials.keychain,
    secretStore: c.keys.credentials.secretStore,
    ...(() => {
      const fromEnv = c.settings.sources.dataDir === 'env' ? c.settings.values.dataDir : undefined;
      const start = c.host.desktop ? undefined : startCommandOf(process.argv.slice(2), mcpUrl, fromEnv);
      return start ? { startCommand: start } : {};
    })(),
    credential: c.keys.credentials.state,
    ...(c.host.desktop ? { desktop: c.host.desktop() } : {}),
  };
}

export function healthOf(c: ViewSource): Record<string, unknown> {
  const mem = process.memoryUsage();
  const caps = c.runs.caps.stats();
  const engine = c.engines.state();
  return {
    status: 'ok',
    version: c.info.version,
    uptimeSeconds: Math.round((Date.now() - c.info.startedAt.getTime()) / 1000),
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
    engine: engine.engine,
    egress: engine.network,
    profile: c.apis.primaryOrNone()?.api.profile.name ?? null,
    apis: c.apis.list().map((a) => `${a.name}: ${a.state}`),
    killSwitch: c.settings.values.killSwitch,
  };
}

export function configOf(c: ViewSource): Record<string, unknown> {
  const profile = c.apis.primaryOrNone()?.api.profile;
  const s = c.settings.values;
  const engine = c.engines.state();
  return {
    profile: profile
      ? {
          name: profile.name,
          origin: profile.origin,
          policy: profile.policy,
          readOnly: profile.readOnly,
          allowPrivateNetwork: profile.allowPrivateNetwork,
          alias: profile.alias ?? null,
        }
      : null,
    api: apiSummary(c) ?? null,
    credential: c.keys.credentials.state,
    engine: engine.engine,
    egress: engine.network,
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
    dataDir: c.info.paths.root,
  };
}
