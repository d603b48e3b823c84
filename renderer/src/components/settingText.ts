// How the settings form words a value: durations and sizes in a unit a
// person reads at a glance (120000 ms is 2 min), what 0 means when it is
// special, and a setting's current value as a sentence can hold it.
import type { NumericSettingSpec, SettingMeta } from '../../../contract/settings.ts';

const trim = (n: number) => String(Math.round(n * 10) / 10);

function seconds(s: number): string {
  if (s < 60) return `${trim(s)} s`;
  if (s < 3600) return `${trim(s / 60)} min`;
  if (s < 86_400) return `${trim(s / 3600)} h`;
  const days = trim(s / 86_400);
  return `${days} ${days === '1' ? 'day' : 'days'}`;
}

/** "2 min" for 120000 ms, "8 GB" for 8192 MB, "never" for 0 when 0 means never; undefined when the number says it already. */
export function readable(spec: NumericSettingSpec, n: number, zero = true): string | undefined {
  if (n === 0 && spec.zero && zero) return spec.zero;
  if (spec.type === 'duration') {
    if (spec.unit === 'ms') return n >= 1000 ? seconds(n / 1000) : undefined;
    if (spec.unit === 's') return n >= 60 ? seconds(n) : undefined;
    if (spec.unit === 'days') return n >= 365 ? `${trim(n / 365)} ${n === 365 ? 'year' : 'years'}` : undefined;
  }
  if (spec.type === 'size') {
    if (spec.unit === 'MB' && n >= 1024) return `${trim(n / 1024)} GB`;
    if (spec.unit === 'KiB' && n >= 1024) return `${trim(n / 1024)} MiB`;
  }
  return undefined;
}

/** A value with its unit (and its readable equivalent): "5000 ms (5 s)", "On", "Dark". */
export function shownValue(meta: SettingMeta, value: unknown): string {
  if (value === undefined || value === null || value === '') return 'not set';
  switch (meta.type) {
    case 'boolean':
      return value === true ? 'On' : 'Off';
    case 'choice':
      return meta.choices.find((c) => c.value === value)?.label ?? String(value);
    case 'text':
      return String(value);
    default: {
      const n = Number(value);
      const r = readable(meta, n);
      return `${n}${meta.unit ? ` ${meta.unit}` : ''}${r ? ` (${r})` : ''}`;
    }
  }
}

/** "100–600000 ms (up to 10 min)", "0–86400 s (up to 1 days); 0 means never": the range as the hint shows it. */
export function rangeText(spec: NumericSettingSpec): string {
  const high = readable(spec, spec.max, false);
  const unit = spec.unit ? ` ${spec.unit}` : '';
  return `${spec.min}–${spec.max}${unit}${spec.step > 1 ? ` in steps of ${spec.step}` : ''}${high ? ` (up to ${high})` : ''}${spec.zero ? `; 0 means ${spec.zero}` : ''}`;
}
