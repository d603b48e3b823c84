// The organisation's limits on settings the person still chooses (issue 40
// §1): a floor or a maximum on a number (audit retention at least 90 days,
// a run's timeout at most 10 s) and the values a choice may take (the
// engines allowed, the network boundary required). Where the managed file's
// `settings` fixes a value, `limits` bounds it: within the bound the person
// chooses; a value outside it — from settings.json, a flag, the default — is
// brought to the nearest allowed one and shown as the organisation's, and a
// change outside it is refused with the bound and who set it.
//
// A 0 that means "unbounded" (keep everything, unlimited, never) is the
// largest value there is: it meets every floor and no maximum.
import { z } from 'zod';
import { isNumericSpec, type SettingMeta } from '../../../contract/settings.ts';
import { SETTINGS, settingByKey } from './settings.ts';
import type { SettingDef } from './settingDef.ts';

export const settingLimitSchema = z
  .object({
    /** A number at least this (a floor). */
    min: z.number().int().optional(),
    /** A number at most this (a maximum). */
    max: z.number().int().optional(),
    /** A choice among these values only. */
    oneOf: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
  })
  .strict();
export type SettingLimit = z.infer<typeof settingLimitSchema>;
export type SettingLimits = Record<string, SettingLimit>;

const unbounded = (def: SettingDef<unknown>) => isNumericSpec(def.spec) && def.spec.zeroIsUnbounded === true;

/** Checks a policy's limits against the settings table; returns what is wrong (key: why), or undefined. */
export function limitsProblem(limits: SettingLimits): string | undefined {
  for (const [key, limit] of Object.entries(limits)) {
    const def = settingByKey(key);
    if (!def?.persist)
      return `${key}: not a setting a person chooses (known: ${SETTINGS.filter((s) => s.persist)
        .map((s) => s.key)
        .join(', ')})`;
    const spec = def.spec;
    if (isNumericSpec(spec)) {
      if (limit.oneOf) return `${key}: a number is limited with min and max, not oneOf`;
      if (limit.min === undefined && limit.max === undefined) return `${key}: give min, max or both`;
      for (const bound of [limit.min, limit.max])
        if (bound !== undefined && (bound < spec.min || bound > spec.max)) return `${key}: ${bound} is outside ${spec.min}–${spec.max}`;
      if (limit.min !== undefined && limit.max !== undefined && limit.min > limit.max) return `${key}: min ${limit.min} is above max ${limit.max}`;
    } else if (spec.type === 'choice') {
      if (limit.min !== undefined || limit.max !== undefined) return `${key}: a choice is limited with oneOf, not min or max`;
      if (!limit.oneOf) return `${key}: give oneOf, the values allowed`;
      const known = spec.choices.map((c) => c.value);
      const stranger = limit.oneOf.find((v) => !known.includes(v));
      if (stranger !== undefined) return `${key}: "${stranger}" is not one of ${known.join(', ')}`;
    } else return `${key}: only numbers and choices take limits (fix a ${spec.type} value under "settings")`;
  }
  return undefined;
}

/** The bound in words: "at least 90 days", "at most 10000 ms", "one of quickjs, deno". */
export function limitText(key: string, limit: SettingLimit): string {
  const spec = settingByKey(key)?.spec;
  const unit = spec && isNumericSpec(spec) && spec.unit ? ` ${spec.unit}` : '';
  const parts: string[] = [];
  if (limit.min !== undefined) parts.push(`at least ${limit.min}${unit}`);
  if (limit.max !== undefined) parts.push(`at most ${limit.max}${unit}`);
  if (limit.oneOf) parts.push(`one of ${limit.oneOf.join(', ')}`);
  return parts.join(' and ');
}

/** Whether a value is within the bound. */
export function withinLimit(key: string, limit: SettingLimit, value: unknown): boolean {
  const def = settingByKey(key);
  if (!def) return true;
  if (typeof value === 'number') {
    const infinite = value === 0 && unbounded(def);
    if (limit.min !== undefined && !infinite && value < limit.min) return false;
    if (limit.max !== undefined && (infinite || value > limit.max)) return false;
    return true;
  }
  if (typeof value === 'string' && limit.oneOf) return limit.oneOf.includes(value);
  return true;
}

/** The nearest value within the bound (the value itself when it is within). */
export function clampToLimit(key: string, limit: SettingLimit, value: unknown): unknown {
  if (withinLimit(key, limit, value)) return value;
  if (typeof value === 'number') {
    const infinite = value === 0 && unbounded(settingByKey(key)!);
    if (limit.max !== undefined && (infinite || value > limit.max)) return limit.max;
    return limit.min;
  }
  return limit.oneOf?.[0] ?? value;
}

/** A form's view of a limited setting: the choices narrowed to the allowed ones, the range to the bound, and the bound in words. */
export function limitedMeta(meta: SettingMeta, limit: SettingLimit | undefined): SettingMeta {
  if (!limit) return meta;
  const limited = { ...meta, limit: limitText(meta.key, limit) };
  if (limited.type === 'choice' && limit.oneOf) return { ...limited, choices: limited.choices.filter((c) => limit.oneOf!.includes(c.value)) };
  if (isNumericSpec(limited)) {
    // A floor on a setting whose 0 is unbounded keeps 0 on the form: it meets the floor.
    const keepsZero = limited.zeroIsUnbounded === true && limit.min !== undefined;
    // Kept on the step grid the form's input enforces (min, min + step, …).
    const { min, max, step } = limited;
    return {
      ...limited,
      ...(limit.min !== undefined && !keepsZero ? { min: Math.max(min, min + Math.ceil((limit.min - min) / step) * step) } : {}),
      ...(limit.max !== undefined ? { max: Math.min(max, min + Math.floor((limit.max - min) / step) * step) } : {}),
    };
  }
  return limited;
}
