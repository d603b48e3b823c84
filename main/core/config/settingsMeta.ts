// The metadata a settings form needs, beside the table in settings.ts: a
// label, the type of control, limits and choices, and whether a change
// applies to the next call without a restart.
import type { SettingMeta } from '../../../contract/settings.ts';
import { SETTINGS, type SettingDef } from './settings.ts';

/** Settings the running companion applies at once (the next run sees them). */
export const LIVE_SETTINGS: ReadonlySet<string> = new Set([
  'killSwitch',
  'autoUpdate',
  'timeoutMs',
  'memoryMb',
  'outputKb',
  'maxConcurrent',
  'queueSize',
  'queueTimeoutMs',
  'perCallerConcurrent',
  'rateLimit',
  'rateBurst',
]);

function label(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/Mb$|Kb$|Ms$/i, (m) => ` ${m}`);
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

export function settingsMeta(): SettingMeta[] {
  return (SETTINGS as readonly SettingDef<unknown>[]).map((d) => {
    const extra = d as SettingDef<unknown> & {
      label?: string;
      type?: SettingMeta['type'];
      min?: number;
      max?: number;
      unit?: string;
      choices?: readonly string[];
    };
    const type: SettingMeta['type'] = extra.type ?? (d.valueName ? (typeof d.defaultValue === 'number' ? 'number' : 'text') : 'boolean');
    return {
      key: d.key,
      label: extra.label ?? label(d.key),
      description: d.description,
      flag: d.flag,
      env: d.env,
      group: d.group,
      type,
      ...(extra.min !== undefined ? { min: extra.min } : {}),
      ...(extra.max !== undefined ? { max: extra.max } : {}),
      ...(extra.unit ? { unit: extra.unit } : {}),
      ...(extra.choices ? { choices: [...extra.choices] } : {}),
      persist: d.persist,
      live: LIVE_SETTINGS.has(d.key),
    };
  });
}
