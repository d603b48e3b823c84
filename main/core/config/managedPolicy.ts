// The organisation's managed policy (issue 40 §1): a file an admin deploys
// (Jamf, Intune, Group Policy) in a place only an admin can write, whose
// values win over everything the person sets and cannot be loosened. This
// first part: settings fixed by the organisation (the kill switch, the
// diagnostics tools, asking in the client, the engine, the caps …), the APIs
// that may be served (by origin and by profile name), and the widest grant a
// person may give. A broken file fails closed: execute is switched off and
// the companion says why; it is never ignored.
//
//   Linux    /etc/airlock/managed.json
//   macOS    /Library/Application Support/Airlock/managed.json
//   Windows  %ProgramData%\Airlock\managed.json
//   AIRLOCK_MANAGED_FILE=<path> points elsewhere (tests, a trial of a policy).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { APPROVE_SCOPES, approveScopeSchema, type ApproveScope } from '../../../contract/approvals.ts';
import { messageOf } from '../../../contract/values.ts';
import type { OrganisationPolicy, POLICY_AREAS } from '../../../contract/settings.ts';

type PolicyArea = (typeof POLICY_AREAS)[number];
import { validateSettingsObject } from './settingsFile.ts';
import { AirlockError } from '../util/errors.ts';
import { readRegistryPolicy, REGISTRY_SOURCE } from './windowsPolicy.ts';
import { limitsProblem, limitText, settingLimitSchema, withinLimit, type SettingLimits } from './managedLimits.ts';

export const MANAGED_FILE_ENV = 'AIRLOCK_MANAGED_FILE';
/** What every refusal and every locked value says. */
export const BY_ORGANISATION = 'set by your organisation';

/** Whether the policy may also come from the Windows registry: on Windows, unless AIRLOCK_MANAGED_FILE points elsewhere. */
export function registryPolicy(
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): (() => string | undefined) | undefined {
  return platform === 'win32' && !env[MANAGED_FILE_ENV] ? () => readRegistryPolicy() : undefined;
}

/** Where the platform keeps the managed file (AIRLOCK_MANAGED_FILE, when set, instead). */
export function managedPolicyPath(platform: NodeJS.Platform = process.platform, env: Record<string, string | undefined> = process.env): string {
  if (env[MANAGED_FILE_ENV]) return env[MANAGED_FILE_ENV];
  if (platform === 'darwin') return '/Library/Application Support/Airlock/managed.json';
  if (platform === 'win32') return join(env.ProgramData ?? 'C:\\ProgramData', 'Airlock', 'managed.json');
  return '/etc/airlock/managed.json';
}

/** What the organisation makes ask a person whatever the rules say: every mutation, or every call (reads too). */
export const ASK_FLOORS = ['mutations', 'every-call'] as const;
export type AskFloor = (typeof ASK_FLOORS)[number];

const origins = z
  .array(z.string().max(500))
  .max(1000)
  .transform((list, ctx) =>
    list.map((entry) => {
      try {
        const url = new URL(entry);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
        return url.origin;
      } catch {
        ctx.addIssue({ code: 'custom', message: `"${entry.slice(0, 100)}" is not an origin (write it as https://api.example.com)` });
        return '';
      }
    }),
  );
const names = z.array(z.string().min(1).max(100)).max(1000);

const policySchema = z
  .object({
    /** Settings fixed to these values (the same names and values as settings.json). */
    settings: z.record(z.string(), z.unknown()).optional(),
    /** Bounds on settings the person still chooses: {"timeoutMs": {"max": 10000}, "engine": {"oneOf": ["quickjs"]}} (managedLimits.ts). */
    limits: z.record(z.string(), settingLimitSchema).optional(),
    apis: z
      .object({
        /** Only APIs at these origins may be added or served. */
        allowOrigins: origins.optional(),
        denyOrigins: origins.optional(),
        /** Only these profile names. */
        allowProfiles: names.optional(),
        denyProfiles: names.optional(),
      })
      .strict()
      .optional(),
    servers: z
      .object({
        /** Only MCP servers started by these command lines (a server's command line is one of them, or starts with one and a space). */
        allowCommands: z.array(z.string().min(1).max(1000)).max(1000).optional(),
        denyCommands: z.array(z.string().min(1).max(1000)).max(1000).optional(),
        /** Only remote MCP servers at these origins. */
        allowUrls: origins.optional(),
        denyUrls: origins.optional(),
      })
      .strict()
      .optional(),
    approvals: z
      .object({
        /** The widest "Allow" a person may give, in the order once, run, session, client-always, everyone-session, always. */
        maxGrantScope: approveScopeSchema.optional(),
        /** A floor on asking: every mutation asks a person (an "allow" rule no longer lets one through unasked), or every call does. */
        ask: z.enum(ASK_FLOORS).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export interface ManagedPolicy {
  file: string;
  settings: Record<string, unknown>;
  limits: SettingLimits;
  apis: { allowOrigins?: string[]; denyOrigins?: string[]; allowProfiles?: string[]; denyProfiles?: string[] };
  servers: { allowCommands?: string[]; denyCommands?: string[]; allowUrls?: string[]; denyUrls?: string[] };
  approvals: { maxGrantScope?: ApproveScope; ask?: AskFloor };
}

/** The managed file as read at start: none, a policy, or broken (then execute is off, and this says why). */
export type ManagedRead =
  { state: 'none'; file: string } | { state: 'ok'; file: string; policy: ManagedPolicy } | { state: 'broken'; file: string; error: string };

/**
 * Reads and checks the managed file: its settings with the same schema and messages as settings.json. `registry`
 * (Windows, when the file is not there): the same JSON from HKLM\SOFTWARE\Policies\Airlock (windowsPolicy.ts).
 */
export function readManagedPolicy(file: string = managedPolicyPath(), registry?: () => string | undefined): ManagedRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { state: 'broken', file, error: `it cannot be read: ${messageOf(error)}` };
    const value = registry?.();
    if (value === undefined) return { state: 'none', file };
    return checkPolicy(REGISTRY_SOURCE, value);
  }
  return checkPolicy(file, text);
}

function checkPolicy(file: string, text: string): ManagedRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { state: 'broken', file, error: `it is not JSON: ${messageOf(error)}` };
  }
  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { state: 'broken', file, error: `${issue.path.join('.') || 'the file'}: ${issue.message}` };
  }
  let settings: Record<string, unknown>;
  try {
    settings = parsed.data.settings ? validateSettingsObject(parsed.data.settings, `${file} settings`) : {};
  } catch (error) {
    return { state: 'broken', file, error: messageOf(error) };
  }
  const limits = parsed.data.limits ?? {};
  const badLimit = limitsProblem(limits);
  if (badLimit) return { state: 'broken', file, error: `limits.${badLimit}` };
  return {
    state: 'ok',
    file,
    policy: { file, settings, limits, apis: parsed.data.apis ?? {}, servers: parsed.data.servers ?? {}, approvals: parsed.data.approvals ?? {} },
  };
}

/** The policy in effect, when the file was read and is sound. */
export function policyOf(read: ManagedRead | undefined): ManagedPolicy | undefined {
  return read?.state === 'ok' ? read.policy : undefined;
}

/** A refusal by the organisation's policy: a denial every surface reports as such, and the audit records where it is caught. */
export class OrganisationRefusal extends AirlockError {
  constructor(message: string, hint = 'ask whoever manages Airlock for your organisation') {
    super('denied', message, { hint });
  }
}

/** What the organisation's policy refused, as every surface reports it (the CLI, the control API, the screens). */
export function refusedByOrganisation(message: string): AirlockError {
  return new OrganisationRefusal(message);
}

/** Why the organisation's policy refuses serving this API (its profile name, its base URL), or undefined. */
export function apiRefusal(policy: ManagedPolicy | undefined, api: { profile: string; baseUrl?: string }): string | undefined {
  if (!policy) return undefined;
  const { allowOrigins, denyOrigins, allowProfiles, denyProfiles } = policy.apis;
  const refused = (why: string) => `${why} (${BY_ORGANISATION}: ${policy.file})`;
  if (denyProfiles?.includes(api.profile)) return refused(`the API ${api.profile} is denied`);
  if (allowProfiles && !allowProfiles.includes(api.profile)) return refused(`the API ${api.profile} is not among the allowed ones`);
  if (api.baseUrl === undefined) return undefined;
  let origin: string;
  try {
    origin = new URL(api.baseUrl).origin;
  } catch {
    return undefined;
  }
  if (denyOrigins?.includes(origin)) return refused(`APIs at ${origin} are denied`);
  if (allowOrigins && !allowOrigins.includes(origin)) return refused(`APIs at ${origin} are not among the allowed origins`);
  return undefined;
}

/**
 * Why the organisation's policy refuses another MCP server (a stdio one by its command line, a remote one by its
 * URL's origin), or undefined. Allow lists make an allow-only mode: a server of that kind on none is refused.
 */
export function serverRefusal(
  policy: ManagedPolicy | undefined,
  server: { name: string; entry: { transport: 'stdio'; command: string; args: readonly string[] } | { transport: 'http'; url: string } },
): string | undefined {
  if (!policy) return undefined;
  const { allowCommands, denyCommands, allowUrls, denyUrls } = policy.servers;
  const refused = (why: string) => `MCP server ${server.name}: ${why} (${BY_ORGANISATION}: ${policy.file})`;
  if (server.entry.transport === 'stdio') {
    const line = [server.entry.command, ...server.entry.args].join(' ');
    const matches = (rule: string) => line === rule || line.startsWith(`${rule} `);
    if (denyCommands?.some(matches)) return refused(`the command ${line.slice(0, 200)} is denied`);
    if (allowCommands && !allowCommands.some(matches)) return refused(`the command ${line.slice(0, 200)} is not among the allowed ones`);
    return undefined;
  }
  let origin: string;
  try {
    origin = new URL(server.entry.url).origin;
  } catch {
    return refused('its URL is not one');
  }
  if (denyUrls?.includes(origin)) return refused(`servers at ${origin} are denied`);
  if (allowUrls && !allowUrls.includes(origin)) return refused(`servers at ${origin} are not among the allowed ones`);
  return undefined;
}

/** Why the organisation's policy refuses a grant this wide, or undefined. */
export function grantRefusal(policy: ManagedPolicy | undefined, scope: ApproveScope): string | undefined {
  const max = policy?.approvals.maxGrantScope;
  if (!max || APPROVE_SCOPES.indexOf(scope) <= APPROVE_SCOPES.indexOf(max)) return undefined;
  return `an approval wider than "${max}" is not allowed (${BY_ORGANISATION}: ${policy!.file})`;
}

/** Why the organisation's policy refuses this value of a setting it bounds (engine deno where only quickjs is allowed), or undefined. */
export function limitRefusal(policy: ManagedPolicy | undefined, key: string, value: unknown): string | undefined {
  const limit = policy?.limits[key];
  if (!limit || withinLimit(key, limit, value)) return undefined;
  return `${key} ${String(value)} is not allowed: it must be ${limitText(key, limit)} (${BY_ORGANISATION}: ${policy!.file})`;
}

/** The settings the organisation fixes: its own, for a broken file the kill switch (execute off), with none nothing. */
export function managedSettings(read: ManagedRead | undefined): Record<string, unknown> {
  if (read?.state === 'broken') return { killSwitch: true };
  return read?.state === 'ok' ? read.policy.settings : {};
}

/** What a policy in effect does, one phrase each with the screen it bounds: the doctor, the screens and the control API say it so. */
export function policySummary(policy: ManagedPolicy): { area: PolicyArea; text: string }[] {
  const out: { area: PolicyArea; text: string }[] = [];
  const say = (area: PolicyArea, text: string) => out.push({ area, text });
  const fixed = Object.keys(policy.settings);
  if (fixed.length > 0) say('settings', `fixes ${fixed.join(', ')}`);
  for (const [key, limit] of Object.entries(policy.limits)) say('settings', `${key} ${limitText(key, limit)}`);
  const { allowOrigins, denyOrigins, allowProfiles, denyProfiles } = policy.apis;
  if (allowOrigins) say('apis', `APIs only at ${allowOrigins.join(', ') || 'no origin'}`);
  if (allowProfiles) say('apis', `only the APIs ${allowProfiles.join(', ') || '(none)'}`);
  if (denyOrigins?.length) say('apis', `no APIs at ${denyOrigins.join(', ')}`);
  if (denyProfiles?.length) say('apis', `not the APIs ${denyProfiles.join(', ')}`);
  const { allowCommands, denyCommands, allowUrls, denyUrls } = policy.servers;
  if (allowCommands) say('servers', `MCP servers only started by ${allowCommands.join(', ') || '(none)'}`);
  if (allowUrls) say('servers', `remote MCP servers only at ${allowUrls.join(', ') || '(none)'}`);
  if (denyCommands?.length) say('servers', `no MCP servers started by ${denyCommands.join(', ')}`);
  if (denyUrls?.length) say('servers', `no MCP servers at ${denyUrls.join(', ')}`);
  if (policy.approvals.ask) say('approvals', policy.approvals.ask === 'every-call' ? 'every call asks a person' : 'every mutation asks a person');
  if (policy.approvals.maxGrantScope) say('approvals', `approvals at most "${policy.approvals.maxGrantScope}"`);
  return out;
}

/** The managed policy as the screens show it (settings.get), when there is one. */
export function organisationView(read: ManagedRead | undefined): OrganisationPolicy | undefined {
  if (!read || read.state === 'none') return undefined;
  if (read.state === 'broken')
    return { file: read.file, state: 'broken', error: read.error, rules: [{ area: 'settings', text: 'execute is switched off until the file is fixed' }] };
  return { file: read.file, state: 'ok', rules: policySummary(read.policy) };
}
