// Settings as every surface sees them: the value, where it came from, and the
// metadata a form needs (label, type, limits, choices, env twin, whether it
// applies without a restart). The table itself lives in the core
// (main/core/config/settings.ts, its rows in one file per group beside it);
// each row declares a SettingSpec, and the one validator below, derived from
// that spec, is what the command line, env vars, settings.json, the control
// API and the settings form all apply — so the limits a form shows are the
// limits the core enforces.
import { z } from 'zod';
import { NUMERIC_SETTING_TYPES } from './settingCheck.ts';

export { NUMERIC_SETTING_TYPES, allowedText, checkSettingValue, isNumericSpec, type SettingCheck } from './settingCheck.ts';

export const SETTING_SOURCES = ['managed', 'flag', 'env', 'file', 'default'] as const;
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
  /** 0 means unbounded (keep everything, unlimited, never): the largest value, which meets every floor and no maximum. */
  zeroIsUnbounded: z.boolean().optional(),
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
  /** The organisation's bound on it, in words ("at most 10000 ms"): the range or choices above are already narrowed to it. */
  limit: z.string().optional(),
};

export const settingMetaSchema = z.discriminatedUnion('type', [
  numericSpecSchema.extend(settingMetaCommon),
  booleanSpecSchema.extend(settingMetaCommon),
  choiceSpecSchema.extend(settingMetaCommon),
  textSpecSchema.extend(settingMetaCommon),
]);
export type SettingMeta = z.infer<typeof settingMetaSchema>;

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

/** Where a part of the organisation's managed policy shows: the screen whose choices it bounds. */
export const POLICY_AREAS = ['settings', 'apis', 'servers', 'approvals'] as const;
export const organisationPolicySchema = z.object({
  /** The managed file. */
  file: z.string(),
  /** `broken`: the file could not be read or is not valid, and execute is switched off until it is fixed. */
  state: z.enum(['ok', 'broken']),
  error: z.string().optional(),
  /** What it sets, one phrase each ("every mutation asks a person"), with the screen it belongs to. */
  rules: z.array(z.object({ area: z.enum(POLICY_AREAS), text: z.string() })),
});
export type OrganisationPolicy = z.infer<typeof organisationPolicySchema>;

export const settingsViewSchema = z.object({
  /** The organisation's managed policy, when there is one (what it fixes also shows as the source `managed`). */
  organisation: organisationPolicySchema.optional(),
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
