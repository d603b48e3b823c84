// The Settings screen's methods: what is in effect and where it came from,
// and saving — a live setting takes effect at once unless a flag or an
// environment variable overrides it; the others at the next start.
import type { ControlHandlers } from '../control/dispatch.ts';
import { settingByKey, type Settings } from '../config/settings.ts';
import { SettingError } from '../config/settingDef.ts';
import { resolveSettings } from '../config/resolveSettings.ts';
import { checkEngineNetwork } from '../sandbox/engineMatrix.ts';
import { BY_ORGANISATION, limitRefusal, organisationView, managedSettings, policyOf, refusedByOrganisation } from '../config/managedPolicy.ts';
import { AirlockError } from '../util/errors.ts';
import { readSettingsFile, validateSettingsObject, writeSettingsFile } from '../config/settingsFile.ts';
import { LIVE_SETTINGS, settingsMeta } from '../config/settingsMeta.ts';
import { formatAuthScheme } from '../config/auth.ts';
import type { Services } from './services.ts';

export type SettingsHandlerServices = Pick<Services, 'info' | 'settings' | 'logs'>;

/** settings.json as the settings screen shows it (pending values); a file damaged since the start is left out rather than failing the view. */
function savedSettings(file: string): Record<string, unknown> | undefined {
  try {
    return readSettingsFile(file);
  } catch {
    return undefined;
  }
}

/** Settings as files and screens show them: the auth scheme in its written form. */
const shown = (values: object) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, k === 'auth' && v ? formatAuthScheme(v as never) : v]));

/**
 * Refuses settings the next start would refuse as a whole — a sandbox budget below one run's memory cap, an
 * engine with a network boundary it cannot have or may only have with a flag at each start —: the saved file,
 * with what flags and the environment set now still on top, must resolve and pass the engine matrix.
 */
function refuseUnstartable(file: Record<string, unknown>, live: SettingsHandlerServices['settings']): void {
  const values = live.values as unknown as Record<string, unknown>;
  const overridden = Object.fromEntries(
    Object.keys(live.sources)
      .filter((key) => live.sources[key] === 'managed' || live.sources[key] === 'flag' || live.sources[key] === 'env')
      .map((key) => [key, values[key]]),
  );
  let next: Settings;
  try {
    next = resolveSettings({ flags: overridden, env: {}, file, defaultDataDir: live.values.dataDir }).settings;
  } catch (error) {
    if (error instanceof SettingError) throw new AirlockError('config', `settings: ${error.message}`, { hint: 'change both settings together' });
    throw error;
  }
  const engine = checkEngineNetwork(next.engine, next.egress, next.allowUnrestrictedEgress);
  if (!engine.ok) throw new AirlockError('config', `settings: ${engine.reason}`, { hint: 'choose the engine and its network on the Engine screen' });
}

export function createSettingsHandlers(c: SettingsHandlerServices): Pick<ControlHandlers, 'settings.get' | 'settings.update'> {
  const log = c.logs.logger;
  return {
    'settings.get': () => {
      const organisation = organisationView(c.settings.managed);
      return {
        ...(organisation ? { organisation } : {}),
        values: shown(c.settings.values),
        sources: c.settings.sources as Record<string, 'managed' | 'flag' | 'env' | 'file' | 'default'>,
        saved: savedSettings(c.info.paths.settings),
        meta: settingsMeta(policyOf(c.settings.managed)?.limits),
      };
    },

    'settings.update': async ({ values }, caller) => {
      const validated = validateSettingsObject(values, 'settings');
      // What the organisation fixes is refused, with that reason (never saved and silently reverted).
      const fixed = managedSettings(c.settings.managed);
      const locked = Object.keys(validated).filter((key) => key in fixed);
      const policy = policyOf(c.settings.managed);
      const outside = Object.entries(validated).flatMap(([key, value]) => limitRefusal(policy, key, value) ?? []);
      if (locked.length > 0 || outside.length > 0) {
        const why = [
          ...(locked.length > 0 ? [`${locked.join(', ')}: ${BY_ORGANISATION} (the managed policy ${c.settings.managed?.file ?? ''})`] : []),
          ...outside,
        ].join('; ');
        log.warn(`settings: a change refused, asked by ${caller.by}: ${why}`);
        throw refusedByOrganisation(`${why}; nothing was saved`);
      }
      const file = c.info.paths.settings;
      const merged = { ...readSettingsFile(file), ...validated };
      refuseUnstartable(merged, c.settings);
      await writeSettingsFile(file, shown(merged));
      const live: Partial<Settings> = {};
      const restartRequired: string[] = [];
      for (const [key, value] of Object.entries(validated)) {
        const source = c.settings.sources[key];
        if (source === 'flag' || source === 'env') {
          const def = settingByKey(key)!;
          restartRequired.push(`${key} (overridden by ${source === 'flag' ? def.flag : def.env} until that is removed)`);
        } else if (LIVE_SETTINGS.has(key)) (live as Record<string, unknown>)[key] = value;
        else restartRequired.push(key);
      }
      const applied = Object.keys(live);
      c.settings.set(live);
      if (applied.includes('killSwitch'))
        log.warn(`kill switch ${c.settings.values.killSwitch ? 'ON: execute is refused' : 'off: execute serves again'} (${caller.by})`);
      return { saved: Object.keys(validated), applied, restartRequired };
    },
  };
}
