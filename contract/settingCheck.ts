// The one check every surface applies to a setting's value (the command
// line, env vars, settings.json, the control API, the settings form), read
// from the setting's declared spec. No zod here: the command line checks its
// flags before anything builds a schema, and building one costs start-up
// time. settings.ts derives the same rules as a zod schema (schemaForSetting)
// for the forms; a test holds the two to the same answers.
export const NUMERIC_SETTING_TYPES = ['integer', 'duration', 'size'] as const;

/** A setting's value, typed. */
export type SettingValue = string | number | boolean;

/** A setting's declared type with its limits or choices, as far as checking a value needs it (settings.ts has the schema). */
export type CheckedSpec =
  | { type: (typeof NUMERIC_SETTING_TYPES)[number]; min: number; max: number; step: number; unit?: string | undefined }
  | { type: 'boolean' }
  | { type: 'choice'; choices: { value: string }[] }
  | { type: 'text'; maxLength?: number | undefined; pattern?: string | undefined; patternHint?: string | undefined };

export function isNumericSpec<S extends { type: string }>(spec: S): spec is Extract<S, { type: (typeof NUMERIC_SETTING_TYPES)[number] }> {
  return (NUMERIC_SETTING_TYPES as readonly string[]).includes(spec.type);
}

/** "100–600000 ms", "one of debug, info, warn, error", "true or false": what a message says is allowed. */
export function allowedText(spec: CheckedSpec): string {
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

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off', ''];

export type SettingCheck = { ok: true; value: SettingValue } | { ok: false; message: string };

/**
 * Reads a value as it comes from a flag, an env var, settings.json, the
 * control API or a form field (text, or already a number or boolean) and
 * checks it against its spec. A refusal says what was given and what is
 * allowed, e.g. "70000 is out of range (expected 0–65535)".
 */
export function checkSettingValue(spec: CheckedSpec, raw: SettingValue): SettingCheck {
  const text = String(raw);
  const v = text.trim();
  const expected = `(expected ${allowedText(spec)})`;
  switch (spec.type) {
    case 'boolean': {
      const lower = v.toLowerCase();
      if (TRUE.includes(lower)) return { ok: true, value: true };
      if (FALSE.includes(lower)) return { ok: true, value: false };
      return { ok: false, message: `'${text}' is not a boolean ${expected}` };
    }
    case 'choice':
      return spec.choices.some((c) => c.value === v) ? { ok: true, value: v } : { ok: false, message: `'${text}' is not allowed ${expected}` };
    case 'text': {
      if (!v) return { ok: false, message: 'the value cannot be empty' };
      if (spec.maxLength && v.length > spec.maxLength) return { ok: false, message: `'${text}' is too long ${expected}` };
      if (spec.pattern && !new RegExp(spec.pattern).test(v)) return { ok: false, message: `'${text}' is not ${spec.patternHint ?? 'allowed'}` };
      return { ok: true, value: v };
    }
    default: {
      if (!/^-?\d+$/.test(v)) return { ok: false, message: `'${text}' is not a whole number ${expected}` };
      const n = Number(v);
      if (n < spec.min || n > spec.max) return { ok: false, message: `${n} is out of range ${expected}` };
      if (!Number.isSafeInteger(n) || (n - spec.min) % spec.step !== 0) return { ok: false, message: `${n} is not allowed ${expected}` };
      return { ok: true, value: n };
    }
  }
}
