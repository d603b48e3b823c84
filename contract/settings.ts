// Settings as every surface sees them: the value, where it came from, and the
// metadata a form needs (label, type, limits, choices, env twin, whether it
// applies without a restart). The table itself lives in the core
// (main/core/config/settings.ts); each row there declares a SettingSpec, and
// the one validator below, derived from that spec, is what the command line,
// env vars, settings.json, the control API and the settings form all apply —
// so the limits a form shows are the limits the core enforces.
import { z } from 'zod';

export const SETTING_SOURCES = ['flag', 'env', 'file', 'default'] as const;
export const settingSourceSchema = z.enum(SETTING_SOURCES);
export type SettingSource = z.infer<typeof settingSourceSchema>;

export const settingValueSchema = z.union([z.string(), z.number(), z.boolean()]);
export type SettingValue = z.infer<typeof settingValueSchema>;

export const SETTING_GROUPS = ['common', 'server', 'sandbox', 'safety', 'output'] as const;
export type SettingGroup = (typeof SETTING_GROUPS)[number];
/** The heading each group has on the settings screen, in this order. */
export const SETTING_GROUP_LABELS: Record<SettingGroup, string> = {
  common: 'General',
  server: 'Server and desktop app',
  sandbox: 'Sandbox and limits',
  safety: 'Safety and records',
  output: 'Output',
};

/** Whole numbers: a count, a duration (ms, s, days) or a size (MB, KiB). */
export const NUMERIC_SETTING_TYPES = ['integer', 'duration', 'size'] as const;
export const SETTING_TYPES = [...NUMERIC_SETTING_TYPES, 'boolean', 'choice', 'text'] as const;
export type SettingType = (typeof SETTING_TYPES)[number];
export const DURATION_UNITS = ['ms', 's', 'days'] as const;
export const SIZE_UNITS = ['KiB', 'MB'] as const;

const numericSpecSchema = z.object({
  type: z.enum(NUMERIC_SETTING_TYPES),
  min: z.number().int(),
  max: z.number().int(),
  /** Allowed values are min, min + step, …: what an <input type=number step> enforces. */
  step: z.number().int().positive(),
  /** Shown after the value and in messages: ms, s, days, MB, KiB, or what a count counts. */
  unit: z.string().optional(),
  /** What 0 means when it is special ("never", "unlimited", …). */
  zero: z.string().optional(),
});
const booleanSpecSchema = z.object({ type: z.literal('boolean') });
export const settingChoiceSchema = z.object({ value: z.string(), label: z.string() });
export type SettingChoice = z.infer<typeof settingChoiceSchema>;
const choiceSpecSchema = z.object({ type: z.literal('choice'), choices: z.array(settingChoiceSchema).min(1) });
const textSpecSchema = z.object({
  type: z.literal('text'),
  /** A regular expression (no flags) the whole value must match. */
  pattern: z.string().optional(),
  /** What the pattern asks for, as a phrase: "a profile name (…)". */
  patternHint: z.string().optional(),
  maxLength: z.number().int().positive().optional(),
  /** What the text is (the form's input hints; the core checks urls and auth schemes further). */
  format: z.enum(['path', 'url', 'host', 'auth', 'name', 'location']).optional(),
});

/** A setting's declared type with its limits or choices: one row of the core's table carries exactly this. */
export const settingSpecSchema = z.discriminatedUnion('type', [numericSpecSchema, booleanSpecSchema, choiceSpecSchema, textSpecSchema]);
export type SettingSpec = z.infer<typeof settingSpecSchema>;
export type NumericSettingSpec = z.infer<typeof numericSpecSchema>;
export type ChoiceSettingSpec = z.infer<typeof choiceSpecSchema>;
export type TextSettingSpec = z.infer<typeof textSpecSchema>;

const settingMetaCommon = {
  key: z.string(),
  label: z.string(),
  description: z.string(),
  flag: z.string(),
  env: z.string(),
  group: z.enum(SETTING_GROUPS),
  /** The default value, when it is a fixed one. */
  default: settingValueSchema.optional(),
  /** The default as a person reads it, when it is computed ("the document's first server"). */
  defaultText: z.string().optional(),
  /** Saved in settings.json (the UI may change it). */
  persist: z.boolean(),
  /** Takes effect for the next call without a restart. */
  live: z.boolean(),
};

export const settingMetaSchema = z.discriminatedUnion('type', [
  numericSpecSchema.extend(settingMetaCommon),
  booleanSpecSchema.extend(settingMetaCommon),
  choiceSpecSchema.extend(settingMetaCommon),
  textSpecSchema.extend(settingMetaCommon),
]);
export type SettingMeta = z.infer<typeof settingMetaSchema>;

export function isNumericSpec(spec: SettingSpec): spec is NumericSettingSpec {
  return (NUMERIC_SETTING_TYPES as readonly string[]).includes(spec.type);
}

/** "100–600000 ms", "one of debug, info, warn, error", "true or false": what a message says is allowed. */
export function allowedText(spec: SettingSpec): string {
  switch (spec.type) {
    case 'boolean':
      return 'true/false, 1/0, yes/no';
    case 'choice':
      return `one of ${spec.choices.map((c) => c.value).join(', ')}`;
    case 'text':
      return spec.patternHint ?? (spec.maxLength ? `at most ${spec.maxLength} characters` : 'text');
    default:
      return `${spec.min}–${spec.max}${spec.unit ? ` ${spec.unit}` : ''}${spec.step > 1 ? ` in steps of ${spec.step}` : ''}`;
  }
}

/**
 * The zod schema of a setting's typed value, derived from its declaration:
 * whole numbers within min–max on the step grid, one of the choices, a
 * boolean, or text that is not empty and matches the pattern.
 */
export function schemaForSetting(spec: SettingSpec): z.ZodType<SettingValue> {
  switch (spec.type) {
    case 'boolean':
      return z.boolean();
    case 'choice':
      return z.enum(spec.choices.map((c) => c.value) as [string, ...string[]]);
    case 'text': {
      let s = z.string().min(1);
      if (spec.maxLength) s = s.max(spec.maxLength);
      if (spec.pattern) s = s.regex(new RegExp(spec.pattern));
      return s;
    }
    default: {
      const { min, max, step } = spec;
      return z
        .number()
        .int()
        .min(min)
        .max(max)
        .refine((n) => (n - min) % step === 0, `not on the step grid (${min}, ${min + step}, …)`);
    }
  }
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off', ''];

export type SettingCheck = { ok: true; value: SettingValue } | { ok: false; message: string };

/**
 * Reads a value as it comes from a flag, an env var, settings.json, the
 * control API or a form field (text, or already a number or boolean) and
 * checks it with schemaForSetting. A refusal says what was given and what is
 * allowed, e.g. "70000 is out of range (expected 0–65535)".
 */
export function checkSettingValue(spec: SettingSpec, raw: SettingValue): SettingCheck {
  const text = String(raw);
  const v = text.trim();
  const expected = `(expected ${allowedText(spec)})`;
  const schema = schemaForSetting(spec);
  switch (spec.type) {
    case 'boolean': {
      const lower = v.toLowerCase();
      if (TRUE.includes(lower)) return { ok: true, value: true };
      if (FALSE.includes(lower)) return { ok: true, value: false };
      return { ok: false, message: `'${text}' is not a boolean ${expected}` };
    }
    case 'choice':
      return schema.safeParse(v).success ? { ok: true, value: v } : { ok: false, message: `'${text}' is not allowed ${expected}` };
    case 'text': {
      if (!v) return { ok: false, message: 'the value cannot be empty' };
      if (spec.maxLength && v.length > spec.maxLength) return { ok: false, message: `'${text}' is too long ${expected}` };
      if (!schema.safeParse(v).success) return { ok: false, message: `'${text}' is not ${spec.patternHint ?? 'allowed'}` };
      return { ok: true, value: v };
    }
    default: {
      if (!/^-?\d+$/.test(v)) return { ok: false, message: `'${text}' is not a whole number ${expected}` };
      const n = Number(v);
      if (n < spec.min || n > spec.max) return { ok: false, message: `${n} is out of range ${expected}` };
      if (!schema.safeParse(n).success) return { ok: false, message: `${n} is not allowed ${expected}` };
      return { ok: true, value: n };
    }
  }
}

export const settingsViewSchema = z.object({
  /** What the running companion uses. */
  values: z.record(z.string(), z.unknown()),
  sources: z.record(z.string(), settingSourceSchema),
  /** What settings.json holds: a restart uses it (unless a flag or env var wins), so a saved value that is not live yet shows as pending. */
  saved: z.record(z.string(), z.unknown()).optional(),
  meta: z.array(settingMetaSchema),
});

export const settingsUpdateSchema = z.object({ values: z.record(z.string(), settingValueSchema) }).strict();
export const settingsUpdateResultSchema = z.object({
  saved: z.array(z.string()),
  applied: z.array(z.string()),
  restartRequired: z.array(z.string()),
});
