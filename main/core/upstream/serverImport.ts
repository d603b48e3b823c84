// Moving a client's own MCP servers behind Airlock (issue 20): each entry a
// client's file holds (Claude Desktop's `command`/`args`/`env`, VS Code's
// `type`, a remote `url` or `serverUrl` with its `headers`, Codex's TOML
// tables…) read as an Airlock server entry. Every value written inline in
// the client's file — an `env` value, a header value — is treated as a
// secret: it moves into the key store, and the entry keeps only its name. An
// entry that cannot be moved says why. The caller adds the servers, stores
// the secrets, then takes them out of the client's file (registrar.moveBehind:
// previewed, backed up, undoable), in that order, so a crash half way loses
// nothing: at worst a server is in both places.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { REDACTED_FROM_LENGTH, SERVER_NAME, commandProblem, secretAccount, serverEntrySchema, type ServerEntry } from './serverEntry.ts';
import { AirlockError } from '../util/errors.ts';
import { createRedactor } from '../log/redactor.ts';
import { classifyAddress } from '../util/addressPolicy.ts';
import { isRecord } from '../../../contract/values.ts';

export interface ImportCandidate {
  /** The entry's name in the client. */
  from: string;
  /** Its name behind Airlock (the client's, made a valid server name). */
  name: string;
  entry?: ServerEntry;
  /** Values written inline in the client's file, by variable or header name: they go to the key store. */
  secrets: Record<string, string>;
  /** Why it cannot be moved, when it cannot. */
  problem?: string;
  /** What else a person should know (a variable that was dropped, a private address allowed). */
  notes: string[];
}

/** A client's name for a server, as a server name: lowercase, `-` for what a name may not hold, at most 30. */
export function serverNameFor(raw: string): string {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 30)
    .replace(/-+$/, '');
  return SERVER_NAME.test(name) ? name : `server-${name}`.slice(0, 30);
}

const strings = (v: unknown): Record<string, string> =>
  isRecord(v)
    ? Object.fromEntries(
        Object.entries(v).flatMap(([k, x]) => (typeof x === 'string' ? [[k, x]] : typeof x === 'number' || typeof x === 'boolean' ? [[k, String(x)]] : [])),
      )
    : {};

/** One client entry as an Airlock server entry, with its inline secrets; or why it cannot be. */
export function importCandidate(from: string, raw: unknown): ImportCandidate {
  const name = serverNameFor(from);
  const base = { from, name, secrets: {} as Record<string, string>, notes: [] as string[] };
  if (!isRecord(raw)) return { ...base, problem: 'its entry is not an object' };
  const enabled = raw.disabled !== true && raw.enabled !== false;
  const url = [raw.url, raw.serverUrl, raw.httpUrl].find((u): u is string => typeof u === 'string');
  let candidate: unknown;
  if (typeof raw.command === 'string') {
    const problem = commandProblem(raw.command);
    if (problem) return { ...base, problem: `its command ${JSON.stringify(raw.command)} ${problem}` };
    const env = strings(raw.env);
    if (Object.hasOwn(env, 'PATH')) {
      base.notes.push('its PATH is not kept: Airlock gives every server the PATH your login shell sets');
      delete env.PATH;
    }
    const own = Object.keys(env).filter((k) => k.toUpperCase().startsWith('AIRLOCK_'));
    if (own.length > 0) return { ...base, problem: `it sets ${own.join(', ')}, Airlock's own settings` };
    base.secrets = env;
    candidate = {
      transport: 'stdio',
      command: raw.command,
      args: Array.isArray(raw.args) ? raw.args.map(String) : [],
      env: [],
      secrets: Object.keys(env),
      enabled,
    };
  } else if (url) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ...base, problem: `its URL ${JSON.stringify(url)} is not a URL` };
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    // A server the client reached on this machine or the local network stays reachable: said in the preview.
    const local = host === 'localhost' || (isIP(host) !== 0 && ['private', 'loopback', 'link-local'].includes(classifyAddress(host)));
    if (local) base.notes.push(`it is on ${host}: private and local addresses are allowed for it`);
    const headers = strings(raw.headers);
    base.secrets = headers;
    candidate = { transport: 'http', url, headers: Object.keys(headers), allowPrivateNetwork: local, enabled };
  } else {
    return { ...base, problem: 'it has neither a command nor a URL' };
  }
  const parsed = serverEntrySchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ...base, problem: `${issue.path.length > 0 ? `"${issue.path.join('.')}" ` : ''}${issue.message}` };
  }
  return { ...base, entry: parsed.data };
}

/** Why the key store cannot be used, in its own words (undefined when it can): what `keyStoreProblem` quotes. */
export function unusableKeyStore(view: { available: boolean; problem?: string; detail: string }): string | undefined {
  return view.available ? undefined : (view.problem ?? view.detail);
}

/**
 * Why a server cannot move while the key store cannot be used: its inline values would have nowhere to go (said
 * before any preview, with what works instead). undefined when it has none, or when the store can be used.
 */
export function keyStoreProblem(secrets: readonly string[], unusable: string | undefined): string | undefined {
  if (secrets.length === 0 || unusable === undefined) return undefined;
  return (
    `its ${secrets.join(', ')} would go into the key store, which cannot be used here (${unusable.replace(/\.$/, '')}). ` +
    'To keep such values in a plaintext file instead (anyone who can read your files can use them), choose "File in the data dir" for ' +
    '"Where API keys live" in Settings, or start Airlock with `--secret-store file`, then restart it; or make the keychain work. ' +
    'A server with no value written inline moves now'
  );
}

/** What the import needs of the client registrar (clients/registrar.ts). */
export interface ImportRegistrar {
  servers(id: string): Promise<{ id: string; label: string; file?: string; entries: Record<string, unknown> }>;
  moveBehind(id: string, names: readonly string[], opts?: { dryRun?: boolean }): Promise<{ diff: string; backup?: string; afterwards: string }>;
}

export interface ImportPlan {
  client: string;
  label: string;
  /** Those that move, each with its entry and inline secrets. */
  moving: ImportCandidate[];
  /** Those asked for that cannot move, each with why. */
  refused: ImportCandidate[];
  /** The client's file afterwards, as a diff, every inline value of the file scrubbed from it. */
  diff: string;
  /** Of what moves and the change to the client's file: a move names it, so it moves only what was previewed. */
  digest: string;
}

/**
 * What importing these servers (or every one) of a client would do: which move, which cannot and why (a name
 * already behind Airlock among them), and the client's file afterwards. Nothing is changed.
 */
export async function planImport(
  registrar: ImportRegistrar,
  taken: ReadonlySet<string>,
  client: string,
  pick: { all?: boolean; servers?: readonly string[] },
  /** Why the key store cannot be used, when it cannot: a server with inline values then cannot move. */
  keyStoreUnusable?: string,
): Promise<ImportPlan> {
  const { label, entries } = await registrar.servers(client);
  const candidates = Object.entries(entries).map(([from, raw]) => importCandidate(from, raw));
  if (candidates.length === 0) throw new AirlockError('not_found', `${label} has no MCP server of its own to move`);
  const named = pick.servers ?? [];
  const unknown = named.filter((n) => !candidates.some((c) => c.from === n || c.name === n));
  if (unknown.length > 0)
    throw new AirlockError('usage', `${label} has no server named ${unknown.join(', ')}`, { hint: `its servers: ${candidates.map((c) => c.from).join(', ')}` });
  const picked = candidates.filter((c) => pick.all || named.includes(c.from) || named.includes(c.name));
  if (picked.length === 0) {
    throw new AirlockError('usage', 'name the servers to move (--server NAME, repeated), or all of them (--all)', {
      hint: `${label}'s servers: ${candidates.map((c) => c.from).join(', ')}`,
    });
  }
  for (const c of picked) {
    if (!c.problem && taken.has(c.name)) c.problem = `a server named '${c.name}' is behind Airlock already (airlock servers remove ${c.name} first)`;
    c.problem ??= keyStoreProblem(Object.keys(c.secrets), keyStoreUnusable);
  }
  const moving = picked.filter((c) => !c.problem);
  const refused = picked.filter((c) => c.problem);
  const diff =
    moving.length > 0
      ? (
          await registrar.moveBehind(
            client,
            moving.map((c) => c.from),
            { dryRun: true },
          )
        ).diff
      : '';
  // The diff shows the entries going: every value written inline in the file is scrubbed from it.
  const scrub = createRedactor(candidates.flatMap((c) => Object.values(c.secrets)).filter((v) => v.length >= REDACTED_FROM_LENGTH));
  const digest = `sha256:${createHash('sha256')
    .update(JSON.stringify(moving.map((c) => [c.from, c.name, c.entry, Object.keys(c.secrets).sort()])))
    .update('\0')
    .update(diff)
    .digest('hex')}`;
  return { client, label, moving, refused, diff: scrub(diff), digest };
}

/**
 * Carries a plan out: each server's inline values into the key store, then its entry, then the client's file
 * without them (and with Airlock), backed up first — in that order, so a crash half way leaves a server in both
 * places, never in neither.
 */
export async function carryOut(
  plan: ImportPlan,
  registrar: ImportRegistrar,
  store: { add(name: string, entry: ServerEntry): Promise<void> },
  keys: { set(account: string, secret: string): Promise<void> },
): Promise<{ backup?: string; afterwards: string }> {
  for (const c of plan.moving) {
    for (const [secret, value] of Object.entries(c.secrets)) await keys.set(secretAccount(c.name, secret), value);
    await store.add(c.name, c.entry!);
  }
  const done = await registrar.moveBehind(
    plan.client,
    plan.moving.map((c) => c.from),
  );
  return { ...(done.backup ? { backup: done.backup } : {}), afterwards: done.afterwards };
}
