// settings.json in the data dir: the persisted subset of the settings table,
// written by the desktop UI and the control API. A bad file is reported with
// its path and the offending key; it never silently falls back.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { AirlockError } from '../util/errors.ts';
import { SETTINGS } from './settings.ts';
import { type SettingDef, SettingError } from './settingDef.ts';
import { messageOf } from '../../../contract/values.ts';

export function readSettingsFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new AirlockError('config', `cannot read ${file}: ${messageOf(error)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AirlockError('config', `${file} is not valid JSON: ${messageOf(error)}`, { hint: 'fix or delete the file' });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AirlockError('config', `${file} must hold a JSON object`);
  return validateSettingsObject(raw as Record<string, unknown>, file);
}

export function validateSettingsObject(raw: Record<string, unknown>, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const s = (SETTINGS as readonly SettingDef<any>[]).find((d) => d.key === key);
    if (!s) throw new AirlockError('config', `${where}: unknown setting "${key}"`, { hint: `known: ${persistedKeys().join(', ')}` });
    if (!s.persist) throw new AirlockError('config', `${where}: "${key}" cannot be saved in settings (use ${s.flag} or ${s.env})`);
    if (value === null || typeof value === 'object') throw new AirlockError('config', `${where}: "${key}" must be a string, number or boolean`);
    try {
      out[key] = s.parse(String(value));
    } catch (error) {
      if (error instanceof SettingError) throw new AirlockError('config', `${where}: "${key}": ${error.message}`);
      throw error;
    }
  }
  return out;
}

export function persistedKeys(): string[] {
  return (SETTINGS as readonly SettingDef<any>[]).filter((s) => s.persist).map((s) => s.key);
}

export async function writeSettingsFile(file: string, values: Record<string, unknown>): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(values, null, 2) + '\n');
}
