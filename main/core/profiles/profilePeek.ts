// The enabled APIs as their profile files name them, read without checking
// the files against the profile schema: what an `initialize` answered before
// the core loads names (mcp/earlyInstructions.ts). The core's own load comes
// next and checks every file; one that fails it is then shown as failed. No
// zod here: loading it and the schemas costs a start ~30 ms.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILE_NAME } from '../../../contract/names.ts';
import { PRESETS } from './presets.ts';
import { isEnabled } from './profileDefaults.ts';
import { isUsableIdentifier } from './apiIdentifier.ts';

export interface PeekedProfile {
  name: string;
  alias?: string;
}

/** Each enabled profile's name and alias, by name: the files in `dir`, and the built-in ones no file replaces. */
export function peekEnabledProfiles(dir: string): PeekedProfile[] {
  const found = new Map<string, { enabled?: boolean; alias?: string }>(Object.entries(PRESETS).map(([name, p]) => [name, p]));
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json') && PROFILE_NAME.test(f.slice(0, -5)));
  } catch {
    // No profiles dir yet: the built-in ones.
  }
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch {
      // Unreadable (a built-in one's too): not named; the core's load says why.
      found.delete(file.slice(0, -5));
      continue;
    }
    const fields = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    found.set(file.slice(0, -5), {
      ...(typeof fields.enabled === 'boolean' ? { enabled: fields.enabled } : {}),
      ...(typeof fields.alias === 'string' && isUsableIdentifier(fields.alias) ? { alias: fields.alias } : {}),
    });
  }
  return [...found]
    .filter(([name, p]) => isEnabled({ name, ...(p.enabled !== undefined ? { enabled: p.enabled } : {}) }))
    .map(([name, p]) => ({ name, ...(p.alias ? { alias: p.alias } : {}) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
