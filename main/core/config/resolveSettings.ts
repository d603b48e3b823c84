// The settings a command runs with: each setting's value from the first
// source that has it (the organisation's managed file, then a flag, then env,
// then the data dir's settings.json, then the default), and which source that
// was. The table is settings.ts.
import { messageOf } from '../../../contract/values.ts';
import { SettingError, type SettingDef } from './settingDef.ts';
import { SETTINGS, type Settings } from './settings.ts';
import type { ManagedRead } from './managedPolicy.ts';
import { clampToLimit, type SettingLimits } from './managedLimits.ts';
import { defaultNetwork } from './settingsSandbox.ts';

export type SettingSource = 'managed' | 'flag' | 'env' | 'file' | 'default';

export interface ResolvedSettings {
  settings: Settings;
  sources: Record<string, SettingSource>;
  /** The organisation's managed file as read at start (managedPolicy.ts). */
  managed?: ManagedRead;
}

export interface SettingInputs {
  /** Raw values given as flags (already parsed by their parser), keyed by setting key. */
  flags: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** settings.json contents (already validated), keyed by setting key. */
  file: Record<string, unknown>;
  defaultDataDir: string;
  /** Settings the organisation fixes (the managed file, already validated): they win over every other source. */
  managed?: Record<string, unknown>;
  /** The organisation's bounds on what the person chooses: a value outside one is brought within it, as the organisation's. */
  limits?: SettingLimits;
}

/**
 * Merges flags, env, settings.json and defaults. An env value that does not
 * parse is a usage error naming the variable and the allowed values.
 */
export function resolveSettings(inputs: SettingInputs): ResolvedSettings {
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const s of SETTINGS as readonly SettingDef<any>[]) {
    if (inputs.managed?.[s.key] !== undefined) {
      values[s.key] = inputs.managed[s.key];
      sources[s.key] = 'managed';
      continue;
    }
    if (inputs.flags[s.key] !== undefined) {
      values[s.key] = inputs.flags[s.key];
      sources[s.key] = 'flag';
      continue;
    }
    const raw = inputs.env[s.env];
    if (raw !== undefined && raw !== '') {
      try {
        values[s.key] = s.parse(raw);
      } catch (error) {
        throw new SettingError(`${s.env}: ${messageOf(error)}`);
      }
      sources[s.key] = 'env';
      continue;
    }
    if (s.persist && inputs.file[s.key] !== undefined) {
      values[s.key] = inputs.file[s.key];
      sources[s.key] = 'file';
      continue;
    }
    if (s.key === 'dataDir') values[s.key] = inputs.defaultDataDir;
    else if (s.defaultValue !== undefined) values[s.key] = s.defaultValue;
    sources[s.key] = 'default';
  }
  for (const [key, limit] of Object.entries(inputs.limits ?? {})) {
    if (sources[key] === 'managed') continue;
    // The network boundary's default depends on the engine: bounded, it is read as the value it stands for.
    const value = key === 'egress' && values.egress === undefined ? defaultNetwork(values.engine as never) : values[key];
    const within = clampToLimit(key, limit, value);
    if (within === value) continue;
    values[key] = within;
    sources[key] = 'managed';
  }
  const settings = values as unknown as Settings;
  // One run alone must be able to reach its own cap: the shared budget is at least one run's.
  if (settings.sandboxMemoryMb < settings.memoryMb) {
    if (sources.sandboxMemoryMb !== 'default') {
      throw new SettingError(
        `--sandbox-memory-mb (${settings.sandboxMemoryMb} MB) must be at least --memory-mb (${settings.memoryMb} MB): the sandboxes' shared budget has to hold one run at its cap`,
      );
    }
    settings.sandboxMemoryMb = settings.memoryMb;
  }
  return { settings, sources };
}
