// The control API's handlers: each method of the contract, answered from the
// companion's parts. Secrets go in (keys.set) but never come out: keys are
// listed by fingerprint only, and the contract's output schemas strip any
// field a handler might add by mistake.
import { userInfo } from 'node:os';
import { AirlockError } from '../errors.ts';
import type { ResolvedSettings } from '../config/settings.ts';
import { settingByKey } from '../config/settings.ts';
import { persistedKeys, readSettingsFile, validateSettingsObject, writeSettingsFile } from '../config/settingsFile.ts';
import { formatAuthScheme, parseAuthScheme } from '../config/auth.ts';
import { ProfileStore } from '../profiles/profileStore.ts';
import { profileToFile, type Profile } from '../profiles/profile.ts';
import type { ControlHandlers } from '../control/contract.ts';
import type { AuditEntry } from '../audit/types.ts';
import { fingerprint } from '../secrets/fingerprint.ts';
import type { Companion } from './companion.ts';

/** Settings that take effect without a restart. */
const LIVE_SETTINGS = new Set(['killSwitch']);

export function toAuditRecord(entry: AuditEntry): { seq: number; kind: AuditEntry['kind']; time: string; runId?: string; fields: Record<string, unknown> } {
  const { seq, kind, time, ...fields } = entry as AuditEntry & { runId?: string };
  const runId = (entry as { runId?: string }).runId;
  return { seq, kind, time, ...(runId ? { runId } : {}), fields };
}

export interface StatusSource {
  readonly credential: { source: 'keychain' | 'file' | 'env' | 'none'; fingerprint?: string };
  readonly keychain: { available: boolean; detail: string };
  invalidateCredential(): void;
}

export function createControlHandlers(c: Companion, ctx: { resolved: ResolvedSettings; statusSource: StatusSource }): ControlHandlers {
  const profiles = new ProfileStore(c.core.paths.profiles);
  const actor = `${safeUser()} via control API`;
  const activeProfile = c.core.api.profile.name;

  const profileDto = (p: Profile, error?: string) => ({
    name: p.name,
    ...profileToFile(p),
    origin: p.origin,
    active: p.name === activeProfile,
    ...(error ? { error } : {}),
  });

  return {
    status: () => {
      const mem = process.memoryUsage();
      const caps = c.caps.stats();
      const { catalogue, baseUrl, origin, profile } = c.core.api;
      return {
        version: c.core.version,
        pid: process.pid,
        startedAt: c.core.startedAt.toISOString(),
        uptimeSeconds: Math.round((Date.now() - c.core.startedAt.getTime()) / 1000),
        memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
        profile: profile.name,
        api: { title: catalogue.title, version: catalogue.version, operations: catalogue.operations.length, baseUrl, spec: origin.location },
        engine: c.settings.engine,
        egress: c.egress,
        ...(c.banner ? { banner: c.banner } : {}),
        boundary: c.boundary,
        killSwitch: c.settings.killSwitch,
        runs: { active: caps.active, queued: caps.queued, maxConcurrent: caps.maxConcurrent },
        mcpSessions: c.mcpSessions(),
        pendingApprovals: c.broker.list().length,
        keychain: ctx.statusSource.keychain,
        credential: ctx.statusSource.credential,
      };
    },

    'settings.get': () => ({
      values: Object.fromEntries(Object.entries(c.settings).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v])),
      sources: ctx.resolved.sources,
      persisted: persistedKeys(),
    }),

    'settings.update': async ({ values }) => {
      const validated = validateSettingsObject(values, 'settings');
      const file = c.core.paths.settings;
      const merged = { ...readSettingsFile(file), ...validated };
      await writeSettingsFile(file, Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v])));
      const applied: string[] = [];
      const restartRequired: string[] = [];
      for (const [key, value] of Object.entries(validated)) {
        const source = ctx.resolved.sources[key];
        if (source === 'flag' || source === 'env') {
          restartRequired.push(`${key} (overridden by ${source === 'flag' ? settingByKey(key)!.flag : settingByKey(key)!.env} until that is removed)`);
        } else if (LIVE_SETTINGS.has(key)) {
          (c.settings as unknown as Record<string, unknown>)[key] = value;
          applied.push(key);
        } else restartRequired.push(key);
      }
      if (applied.includes('killSwitch'))
        c.core.logger.warn(`kill switch ${c.settings.killSwitch ? 'ON: execute is refused' : 'off: execute serves again'} (${actor})`);
      return { saved: Object.keys(validated), applied, restartRequired };
    },

    'profiles.list': () =>
      profiles
        .list()
        .map((l) =>
          l.profile
            ? profileDto(l.profile)
            : profileDto({ name: l.name, spec: '', policy: 'ask', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'file' }, l.error),
        ),

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
        origin: 'file',
      });
      return { file, restartRequired: input.name === activeProfile };
    },

    'profiles.remove': ({ name }) => ({ removed: profiles.remove(name) }),

    'keys.list': async () => {
      const names = await c.secrets.list();
      const out: { profile: string; fingerprint: string; source: 'keychain' | 'file' }[] = [];
      for (const profile of names) {
        const secret = await c.secrets.get(profile);
        if (secret) out.push({ profile, fingerprint: fingerprint(secret), source: c.secrets.kind === 'file' ? 'file' : 'keychain' });
      }
      return out;
    },

    'keys.set': async ({ profile, secret }) => {
      await c.secrets.set(profile, secret);
      ctx.statusSource.invalidateCredential();
      c.core.logger.info(`API key for profile ${profile} set (${fingerprint(secret)}) by ${actor}`);
      return { fingerprint: fingerprint(secret) };
    },

    'keys.remove': async ({ profile }) => {
      const removed = await c.secrets.delete(profile);
      ctx.statusSource.invalidateCredential();
      if (removed) c.core.logger.info(`API key for profile ${profile} removed by ${actor}`);
      return { removed };
    },

    'approvals.list': () => c.broker.list().map((p) => ({ ...p, secondsLeft: Math.max(0, (Date.parse(p.expiresAt) - Date.now()) / 1000) })),

    'approvals.decide': ({ id, decision, scope, reason }) =>
      c.broker.decide(id, decision === 'approve' ? { approve: true, scope: scope ?? 'once' } : { approve: false, ...(reason ? { reason } : {}) }, actor),

    'audit.query': (q) => {
      const page = c.audit.query({
        ...(q.from ? { from: q.from } : {}),
        ...(q.to ? { to: q.to } : {}),
        ...(q.client ? { client: q.client } : {}),
        ...(q.tool ? { tool: q.tool } : {}),
        ...(q.outcome ? { outcome: q.outcome } : {}),
        ...(q.text ? { text: q.text } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
        limit: q.limit ?? 50,
      });
      return { records: page.records.map(toAuditRecord), ...(page.next !== undefined ? { next: page.next } : {}) };
    },

    'audit.verify': () => c.audit.verify(),

    'logs.query': (q) =>
      c.core.logBuffer.query({
        ...(q.level ? { level: q.level } : {}),
        ...(q.source ? { source: q.source } : {}),
        ...(q.grep ? { grep: q.grep } : {}),
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      }),
  };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'user';
  }
}
