// Adding and removing an MCP server, the same way from the CLI and from the
// Servers screen. Added from a JSON entry pasted in any client's format, its
// inline values go to the key store (the entry keeps their names) before the
// entry is saved; removed, its secrets and sign-in go first (a key store that
// cannot be reached leaves the entry, and says why, never a secret nobody
// lists), then its review and its grants, then the entry.
import { AirlockError } from '../util/errors.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import { secretAccount, secretNames, type ServerEntry } from './serverEntry.ts';
import type { ServerStore } from './serverStore.ts';
import type { PinStore } from './toolPins.ts';
import { OAUTH_SECRET } from './oauthProvider.ts';
import { importCandidate } from './serverImport.ts';
import { serverProfile } from '../../../contract/calls.ts';
import type { GrantStore } from '../approvals/grantStore.ts';
import { isRecord, messageOf } from '../../../contract/values.ts';

/** Where clients keep their map of servers, for a pasted config that holds one. */
const ROOTS = ['mcpServers', 'servers', 'context_servers', 'mcp_servers'];

/** The one server entry a pasted JSON holds: the entry itself, `{ "name": entry }`, or a client config with one server. */
export function pastedEntry(json: string): { from?: string; raw: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new AirlockError('usage', `the pasted text is not JSON: ${messageOf(error)}`);
  }
  if (!isRecord(value)) throw new AirlockError('usage', 'the pasted JSON is not an object (paste one server entry, e.g. {"command": "npx", "args": [...]})');
  if ('command' in value || 'url' in value || 'serverUrl' in value || 'httpUrl' in value) return { raw: value };
  const map = ROOTS.map((r) => value[r]).find(isRecord) ?? value;
  const names = Object.keys(map);
  if (names.length !== 1) {
    throw new AirlockError('usage', `the pasted JSON holds ${names.length} servers (${names.slice(0, 5).join(', ')}): paste one`, {
      hint: 'or move them all at once: airlock servers import',
    });
  }
  return { from: names[0]!, raw: map[names[0]!] };
}

/** Adds a server from a pasted entry: its inline values into the key store first, then the entry. */
export async function addFromJson(name: string, json: string, deps: { store: ServerStore; keys: Pick<SecretStore, 'set'> }): Promise<ServerEntry> {
  const { raw } = pastedEntry(json);
  const candidate = importCandidate(name, raw);
  if (!candidate.entry) throw new AirlockError('usage', `the pasted entry cannot be added: ${candidate.problem}`);
  // The name first: a taken one must not have its secrets overwritten before the entry is refused.
  if (deps.store.get(name)) {
    throw new AirlockError('usage', `a server named '${name}' exists already`, {
      hint: `remove it first (airlock servers remove ${name}), or pick another name`,
    });
  }
  for (const [secret, value] of Object.entries(candidate.secrets)) await deps.keys.set(secretAccount(name, secret), value);
  await deps.store.add(name, candidate.entry);
  return candidate.entry;
}

/** Removes a server with its secrets, its sign-in and its review; false when there was none. */
/**
 * Removes a server: its configuration, its review and its grants always (none of them needs the key store); its
 * secrets and sign-in from the key store where it can be reached. `leftBehind` names the key store entries that
 * could not be removed (a keychain that cannot be read here), so a person can remove them once it can.
 */
export async function removeServer(
  name: string,
  deps: { store: ServerStore; pins: PinStore; keys: Pick<SecretStore, 'delete'>; grants: Pick<GrantStore, 'revokeProfile'>; by: string },
): Promise<{ removed: boolean; leftBehind: string[] }> {
  const entry = deps.store.get(name);
  if (!entry) return { removed: false, leftBehind: [] };
  const leftBehind: string[] = [];
  // A stdio server has no sign-in; a remote one may have one, kept like a secret.
  for (const secret of [...secretNames(entry), ...(entry.transport === 'http' ? [OAUTH_SECRET] : [])]) {
    const account = secretAccount(name, secret);
    await deps.keys.delete(account).catch(() => void leftBehind.push(account));
  }
  await deps.pins.forget(name);
  // A server added later under this name starts with no grant of this one's.
  deps.grants.revokeProfile(serverProfile(name), deps.by);
  return { removed: await deps.store.remove(name), leftBehind };
}
