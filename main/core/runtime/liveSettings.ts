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
      const fixed = managedSettings(live.managed);
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
      const current = values as unknown as Record<string, unknown>;
      /** The organisation's value for a key: at once where the setting is live, else named for the next start. */
      const take = (key: string, value: unknown) => {
        if (!LIVE_SETTINGS.has(key)) return void atRestart.push(key);
        current[key] = value;
        sources[key] = 'managed';
        applied.push(key as keyof Settings);
      };
      for (const [key, value] of Object.entries(fixed)) if (!(sources[key] === 'managed' && current[key] === value)) take(key, value);
      // A value outside a new bound is brought within it.
      for (const [key, limit] of Object.entries(policyOf(read)?.limits ?? {})) {
        const within = key in fixed || current[key] === undefined ? current[key] : clampToLimit(key, limit, current[key]);
        if (within !== current[key]) take(key, within);
      }
      if (applied.length > 0) for (const listener of listeners) listener(applied);
      return { applied, atRestart };
    },
  };
  return live;
}
