// `airlock doctor`: what Airlock would run with and whether it can — data
// dir, every setting with where its value came from (flag, env, settings
// file, profile, document, default), profile, OpenAPI document, engines,
// keychain, audit, server. Each check is ok, a warning or a failure, the
// same in the text and in `--json`. Exit 1 when a check fails.
import { BY_ORGANISATION, policySummary } from '../../core/config/managedPolicy.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dataPaths } from '../../core/config/dataDir.ts';
import { formatAuthScheme, inferAuthScheme, type AuthScheme } from '../../core/config/auth.ts';
import { SETTINGS } from '../../core/config/settings.ts';
import type { SettingDef } from '../../core/config/settingDef.ts';
import { ProfileStore, selectProfile } from '../../core/profiles/profileStore.ts';
import { DEMO_SPEC, type Profile } from '../../core/profiles/profile.ts';
import { loadApiDocument } from '../../core/openapi/loadDocument.ts';
import { buildCatalogue } from '../../core/openapi/catalogue.ts';
import { demoSpecPath } from '../../core/demo/demoServer.ts';
import { errorMessage } from '../../core/util/errors.ts';
import { AIRLOCK_VERSION } from '../../core/util/version.ts';
import type { CliContext } from '../context.ts';
import { runningCompanion, type ServerInfo } from '../runningServer.ts';
import { checkEngineNetwork } from '../../core/sandbox/engineMatrix.ts';
import { createKeychainStore } from '../../core/secrets/keychainStore.ts';
import { createFileStore } from '../../core/secrets/fileStore.ts';
import { keyEnvsOf } from '../../core/secrets/resolveCredential.ts';
import { openAuditStore } from '../../core/audit/auditStore.ts';
import { engineInventory, type ComponentState } from '../../core/diagnostics/engineInventory.ts';
import { isAlive as isProcessAlive } from '../../core/config/serverInfo.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  data?: Record<string, unknown>;
}

export interface SettingReport {
  key: string;
  flag: string;
  value: unknown;
  /** flag, env, file (settings.json), profile <name>, document, or default. */
  source: string;
}

interface Derived {
  profile?: Profile;
  auth?: AuthScheme;
  authFromDocument?: boolean;
}

function settingsReport(ctx: CliContext, derived: Derived): SettingReport[] {
  const { settings, sources } = ctx;
  const fromProfile = (key: 'spec' | 'baseUrl' | 'auth'): { value: unknown; source: string } | undefined => {
    const p = derived.profile;
    if (!p || sources[key] !== 'default') return undefined;
    const where = p.origin === 'file' ? `profile file ${p.file ?? p.name}` : `profile ${p.name} (${p.origin})`;
    if (key === 'spec') return { value: p.spec, source: where };
    if (key === 'baseUrl' && p.baseUrl) return { value: p.baseUrl, source: where };
    if (key === 'auth') {
      if (p.auth) return { value: formatAuthScheme(p.auth), source: where };
      if (derived.auth) return { value: formatAuthScheme(derived.auth), source: 'document' };
    }
    return undefined;
  };
  return (SETTINGS as readonly SettingDef<unknown>[]).map((d) => {
    const raw = (settings as unknown as Record<string, unknown>)[d.key];
    const derivedValue = d.key === 'spec' || d.key === 'baseUrl' || d.key === 'auth' ? fromProfile(d.key) : undefined;
    const source = sources[d.key] ?? 'default';
    const value = derivedValue?.value ?? (d.key === 'auth' && raw ? formatAuthScheme(raw as AuthScheme) : (raw ?? d.defaultText ?? null));
    return {
      key: d.key,
      flag: d.flag,
      value,
      source: derivedValue?.source ?? (source === 'file' ? 'settings.json' : source === 'managed' ? `managed (${BY_ORGANISATION})` : source),
    };
  });
}

function component(name: string, c: ComponentState): Check {
  return {
    name,
    status: c.found ? 'ok' : 'warn',
    detail: c.found ? c.detail : `${c.detail}${c.installHint ? ` (to install: ${c.installHint})` : ''}`,
    data: { found: c.found, ...(c.version ? { version: c.version } : {}) },
  };
}

export async function doctorReport(ctx: CliContext): Promise<{ checks: Check[]; settings: SettingReport[] }> {
  const { settings, sources } = ctx;
  const paths = dataPaths(settings.dataDir);
  const checks: Check[] = [];
  const derived: Derived = {};
  checks.push({
    name: 'airlock',
    status: 'ok',
    detail: `${AIRLOCK_VERSION} on Node ${process.versions.node} (${process.platform} ${process.arch})`,
    data: { version: AIRLOCK_VERSION, node: process.versions.node },
  });

  const dirExists = existsSync(paths.root);
  const mode = dirExists ? (statSync(paths.root).mode & 0o777).toString(8) : undefined;
  checks.push({
    name: 'data dir',
    status: 'ok',
    detail: `${paths.root} (${dirExists ? `exists, mode ${mode}` : 'created on first serve'}; from ${sources.dataDir})`,
    data: { path: paths.root, exists: dirExists },
  });
  checks.push({
    name: 'settings file',
    status: 'ok',
    detail: existsSync(paths.settings) ? paths.settings : `${paths.settings} (none; defaults, flags and AIRLOCK_* env apply)`,
  });

  // The organisation's managed policy: where it is looked for, whether it is in effect, and what it fixes.
  const managed = ctx.managed;
  if (managed) {
    const fixed = managed.state === 'ok' ? Object.keys(managed.policy.settings) : [];
    checks.push({
      name: 'managed policy',
      status: managed.state === 'broken' ? 'fail' : 'ok',
      detail:
        managed.state === 'none'
          ? `none (${managed.file} is not there: nothing is ${BY_ORGANISATION})`
          : managed.state === 'broken'
            ? `${managed.file} is broken (${managed.error}): execute is switched off until it is fixed`
            : `${managed.file} in effect (${BY_ORGANISATION}): ${
                policySummary(managed.policy)
                  .map((rule) => rule.text)
                  .join('; ') || 'it sets nothing'
              }`,
      data: { file: managed.file, state: managed.state, fixed },
    });
  }

  let profileName = settings.profile ?? (settings.spec ? 'custom' : 'demo');
  try {
    const profile = selectProfile(settings, new ProfileStore(paths.profiles));
    derived.profile = profile;
    profileName = profile.name;
    checks.push({
      name: 'profile',
      status: 'ok',
      detail: `${profile.name} (${profile.origin}${profile.file ? ` ${profile.file}` : ''}); mutations: ${profile.policy}${profile.readOnly ? ', read-only' : ''}`,
      data: { name: profile.name, origin: profile.origin, policy: profile.policy },
    });
    const spec = profile.spec === DEMO_SPEC ? demoSpecPath() : profile.spec;
    try {
      const loaded = await loadApiDocument(spec, {
        cacheDir: paths.specCache,
        refresh: settings.refreshSpec,
        ...(profile.allowExternalRefs ? { allowExternalRefs: profile.allowExternalRefs } : {}),
      });
      const catalogue = buildCatalogue(loaded.document, loaded.refNames);
      const cached = loaded.origin.kind === 'url' ? `, ${loaded.origin.fromCache ? 'cached' : 'fetched'} ${loaded.origin.fetchedAt}` : '';
      checks.push({
        name: 'spec',
        status: catalogue.warnings.length > 0 ? 'warn' : 'ok',
        detail: `${loaded.origin.location}: ${catalogue.title} ${catalogue.version}, ${catalogue.operations.length} operations (${loaded.loadMs.toFixed(0)} ms${cached})${catalogue.warnings.map((w) => `; ${w}`).join('')}`,
        data: { location: loaded.origin.location, title: catalogue.title, operations: catalogue.operations.length, warnings: catalogue.warnings },
      });
      const base =
        profile.spec === DEMO_SPEC ? 'the demo server (a free loopback port, chosen at start)' : (settings.baseUrl ?? profile.baseUrl ?? catalogue.servers[0]);
      checks.push({ name: 'base URL', status: base ? 'ok' : 'fail', detail: base ?? 'none: pass --base-url' });
      derived.authFromDocument = !profile.auth && !settings.auth;
      const auth = settings.auth ?? profile.auth ?? inferAuthScheme(catalogue.securitySchemes, loaded.document.security);
      derived.auth = auth;
      const key = keyEnvWords(profileName);
      checks.push({ name: 'auth', status: 'ok', detail: `${formatAuthScheme(auth)}${auth.type === 'none' ? '' : `; ${key}`}` });
    } catch (error) {
      checks.push({ name: 'spec', status: 'fail', detail: `${spec}: ${errorMessage(error)}` });
    }
  } catch (error) {
    checks.push({ name: 'profile', status: 'fail', detail: `${profileName}: ${errorMessage(error)}` });
  }

  const verdict = checkEngineNetwork(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  checks.push(
    verdict.ok
      ? {
          name: 'sandbox',
          status: verdict.banner ? 'warn' : 'ok',
          detail: `engine ${settings.engine}, egress ${verdict.egress}${verdict.banner ? ` — ${verdict.banner}` : ''}`,
          data: { engine: settings.engine, egress: verdict.egress },
        }
      : { name: 'sandbox', status: 'fail', detail: verdict.reason },
  );
  const engines = await engineInventory();
  checks.push(
    component('engine quickjs', engines.quickjs),
    component('engine node', engines.node),
    component('engine deno', engines.deno),
    component('srt wrapper', engines.srt),
  );

  const store = settings.secretStore === 'file' ? createFileStore({ path: paths.secretsFile }) : createKeychainStore();
  const probe = await store.probe();
  const needsKey = derived.auth !== undefined && derived.auth.type !== 'none';
  checks.push({
    name: settings.secretStore === 'file' ? 'file store' : 'keychain',
    // Unavailable is a warning, not a failure: AIRLOCK_KEY_<API> (or AIRLOCK_API_KEY) works, and a profile may need no key.
    status: probe.available && store.kind !== 'file' ? 'ok' : 'warn',
    detail: probe.available
      ? `${probe.detail}${store.kind === 'file' ? ' (plaintext file store: an explicit opt-in)' : ''}`
      : `${store.kind} unavailable: ${probe.reason}${keyEnvSet(profileName) ? ` (${keyEnvSet(profileName)} is set and will be used)` : needsKey ? ' (calls go out without a key until one is set)' : ' (this profile sends no key)'}`,
    data: { kind: store.kind, available: probe.available },
  });
  checks.push(auditCheck(paths.audit));
  const server = await serverCheck(paths.serverInfo, settings.port);
  checks.push(server);
  if ((server.data as { running?: boolean } | undefined)?.running) checks.push(await clientsCheck(settings.dataDir));
  checks.push({
    name: 'MCP token',
    status: 'ok',
    detail: existsSync(paths.mcpToken)
      ? `${paths.mcpToken} (mode ${(statSync(paths.mcpToken).mode & 0o777).toString(8)})`
      : `${paths.mcpToken} (created on first serve)`,
  });
  return { checks, settings: settingsReport(ctx, derived) };
}

function auditCheck(file: string): Check {
  if (!existsSync(file)) return { name: 'audit', status: 'ok', detail: `${file} (created on first serve or stdio)` };
  try {
    const store = openAuditStore({ file });
    try {
      const head = store.head();
      return {
        name: 'audit',
        status: 'ok',
        detail: `${file}: ${head.records} records, head #${head.seq} ${head.hash.slice(0, 12)}… (\`airlock audit verify\` checks the chain)`,
        data: { records: head.records, headSeq: head.seq },
      };
    } finally {
      store.close();
    }
  } catch (error) {
    return { name: 'audit', status: 'fail', detail: `${file}: ${errorMessage(error)}` };
  }
}

async function serverCheck(file: string, port: number): Promise<Check> {
  let info: ServerInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as ServerInfo;
  } catch {
    return { name: 'server', status: 'ok', detail: `not running (configured port ${port})`, data: { running: false, port } };
  }
  if (!isProcessAlive(info.pid)) {
    return { name: 'server', status: 'ok', detail: `not running; stale ${file} from pid ${info.pid} (replaced at next serve)`, data: { running: false, port } };
  }
  let health: string;
  try {
    const r = await fetch(`${info.url}/health`, { signal: AbortSignal.timeout(2000) });
    health = r.ok ? 'ok' : `HTTP ${r.status}`;
  } catch (error) {
    health = errorMessage(error);
  }
  return {
    name: 'server',
    status: health === 'ok' ? 'ok' : 'fail',
    detail: `running: pid ${info.pid}, ${info.mcpUrl}, ${info.profile ? `profile ${info.profile}, ` : ''}/health ${health}`,
    data: { running: true, ...info, health },
  };
}

/** The clients connected to the running companion, each with the MCP revision it speaks (its control API's status). */
async function clientsCheck(dataDir: string): Promise<Check> {
  try {
    const control = await runningCompanion(dataDir, { timeoutMs: 2_000 });
    const sessions = control ? (await control.call('status', {})).sessions : [];
    const listed = sessions.map(
      (c) =>
        `${c.clientName ?? 'unnamed'}${c.clientVersion ? ` ${c.clientVersion}` : ''} over ${c.transport}, MCP ${c.protocolVersion ?? 'revision not known yet'}`,
    );
    return {
      name: 'clients',
      status: 'ok',
      detail: listed.length === 0 ? 'none connected' : `${listed.length} connected: ${listed.join('; ')}`,
      data: { sessions },
    };
  } catch (error) {
    return { name: 'clients', status: 'warn', detail: `the running companion did not say which clients are connected: ${errorMessage(error)}` };
  }
}

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

export async function doctorCommand(ctx: CliContext, options: { json?: boolean }): Promise<number> {
  const { checks, settings } = await doctorReport(ctx);
  const ok = checks.every((c) => c.status !== 'fail');
  if (options.json) {
    process.stdout.write(JSON.stringify({ ok, checks, settings }, null, 2) + '\n');
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) process.stdout.write(`${MARK[c.status]} ${c.name.padEnd(width)}  ${c.detail}\n`);
    process.stdout.write('\nSettings (value, and where it came from):\n');
    const keyWidth = Math.max(...settings.map((s) => s.flag.length));
    for (const s of settings) {
      const value = s.value === null || s.value === undefined ? '—' : typeof s.value === 'string' ? s.value : JSON.stringify(s.value);
      process.stdout.write(`  ${s.flag.padEnd(keyWidth)}  ${value}  (${s.source})\n`);
    }
  }
  return ok ? 0 : 1;
}

/** The first variable set that the named profile reads its key from (AIRLOCK_KEY_<API>, then AIRLOCK_API_KEY). */
function keyEnvSet(profile: string): string | undefined {
  return keyEnvsOf(profile, true).find((n) => (process.env[n] ?? '').length > 0);
}

/** "AIRLOCK_KEY_GITHUB is set", or "neither AIRLOCK_KEY_GITHUB nor AIRLOCK_API_KEY is set". */
function keyEnvWords(profile: string): string {
  const set = keyEnvSet(profile);
  const [own, shared] = keyEnvsOf(profile, true);
  return set ? `${set} is set` : `neither ${own} nor ${shared} is set`;
}
