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
import { isIP } from 'node:net';
import { SERVER_NAME, commandProblem, serverEntrySchema, type ServerEntry } from './serverEntry.ts';
import { classifyAddress } from '../egress/addressPolicy.ts';

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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
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
