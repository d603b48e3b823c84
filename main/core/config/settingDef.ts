// How one row of the settings table (settings.ts) is declared and read: the
// row's shape (SettingDef), the spec builders a row declares its type with
// (count, duration, size, onOff, choice, text), the checks a spec cannot
// express (httpUrl, authScheme), and def(), which fills in the env twin and
// derives the row's parser from its spec: the contract's checkSettingValue,
// which names the allowed values when it refuses one.
import type { ChoiceSettingSpec, NumericSettingSpec, SettingGroup, SettingSpec, TextSettingSpec } from '../../../contract/settings.ts';
import { checkSettingValue } from '../../../contract/settingCheck.ts';
import { type AuthScheme, parseAuthScheme } from './auth.ts';

export type { SettingGroup } from '../../../contract/settings.ts';

export class SettingError extends Error {}

export interface SettingDef<T = unknown> {
  key: string;
  flag: string;
  /** `<n>`-style placeholder; absent for on/off switches. */
  valueName?: string;
  env: string;
  /** What the settings form calls it. */
  label: string;
  description: string;
  group: SettingGroup;
  /** The type with its limits (numbers), choices (choice) or pattern (text): the one source of validation and of the form's control. */
  spec: SettingSpec;
  /** Whether settings.json (and the control API) may hold it. */
  persist: boolean;
  /** Whether a saved change applies to the running companion at once (the next run sees it) rather than after a restart. */
  live: boolean;
  /** Checks the spec cannot express, after it passed (URLs, auth schemes); throws SettingError. */
  refine?(value: string): T;
  /** Derived from spec (and refine): reads a flag, env or settings.json value, or throws SettingError naming what is allowed. */
  parse(raw: string): T;
  defaultValue?: T;
  /** The default as the help and README show it, when it is computed. */
  defaultText?: string;
}

const envName = (flag: string) => 'AIRLOCK_' + flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase();

/** zero: what 0 means when it is special; unbounded: that 0 is the largest value (keep everything, unlimited, never). */
type NumericOptions = { step?: number; zero?: string; unbounded?: boolean };
const zeroOf = (o: NumericOptions) => ({ ...(o.zero ? { zero: o.zero } : {}), ...(o.unbounded ? { zeroIsUnbounded: true } : {}) });

/** A whole number that counts something (runs, calls, lines); `unit` is what it counts. */
export function count(min: number, max: number, unit?: string, o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'integer', min, max, step: o.step ?? 1, ...(unit ? { unit } : {}), ...zeroOf(o) };
}

export function duration(min: number, max: number, unit: 'ms' | 's' | 'days', o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'duration', min, max, step: o.step ?? 1, unit, ...zeroOf(o) };
}

export function size(min: number, max: number, unit: 'MB' | 'KiB', o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'size', min, max, step: o.step ?? 1, unit, ...zeroOf(o) };
}

export const onOff: SettingSpec = { type: 'boolean' };

/** One of `values`, each with the label the form shows. */
export function choice<T extends string>(values: readonly T[], labels: Record<T, string>): ChoiceSettingSpec {
  return { type: 'choice', choices: values.map((value) => ({ value, label: labels[value] })) };
}

export function text(o: Omit<TextSettingSpec, 'type'> = {}): TextSettingSpec {
  return { type: 'text', ...o };
}

/** Kept for callers that read a yes/no themselves; the table's booleans go through the same check. */
export function parseBoolean(raw: string): boolean {
  return parseWith(onOff, raw) as boolean;
}

function parseWith(spec: SettingSpec, raw: string): string | number | boolean {
  const r = checkSettingValue(spec, raw);
  if (!r.ok) throw new SettingError(r.message);
  return r.value;
}

export function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SettingError(`'${raw}' is not a URL (expected http(s)://host[:port][/path])`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SettingError(`'${raw}' must be an http or https URL`);
  if (u.username || u.password) throw new SettingError(`'${raw}' carries credentials; put the key in the keychain or the API's AIRLOCK_KEY_<API> instead`);
  return u.toString().replace(/\/$/, '');
}

export function authScheme(raw: string): AuthScheme {
  const r = parseAuthScheme(raw);
  if (typeof r === 'string') throw new SettingError(r);
  return r;
}

type SettingDecl<T> = Omit<SettingDef<T>, 'env' | 'parse'> & { env?: string };

export function def<const K extends string, T>(d: SettingDecl<T> & { key: K }): SettingDef<T> & { key: K } {
  const { refine } = d;
  return {
    ...d,
    env: d.env ?? envName(d.flag),
    parse: (raw: string) => {
      const value = parseWith(d.spec, raw);
      return (refine ? refine(value as string) : value) as T;
    },
  };
}
