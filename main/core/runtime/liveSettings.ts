// The settings in effect, changed live through one typed door: `set` writes
// the new values (as coming from the settings file), then every listener
// hears which keys changed. The companion's parts that follow a live setting
// (the caps, the rate limit, the kill switch's stop) listen once they are
// built; nothing is assigned afterwards.
import type { Settings } from '../config/settings.ts';
import type { ResolvedSettings } from '../config/resolveSettings.ts';
import type { LiveSettings } from './services.ts';
import { LIVE_SETTINGS } from '../config/settingsMeta.ts';
import { managedSettings, policyOf } from '../config/managedPolicy.ts';
import { clampToLimit } from '../config/managedLimits.ts';

export function createLiveSettings(resolved: ResolvedSettings): LiveSettings {
  const values: Settings = { ...resolved.settings };
  const sources = { ...resolved.sources };
  const listeners: ((keys: (keyof Settings)[]) => void)[] = [];
  const live: LiveSettings = {
    values,
    sources,
    ...(resolved.managed ? { managed: resolved.managed } : {}),
    set(changes) {
      // What the organisation fixes never changes here (settings.update refuses it first; this is the last guard).
      const fixed = live.managed ? managedSettings(live.managed) : {};
      const keys = (Object.keys(changes) as (keyof Settings)[]).filter((key) => !(key in fixed));
      if (keys.length === 0) return;
      changes = Object.fromEntries(keys.map((key) => [key, changes[key]])) as Partial<Settings>;
      Object.assign(values, changes);
      for (const key of keys) sources[key] = 'file';
      for (const listener of listeners) listener(keys);
    },
    onApplied(listener) {
      listeners.push(listener);
    },
    applyManaged(fixed, read) {
      live.managed = read;
      const applied: (keyof Settings)[] = [];
      const atRestart: string[] = [];
      for (const [key, value] of Object.entries(fixed)) {
        if (sources[key] === 'managed' && (values as unknown as Record<string, unknown>)[key] === value) continue;
        if (!LIVE_SETTINGS.has(key)) {
          atRestart.push(key);
          continue;
        }
        (values as unknown as Record<string, unknown>)[key] = value;
        sources[key] = 'managed';
        applied.push(key as keyof Settings);
      }
      // A value outside a new bound is brought within it: at once where the setting is live.
      for (const [key, limit] of Object.entries(policyOf(read)?.limits ?? {})) {
        if (key in fixed) continue;
        const value = (values as unknown as Record<string, unknown>)[key];
        const within = clampToLimit(key, limit, value);
        if (within === value || value === undefined) continue;
        if (!LIVE_SETTINGS.has(key)) {
          atRestart.push(key);
          continue;
        }
        (values as unknown as Record<string, unknown>)[key] = within;
        sources[key] = 'managed';
        applied.push(key as keyof Settings);
      }
      if (applied.length > 0) for (const listener of listeners) listener(applied);
      return { applied, atRestart };
    },
  };
  return live;
}
