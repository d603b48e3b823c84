// What a settings form needs, read from the table in settings.ts and nothing
// else: the label, the declared type with its limits or choices (the same
// spec the core validates with), the default, and whether a change applies
// to the next call without a restart.
import type { SettingMeta } from '../../../contract/settings.ts';
import { SETTINGS } from './settings.ts';
import type { SettingDef } from './settingDef.ts';
import { limitedMeta, type SettingLimits } from './managedLimits.ts';

const TABLE = SETTINGS as readonly SettingDef<unknown>[];

/** Settings the running companion applies at once (the next run sees them): the rows declared `live`. */
export const LIVE_SETTINGS: ReadonlySet<string> = new Set(TABLE.filter((d) => d.live).map((d) => d.key));

/** Each setting as a form shows it; one the organisation bounds (`limits`) with its range or choices narrowed to the bound. */
export function settingsMeta(limits: SettingLimits = {}): SettingMeta[] {
  return TABLE.map((d): SettingMeta => limitedMeta(metaOf(d), limits[d.key]));
}

function metaOf(d: SettingDef<unknown>): SettingMeta {
  const fixedDefault = typeof d.defaultValue === 'string' || typeof d.defaultValue === 'number' || typeof d.defaultValue === 'boolean';
  return {
    ...d.spec,
    key: d.key,
    label: d.label,
    description: d.description,
    flag: d.flag,
    env: d.env,
    group: d.group,
    ...(fixedDefault ? { default: d.defaultValue as string | number | boolean } : {}),
    ...(d.defaultText ? { defaultText: d.defaultText } : {}),
    persist: d.persist,
    live: d.live,
  };
}
