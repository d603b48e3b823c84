// The control API's handlers: each method of the contract, answered from the
// companion's parts. Secrets go in (keys.set) but never come out: keys are
// listed by fingerprint only, and the dispatcher parses every output against
// the contract, so a field a handler might add by mistake is stripped.
// Depends on the parts it reads (HandlerDeps), not on the composition.
import type { AuditEntry } from '../audit/types.ts';
import type { AuditRecord } from '../../../contract/audit.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../errors.ts';
import { settingByKey } from '../config/settings.ts';
import { readSettingsFile, validateSettingsObject, writeSettingsFile } from '../config/settingsFile.ts';
import { LIVE_SETTINGS, settingsMeta } from '../config/settingsMeta.ts';
import { formatAuthScheme } from '../config/auth.ts';
import { statusOf } from './companionViews.ts';
import { createEngineHandlers } from './engineHandlers.ts';
import type { HandlerDeps } from './handlerDeps.ts';
export type { HandlerDeps } from './handlerDeps.ts';
import { createProfileHandlers } from './profileHandlers.ts';
import { createClientHandlers } from './clientHandlers.ts';
import { createRuleHandlers } from './ruleHandlers.ts';

/** An audit entry as the contract shows it (the same flat object the chain hashes). */
export function toAuditRecord(entry: AuditEntry): AuditRecord {
  return entry as unknown as AuditRecord;
}

/** settings.json as the settings screen shows it (pending values); a file damaged since the start is left out rather than failing the view. */
function savedSettings(file: string): Record<string, unknown> | undefined {
  try {
    return readSettingsFile(file);
  } catch {
    return undefined;
  }
}

export function createControlHandlers(c: HandlerDeps): ControlHandlers {
  const log = c.core.logger;
  const profileHandlers = createProfileHandlers(c);
  return {
    ...createEngineHandlers(c),
    ...profileHandlers,
    // A policy change is a rule change: the Rules and APIs screens (in every window) re-read.
    'profiles.setOperationPolicy': async (input, caller) => {
      const result = await profileHandlers['profiles.setOperationPolicy'](input, caller);
      c.hub?.publish({ type: 'rules-changed' });
      return result;
    },
    ...createClientHandlers(c),
    ...createRuleHandlers(c),
    status: () => statusOf(c),
    'sessions.list': () => c.sessions.list(),

    'settings.get': () => ({
      values: Object.fromEntries(Object.entries(c.settings).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v])),
      sources: c.resolved.sources as Record<string, 'flag' | 'env' | 'file' | 'default'>,
      saved: savedSettings(c.core.paths.settings),
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
          c.resolved.sources[key] = 'file';
          applied.push(key);
        } else restartRequired.push(key);
      }
      if (applied.length > 0) c.applyLive?.(applied);
      if (applied.includes('killSwitch'))
        log.warn(`kill switch ${c.settings.killSwitch ? 'ON: execute is refused' : 'off: execute serves again'} (${caller.by})`);
      return { saved: Object.keys(validated), applied, restartRequired };
    },

    'tokens.rotateMcp': (_input, caller) => {
      if (!c.rotateMcpToken) throw new AirlockError('unavailable', 'this companion serves no MCP over HTTP (stdio has no token)');
      const r = c.rotateMcpToken();
      log.warn(`MCP token rotated by ${caller.by}`);
      return r;
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
