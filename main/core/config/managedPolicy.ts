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
import { validateSettingsObject } from './settingsFile.ts';
import { AirlockError } from '../util/errors.ts';

export const MANAGED_FILE_ENV = 'AIRLOCK_MANAGED_FILE';
/** What every refusal and every locked value says. */
export const BY_ORGANISATION = 'set by your organisation';

/** Where the platform keeps the managed file (AIRLOCK_MANAGED_FILE, when set, instead). */
export function managedPolicyPath(platform: NodeJS.Platform = process.platform, env: Record<string, string | undefined> = process.env): string {
  if (env[MANAGED_FILE_ENV]) return env[MANAGED_FILE_ENV];
  if (platform === 'darwin') return '/Library/Application Support/Airlock/managed.json';
  if (platform === 'win32') return join(env.ProgramData ?? 'C:\\ProgramData', 'Airlock', 'managed.json');
  return '/etc/airlock/managed.json';
}

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
      })
      .strict()
      .optional(),
  })
  .strict();

export interface ManagedPolicy {
  file: string;
  settings: Record<string, unknown>;
  apis: { allowOrigins?: string[]; denyOrigins?: string[]; allowProfiles?: string[]; denyProfiles?: string[] };
  servers: { allowCommands?: string[]; denyCommands?: string[]; allowUrls?: string[]; denyUrls?: string[] };
  approvals: { maxGrantScope?: ApproveScope };
}

/** The managed file as read at start: none, a policy, or broken (then execute is off, and this says why). */
export type ManagedRead =
  { state: 'none'; file: string } | { state: 'ok'; file: string; policy: ManagedPolicy } | { state: 'broken'; file: string; error: string };

/** Reads and checks the managed file: its settings with the same schema and messages as settings.json. */
export function readManagedPolicy(file: string = managedPolicyPath()): ManagedRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'none', file };
    return { state: 'broken', file, error: `it cannot be read: ${messageOf(error)}` };
  }
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
  return {
    state: 'ok',
    file,
    policy: { file, settings, apis: parsed.data.apis ?? {}, servers: parsed.data.servers ?? {}, approvals: parsed.data.approvals ?? {} },
  };
}

/** The policy in effect, when the file was read and is sound. */
export function policyOf(read: ManagedRead | undefined): ManagedPolicy | undefined {
  return read?.state === 'ok' ? read.policy : undefined;
}

/** What the organisation's policy refused, as every surface reports it (the CLI, the control API, the screens). */
export function refusedByOrganisation(message: string): AirlockError {
  return new AirlockError('denied', message, { hint: 'ask whoever manages Airlock for your organisation' });
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

/** The settings the organisation fixes: its own, and for a broken file the kill switch (execute off). */
export function managedSettings(read: ManagedRead): Record<string, unknown> {
  if (read.state === 'broken') return { killSwitch: true };
  return read.state === 'ok' ? read.policy.settings : {};
}
