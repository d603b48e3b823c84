// The control API's handlers: each method of the contract, answered from the
// companion's parts. Secrets go in (keys.set) but never come out: keys are
// listed by fingerprint only, and the dispatcher parses every output against
// the contract, so a field a handler might add by mistake is stripped.
// Depends on the parts it reads (HandlerDeps), not on the composition.
import type { AuditEntry } from '../audit/types.ts';
import type { AuditRecord } from '../../../contract/audit.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../errors.ts';
import type { EgressMode, ResolvedSettings, Settings } from '../config/settings.ts';
import { settingByKey } from '../config/settings.ts';
import { readSettingsFile, validateSettingsObject, writeSettingsFile } from '../config/settingsFile.ts';
import { LIVE_SETTINGS, settingsMeta } from '../config/settingsMeta.ts';
import { engineCell, engineMatrix } from './engineChoice.ts';
import { engineInventory } from '../diagnostics/engineInventory.ts';
import type { EngineName } from '../sandbox/engine.ts';
import { buildCatalogue, type ApiOperation } from '../openapi/catalogue.ts';
import { isUrl, loadApiDocument } from '../openapi/loadDocument.ts';
import { checkAllowEntry } from '../openapi/externalRefs.ts';
import { isAbsolute } from 'node:path';
import { formatAuthScheme, inferAuthScheme, parseAuthScheme } from '../config/auth.ts';
import { ProfileStore } from '../profiles/profileStore.ts';
import { profileToFile, type Profile } from '../profiles/profile.ts';
import { fingerprint } from '../secrets/fingerprint.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import type { AuditStore } from '../audit/auditStore.ts';
import type { EgressGate } from '../egress/egressGate.ts';
import { statusOf, type ViewSource } from './companionViews.ts';

export interface HandlerDeps extends ViewSource {
  /** Set when the web UI is served. */
  ui?: { loginLink(): { url: string; expiresAt: string } };
  resolved: ResolvedSettings;
  settings: Settings;
  secrets: SecretStore;
  audit: AuditStore;
  gate: EgressGate;
  /** Puts live settings already written into `settings` into effect (caps, rate limit). */
  applyLive?(keys: string[]): void;
  /** Switches the running companion's engine × egress (the next run uses it). */
  switchEngine?(choice: { engine: EngineName; egress: EgressMode; acknowledgeUnrestricted?: boolean }): Promise<void>;
}

/** An audit entry as the contract shows it (the same flat object the chain hashes). */
export function toAuditRecord(entry: AuditEntry): AuditRecord {
  return entry as unknown as AuditRecord;
}

export function createControlHandlers(c: HandlerDeps): ControlHandlers {
  const profiles = new ProfileStore(c.core.paths.profiles);
  const activeProfile = c.core.api.profile.name;
  const log = c.core.logger;
  const operationView = (op: ApiOperation) => {
    const own = c.core.api.profile.operationPolicies?.[op.id];
    const mutation = c.gate.isMutation(op);
    return {
      operationId: op.id,
      call: op.call,
      method: op.method,
      path: op.path,
      ...(op.summary ? { summary: op.summary } : {}),
      mutation,
      deprecated: op.deprecated,
      policy: own ?? (mutation ? c.core.api.profile.policy : 'allow'),
      policySource: own ? ('operation' as const) : mutation ? ('profile' as const) : ('read' as const),
    };
  };
  const currentEngine = () => ({ engine: c.settings.engine, egress: c.egress as EgressMode });
  /** The flag or env var that chose the engine or egress, if any: it wins until removed. */
  const engineLock = (): string | undefined => {
    for (const key of ['engine', 'egress']) {
      const source = c.resolved.sources[key];
      if (source === 'flag' || source === 'env') return source === 'flag' ? settingByKey(key)!.flag : settingByKey(key)!.env;
    }
    return undefined;
  };

  const profileView = (p: Profile, error?: string) => ({
    name: p.name,
    ...profileToFile(p),
    operationPolicies: p.operationPolicies ?? {},
    origin: p.origin,
    active: p.name === activeProfile,
    ...(error ? { error } : {}),
  });

  return {
    status: () => statusOf(c),
    'sessions.list': () => c.sessions.list(),

    'settings.get': () => ({
      values: Object.fromEntries(Object.entries(c.settings).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v])),
      sources: c.resolved.sources as Record<string, 'flag' | 'env' | 'file' | 'default'>,
      meta: settingsMeta(),
    }),

    'settings.update': async ({ values }, caller) => {
      const validated = validateSettingsObject(values, 'settings');
      const file = c.core.paths.settings;
      const merged = { ...readSettingsFile(file), ...validated };
      await writeSettingsFile(file, Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v])));
      const applied: string[] = [];
      const restartRequired: string[] = [];
      for (const [key, value] of Object.entries(validated)) {
        const source = c.resolved.sources[key];
        if (source === 'flag' || source === 'env') {
          const def = settingByKey(key)!;
          restartRequired.push(`${key} (overridden by ${source === 'flag' ? def.flag : def.env} until that is removed)`);
        } else if (LIVE_SETTINGS.has(key)) {
          (c.settings as unknown as Record<string, unknown>)[key] = value;
          applied.push(key);
        } else restartRequired.push(key);
      }
      if (applied.length > 0) c.applyLive?.(applied);
      if (applied.includes('killSwitch'))
        log.warn(`kill switch ${c.settings.killSwitch ? 'ON: execute is refused' : 'off: execute serves again'} (${caller.by})`);
      return { saved: Object.keys(validated), applied, restartRequired };
    },

    'engine.matrix': async () => engineMatrix(await engineInventory(), c.core.paths.root, currentEngine(), engineLock()),

    'engine.apply': async (input, caller) => {
      const lock = engineLock();
      if (lock) throw new AirlockError('conflict', `the engine is set by ${lock} for this run of the companion`, { hint: `remove ${lock} to choose it here` });
      if (!c.switchEngine) throw new AirlockError('unavailable', 'this companion cannot switch engines while it runs');
      const cell = engineCell(input.engine, input.egress, await engineInventory(), c.core.paths.root, currentEngine());
      if (cell.state === 'invalid') throw new AirlockError('usage', cell.reason!);
      if (cell.state === 'needs-install') throw new AirlockError('unavailable', cell.reason!, cell.installHint ? { hint: cell.installHint } : {});
      if (cell.state === 'needs-acknowledgement' && input.acknowledgeUnrestricted !== true) {
        throw new AirlockError('usage', `${input.engine} with egress ${input.egress}: ${cell.reason}`, {
          hint: 'send acknowledgeUnrestricted: true to accept it',
        });
      }
      await c.switchEngine(input);
      // An acknowledged unbounded network lasts for this run of the companion only: saved, it would need the flag at every start.
      const saved = cell.state !== 'needs-acknowledgement';
      if (saved) {
        const file = c.core.paths.settings;
        await writeSettingsFile(file, { ...readSettingsFile(file), engine: input.engine, egress: input.egress });
      }
      log.warn(
        `engine ${input.engine}, egress ${input.egress} chosen (${caller.by})${saved ? '' : '; not saved: it needs --allow-unrestricted-egress at each start'}`,
      );
      return { engine: input.engine, egress: input.egress, boundary: c.boundary, ...(c.banner ? { banner: c.banner } : {}), policy: cell.policy, saved };
    },

    'profiles.list': () => {
      const listed = profiles
        .list()
        .map((l) =>
          l.profile
            ? profileView(l.profile)
            : profileView({ name: l.name, spec: '', policy: 'ask', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'file' }, l.error),
        );
      // The active profile is always listed, also when it came from the command line (--spec) and has no file.
      const active = c.core.api.profile;
      return listed.some((p) => p.name === active.name) ? listed : [profileView(active), ...listed];
    },

    'profiles.save': async (input) => {
      const auth = input.auth === undefined ? undefined : parseAuthScheme(input.auth);
      if (typeof auth === 'string') throw new AirlockError('usage', `auth: ${auth}`);
      const file = await profiles.save({
        name: input.name,
        spec: input.spec,
        ...(input.description ? { description: input.description } : {}),
        ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
        ...(auth ? { auth } : {}),
        ...(input.alias ? { alias: input.alias } : {}),
        policy: input.policy ?? 'ask',
        readOnly: input.readOnly ?? false,
        allowPrivateNetwork: input.allowPrivateNetwork ?? false,
        mutations: input.mutations ?? [],
        ...(input.operationPolicies ? { operationPolicies: input.operationPolicies } : {}),
        ...(input.allowExternalRefs ? { allowExternalRefs: input.allowExternalRefs } : {}),
        origin: 'file',
      });
      return { file, restartRequired: input.name === activeProfile };
    },

    'profiles.remove': ({ name }) => ({ removed: profiles.remove(name) }),

    'profiles.operations': ({ name, query }) => {
      if (name && name !== activeProfile) throw new AirlockError('usage', `profile '${name}' is not the active one; its operations are listed once it is`);
      const needle = query?.trim().toLowerCase();
      return c.core.api.catalogue.operations
        .filter((op) => !needle || `${op.id} ${op.call} ${op.method} ${op.path} ${op.summary ?? ''}`.toLowerCase().includes(needle))
        .map(operationView);
    },

    'profiles.inspect': async ({ spec, allowExternalRefs }) => {
      for (const entry of allowExternalRefs ?? []) {
        const problem = checkAllowEntry(entry);
        if (problem) throw new AirlockError('usage', `allowExternalRefs: ${JSON.stringify(entry)} ${problem}`);
      }
      if (!isUrl(spec) && !isAbsolute(spec)) throw new AirlockError('usage', `"${spec}" is neither an http(s) URL nor an absolute file path`);
      const loaded = await loadApiDocument(spec, {
        cacheDir: c.core.paths.specCache,
        refresh: true,
        logger: log.child('spec'),
        ...(allowExternalRefs ? { allowExternalRefs } : {}),
      });
      const catalogue = buildCatalogue(loaded.document, loaded.refNames);
      return {
        title: catalogue.title,
        version: catalogue.version,
        operations: catalogue.operations.length,
        mutations: catalogue.operations.filter((op) => op.mutation).length,
        servers: catalogue.servers,
        auth: formatAuthScheme(inferAuthScheme(catalogue.securitySchemes, loaded.document.security)),
        warnings: catalogue.warnings,
        fromCache: loaded.origin.fromCache === true,
        loadMs: Math.round(loaded.loadMs),
      };
    },

    'profiles.setOperationPolicy': async ({ operationId, policy }, caller) => {
      const op = c.core.api.catalogue.operations.find((o) => o.id === operationId);
      if (!op) throw new AirlockError('not_found', `no operation '${operationId}' in ${c.core.api.catalogue.title}`, { hint: 'see profiles.operations' });
      const profile = c.core.api.profile;
      const policies = (profile.operationPolicies ??= {});
      if (policy === null) delete policies[operationId];
      else policies[operationId] = policy;
      // An ad hoc profile (--spec) has no file: the policy lasts until the companion stops.
      const saved = profile.origin !== 'adhoc';
      if (saved) await profiles.save(profile);
      log.info(
        `operation ${operationId}: policy ${policy ?? `the profile's (${profile.policy})`} (${caller.by})${saved ? '' : ', not saved (ad hoc profile)'}`,
      );
      return { operation: operationView(op), saved };
    },

    'keys.list': async () => {
      const names = await c.secrets.list();
      const out: { profile: string; fingerprint: string; source: 'keychain' | 'file' }[] = [];
      for (const profile of names) {
        const secret = await c.secrets.get(profile);
        if (secret) out.push({ profile, fingerprint: fingerprint(secret), source: c.secrets.kind === 'file' ? 'file' : 'keychain' });
      }
      return out;
    },

    'keys.set': async ({ profile, secret }, caller) => {
      await c.secrets.set(profile, secret);
      c.credentials.invalidate();
      log.info(`API key for profile ${profile} set (${fingerprint(secret)}) by ${caller.by}`);
      return { fingerprint: fingerprint(secret) };
    },

    'keys.remove': async ({ profile }, caller) => {
      const removed = await c.secrets.delete(profile);
      c.credentials.invalidate();
      if (removed) log.info(`API key for profile ${profile} removed by ${caller.by}`);
      return { removed };
    },

    'approvals.list': () => c.broker.list(),

    'approvals.decide': ({ id, decision, scope, reason }, caller) =>
      c.broker.decide(id, decision === 'approve' ? { approve: true, scope: scope ?? 'once' } : { approve: false, ...(reason ? { reason } : {}) }, caller.by),

    'approvals.denyAll': ({ reason }, caller) => ({ denied: c.broker.denyAll(reason, caller.by) }),

    'grants.list': () => c.broker.grants.list(),
    'grants.revoke': ({ id }, caller) => ({ revoked: c.broker.grants.revoke(id, caller.by) }),
    'grants.revokeAll': (_input, caller) => ({ revoked: c.broker.grants.revokeAll(caller.by) }),

    'audit.query': (q) => {
      const page = c.audit.query({
        ...(q.from ? { from: q.from } : {}),
        ...(q.to ? { to: q.to } : {}),
        ...(q.client ? { client: q.client } : {}),
        ...(q.tool ? { tool: q.tool } : {}),
        ...(q.outcome ? { outcome: q.outcome } : {}),
        ...(q.text ? { text: q.text } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.runId ? { runId: q.runId } : {}),
        ...(q.profile ? { profile: q.profile } : {}),
        ...(q.operation ? { operation: q.operation } : {}),
        ...(q.method ? { method: q.method } : {}),
        ...(q.decision ? { decision: q.decision } : {}),
        ...(q.order ? { order: q.order } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...(q.after !== undefined ? { after: q.after } : {}),
        limit: Math.min(q.limit ?? 50, 500),
      });
      return { records: page.records.map(toAuditRecord), ...(page.next !== undefined ? { next: page.next } : {}) };
    },

    'audit.verify': () => c.audit.verify(),

    'logs.query': (q) =>
      c.core.logBuffer
        .query({
          ...(q.level ? { level: q.level } : {}),
          ...(q.source ? { source: q.source } : {}),
          ...(q.grep ? { grep: q.grep } : {}),
          ...(q.since !== undefined ? { since: q.since } : {}),
          ...(q.limit ? { limit: q.limit } : {}),
        })
        .filter((e) => !q.runId || e.runId === q.runId),

    'ui.loginLink': () => {
      if (!c.ui) throw new AirlockError('unavailable', 'the web UI is not served by this companion', { hint: 'start it with `airlock serve --ui`' });
      return c.ui.loginLink();
    },

    'logs.append': ({ lines }) => {
      for (const line of lines) c.core.logBuffer.append({ level: line.level, source: 'ui', message: line.message });
      return { appended: lines.length };
    },
  };
}
