// `airlock doctor`: what Airlock would run with and whether it can — data
// dir, settings, profile, OpenAPI document, base URL, auth, server and port.
// Human-readable by default, `--json` for scripts. Exit 1 when a check fails.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dataPaths } from '../../core/config/dataDir.ts';
import { formatAuthScheme, inferAuthScheme } from '../../core/config/auth.ts';
import { ProfileStore, selectProfile } from '../../core/profiles/profileStore.ts';
import { DEMO_SPEC } from '../../core/profiles/profile.ts';
import { loadApiDocument } from '../../core/openapi/loadDocument.ts';
import { buildCatalogue } from '../../core/openapi/catalogue.ts';
import { demoSpecPath } from '../../core/demo/demoServer.ts';
import { errorMessage } from '../../core/errors.ts';
import { AIRLOCK_VERSION } from '../../core/runtime/version.ts';
import type { CliContext } from '../context.ts';
import type { ServerInfo } from '../runningServer.ts';
import { checkEngineEgress } from '../../core/sandbox/engineMatrix.ts';
import { createKeychainStore } from '../../core/secrets/keychainStore.ts';
import { createFileStore } from '../../core/secrets/fileStore.ts';
import { openAuditStore } from '../../core/audit/auditStore.ts';
import { engineChecks } from './engineChecks.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  data?: Record<string, unknown>;
}

export async function doctorChecks(ctx: CliContext): Promise<Check[]> {
  const { settings, sources } = ctx;
  const paths = dataPaths(settings.dataDir);
  const checks: Check[] = [];
  checks.push({
    name: 'airlock',
    ok: true,
    detail: `${AIRLOCK_VERSION} on Node ${process.versions.node} (${process.platform} ${process.arch})`,
    data: { version: AIRLOCK_VERSION, node: process.versions.node },
  });

  const dirExists = existsSync(paths.root);
  const mode = dirExists ? (statSync(paths.root).mode & 0o777).toString(8) : undefined;
  checks.push({
    name: 'data dir',
    ok: true,
    detail: `${paths.root} (${dirExists ? `exists, mode ${mode}` : 'created on first serve'}; from ${sources.dataDir})`,
    data: { path: paths.root, exists: dirExists },
  });
  checks.push({
    name: 'settings',
    ok: true,
    detail: existsSync(paths.settings) ? paths.settings : `${paths.settings} (none; defaults, flags and AIRLOCK_* env apply)`,
  });

  let profileName = settings.profile ?? (settings.spec ? 'custom' : 'demo');
  try {
    const profile = selectProfile(settings, new ProfileStore(paths.profiles));
    profileName = profile.name;
    checks.push({
      name: 'profile',
      ok: true,
      detail: `${profile.name} (${profile.origin}${profile.file ? ` ${profile.file}` : ''}); mutations: ${profile.policy}${profile.readOnly ? ', read-only' : ''}`,
      data: { name: profile.name, origin: profile.origin, policy: profile.policy },
    });
    const spec = profile.spec === DEMO_SPEC ? demoSpecPath() : profile.spec;
    try {
      const loaded = await loadApiDocument(spec, { cacheDir: paths.specCache, refresh: settings.refreshSpec });
      const catalogue = buildCatalogue(loaded.document, loaded.refNames);
      const cached = loaded.origin.kind === 'url' ? `, ${loaded.origin.fromCache ? 'cached' : 'fetched'} ${loaded.origin.fetchedAt}` : '';
      checks.push({
        name: 'spec',
        ok: true,
        detail: `${loaded.origin.location}: ${catalogue.title} ${catalogue.version}, ${catalogue.operations.length} operations (${loaded.loadMs.toFixed(0)} ms${cached})`,
        data: { location: loaded.origin.location, title: catalogue.title, operations: catalogue.operations.length },
      });
      const base =
        profile.spec === DEMO_SPEC
          ? 'the demo server (a free loopback port, chosen at start)'
          : (profile.baseUrl ?? catalogue.servers[0] ?? 'none: pass --base-url');
      checks.push({ name: 'base URL', ok: base !== 'none: pass --base-url', detail: base });
      const auth = profile.auth ?? inferAuthScheme(catalogue.securitySchemes, loaded.document.security);
      const key = process.env.AIRLOCK_API_KEY ? 'AIRLOCK_API_KEY is set' : 'AIRLOCK_API_KEY not set';
      checks.push({ name: 'auth', ok: true, detail: `${formatAuthScheme(auth)}${auth.type === 'none' ? '' : `; ${key}`}` });
    } catch (error) {
      checks.push({ name: 'spec', ok: false, detail: `${spec}: ${errorMessage(error)}` });
    }
  } catch (error) {
    checks.push({ name: 'profile', ok: false, detail: `${profileName}: ${errorMessage(error)}` });
  }

  const verdict = checkEngineEgress(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  checks.push(
    verdict.ok
      ? {
          name: 'sandbox',
          ok: true,
          detail: `engine ${settings.engine}, egress ${verdict.egress}${verdict.banner ? ` — ${verdict.banner}` : ''}`,
          data: { engine: settings.engine, egress: verdict.egress },
        }
      : { name: 'sandbox', ok: false, detail: verdict.reason },
  );
  checks.push(...(await engineChecks(ctx)));

  const store = settings.secretStore === 'file' ? createFileStore({ path: paths.secretsFile }) : createKeychainStore();
  const probe = await store.probe();
  checks.push({
    name: settings.secretStore === 'file' ? 'file store' : 'keychain',
    // An unavailable keychain is not fatal when AIRLOCK_API_KEY is set or the profile needs no key.
    ok: true,
    detail: probe.available
      ? probe.detail
      : `${store.kind} unavailable: ${probe.reason}${process.env.AIRLOCK_API_KEY ? ' (AIRLOCK_API_KEY is set and will be used)' : ''}`,
    data: { kind: store.kind, available: probe.available },
  });
  checks.push(auditCheck(paths.audit));

  checks.push(await serverCheck(paths.serverInfo, settings.port));
  checks.push({
    name: 'MCP token',
    ok: true,
    detail: existsSync(paths.mcpToken)
      ? `${paths.mcpToken} (mode ${(statSync(paths.mcpToken).mode & 0o777).toString(8)})`
      : `${paths.mcpToken} (created on first serve)`,
  });
  return checks;
}

function auditCheck(file: string): Check {
  if (!existsSync(file)) return { name: 'audit', ok: true, detail: `${file} (created on first serve or stdio)` };
  try {
    const store = openAuditStore({ file });
    try {
      const head = store.head();
      return {
        name: 'audit',
        ok: true,
        detail: `${file}: ${head.records} records, head #${head.seq} ${head.hash.slice(0, 12)}… (\`airlock audit verify\` checks the chain)`,
        data: { records: head.records, headSeq: head.seq },
      };
    } finally {
      store.close();
    }
  } catch (error) {
    return { name: 'audit', ok: false, detail: `${file}: ${errorMessage(error)}` };
  }
}

async function serverCheck(file: string, port: number): Promise<Check> {
  let info: ServerInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as ServerInfo;
  } catch {
    return { name: 'server', ok: true, detail: `not running (configured port ${port})`, data: { running: false, port } };
  }
  let alive: boolean;
  try {
    process.kill(info.pid, 0);
    alive = true;
  } catch {
    alive = false;
  }
  if (!alive)
    return { name: 'server', ok: true, detail: `not running; stale ${file} from pid ${info.pid} (removed at next serve)`, data: { running: false, port } };
  let health: string;
  try {
    const r = await fetch(`${info.url}/health`, { signal: AbortSignal.timeout(2000) });
    health = r.ok ? 'ok' : `HTTP ${r.status}`;
  } catch (error) {
    health = errorMessage(error);
  }
  return {
    name: 'server',
    ok: health === 'ok',
    detail: `running: pid ${info.pid}, ${info.mcpUrl}, profile ${info.profile}, /health ${health}`,
    data: { running: true, ...info, health },
  };
}

export async function doctorCommand(ctx: CliContext, options: { json?: boolean }): Promise<number> {
  const checks = await doctorChecks(ctx);
  if (options.json) {
    process.stdout.write(JSON.stringify({ ok: checks.every((c) => c.ok), checks }, null, 2) + '\n');
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) process.stdout.write(`${c.ok ? ' ' : '✗'} ${c.name.padEnd(width)}  ${c.detail}\n`);
  }
  return checks.every((c) => c.ok) ? 0 : 1;
}
