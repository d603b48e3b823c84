// Reads, lists, saves and removes profiles in <data dir>/profiles/<name>.json,
// on top of the built-in presets (a file with a preset's name overrides it),
// and picks the profile a command runs with from the settings.
import { readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { z } from 'zod';
import { AirlockError } from '../util/errors.ts';
import type { Settings } from '../config/settings.ts';
import { type Profile, profileFileSchema, profileToFile } from './profile.ts';
import { PRESETS } from './presets.ts';
import { isUrl } from '../openapi/loadDocument.ts';
import { DEMO_SPEC, PROFILE_NAME } from './profile.ts';
import { messageOf } from '../../../contract/values.ts';

export { PROFILE_NAME };

function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the profile';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${field} ${issue.message}${more}`;
}

export function readProfileFile(file: string, name: string): Profile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AirlockError('config', `${file}: not valid JSON: ${messageOf(error)}`, { hint: 'fix or delete the file' });
  }
  const parsed = profileFileSchema.safeParse(raw);
  if (!parsed.success) throw new AirlockError('config', `${file}: ${describeZodError(parsed.error)}`, { hint: 'fix the field or delete the file' });
  const p = parsed.data;
  const spec = p.spec === DEMO_SPEC || isUrl(p.spec) || isAbsolute(p.spec) ? p.spec : resolve(dirname(file), p.spec);
  return {
    name,
    ...(p.description !== undefined ? { description: p.description } : {}),
    spec,
    ...(p.baseUrl !== undefined ? { baseUrl: p.baseUrl.replace(/\/$/, '') } : {}),
    ...(p.auth !== undefined ? { auth: p.auth } : {}),
    ...(p.alias !== undefined ? { alias: p.alias } : {}),
    ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
    policy: p.policy,
    readOnly: p.readOnly,
    allowPrivateNetwork: p.allowPrivateNetwork,
    mutations: p.mutations,
    operationPolicies: p.operationPolicies,
    ...(p.allowExternalRefs.length > 0 ? { allowExternalRefs: p.allowExternalRefs } : {}),
    ...(Object.keys(p.words).length > 0 ? { words: p.words } : {}),
    origin: 'file',
    file,
  };
}

export interface ProfileListing {
  name: string;
  profile?: Profile;
  /** Why the file could not be read, when it could not. */
  error?: string;
}

export class ProfileStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  fileOf(name: string): string {
    return join(this.dir, `${name}.json`);
  }

  get(name: string): Profile {
    const file = this.fileOf(name);
    if (PROFILE_NAME.test(name) && existsSync(file)) return readProfileFile(file, name);
    const preset = PRESETS[name];
    if (preset) return { ...preset };
    throw new AirlockError('usage', `unknown profile '${name}'`, { hint: `known: ${this.names().join(', ')}` });
  }

  names(): string[] {
    return [...new Set([...Object.keys(PRESETS), ...this.fileNames()])].sort();
  }

  list(): ProfileListing[] {
    return this.names().map((name) => {
      try {
        return { name, profile: this.get(name) };
      } catch (error) {
        return { name, error: messageOf(error) };
      }
    });
  }

  async save(profile: Profile): Promise<string> {
    if (!PROFILE_NAME.test(profile.name)) throw new AirlockError('usage', `'${profile.name}' is not a profile name (lowercase letters, digits, - and _)`);
    const body = profileToFile(profile);
    const check = profileFileSchema.safeParse(body);
    if (!check.success) throw new AirlockError('usage', `profile ${profile.name}: ${describeZodError(check.error)}`);
    const file = this.fileOf(profile.name);
    await writeFileAtomic(file, JSON.stringify(body, null, 2) + '\n');
    return file;
  }

  remove(name: string): boolean {
    const file = this.fileOf(name);
    if (!PROFILE_NAME.test(name) || !existsSync(file)) return false;
    rmSync(file);
    return true;
  }

  private fileNames(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5))
        .filter((n) => PROFILE_NAME.test(n));
    } catch {
      return [];
    }
  }
}

/**
 * The profile a command runs with: the named one (flag, env, settings.json),
 * else an ad hoc `custom` profile when --spec is given, else `demo`; then
 * --spec, --base-url and --auth override its fields.
 */
export function selectProfile(settings: Pick<Settings, 'profile' | 'spec' | 'baseUrl' | 'auth'>, store: ProfileStore): Profile {
  let profile: Profile;
  if (settings.profile === undefined && settings.spec !== undefined) {
    profile = { name: 'custom', spec: settings.spec, policy: 'ask', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc' };
  } else {
    profile = store.get(settings.profile ?? 'demo');
  }
  return {
    ...profile,
    ...(settings.spec !== undefined ? { spec: isUrl(settings.spec) ? settings.spec : resolve(settings.spec) } : {}),
    ...(settings.baseUrl !== undefined ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.auth !== undefined ? { auth: settings.auth } : {}),
  };
}
