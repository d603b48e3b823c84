// Settings as every surface sees them: the value, where it came from, and the
// metadata a form needs (label, limits, choices, env twin, whether it applies
// without a restart). The table itself lives in the core; this is its shape.
import { z } from 'zod';

export const SETTING_SOURCES = ['flag', 'env', 'file', 'default'] as const;
export const settingSourceSchema = z.enum(SETTING_SOURCES);
export type SettingSource = z.infer<typeof settingSourceSchema>;

export const settingValueSchema = z.union([z.string(), z.number(), z.boolean()]);

export const settingMetaSchema = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string(),
  flag: z.string(),
  env: z.string(),
  group: z.string(),
  type: z.enum(['number', 'boolean', 'choice', 'text']),
  min: z.number().optional(),
  max: z.number().optional(),
  unit: z.string().optional(),
  choices: z.array(z.string()).optional(),
  /** Saved in settings.json (the UI may change it). */
  persist: z.boolean(),
  /** Takes effect for the next call without a restart. */
  live: z.boolean(),
});
export type SettingMeta = z.infer<typeof settingMetaSchema>;

export const settingsViewSchema = z.object({
  values: z.record(z.string(), z.unknown()),
  sources: z.record(z.string(), settingSourceSchema),
  meta: z.array(settingMetaSchema),
});

export const settingsUpdateSchema = z.object({ values: z.record(z.string(), settingValueSchema) }).strict();
export const settingsUpdateResultSchema = z.object({
  saved: z.array(z.string()),
  applied: z.array(z.string()),
  restartRequired: z.array(z.string()),
});
