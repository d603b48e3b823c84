// `airlock servers list | add | show | secret | enable | disable | remove`:
// other MCP servers Airlock will stand in front of (issue 20, being built).
// Entries live in `<data dir>/servers.json`; a secret a server needs is kept
// in the keychain (never on the command line, never in the file) and given
// to its process by name at start. `show` starts a stdio server with the
// environment its entry allows and prints its tools as Airlock sees them.
// Clients do not reach these servers through Airlock yet.
import { ServerStore } from '../../core/upstream/serverStore.ts';
import { secretAccount, DEFAULT_TIMEOUT_MS, type ServerEntry } from '../../core/upstream/serverEntry.ts';
import { AirlockError } from '../../core/util/errors.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import { fingerprint } from '../../core/secrets/fingerprint.ts';
import { readSecretFromStdin } from '../../core/secrets/readSecret.ts';
import { secretStoreFor } from './keys.ts';
import type { CliContext } from '../context.ts';

const storeOf = (ctx: CliContext) => new ServerStore(dataPaths(ctx.settings.dataDir).servers);

function describe(entry: ServerEntry): string {
  return entry.transport === 'stdio' ? [entry.command, ...entry.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ') : entry.url;
}

/** The names a server's secrets are kept under: a stdio server's variables, an HTTP server's headers. */
function secretNames(entry: ServerEntry): string[] {
  return entry.transport === 'stdio' ? entry.secrets : entry.headers;
}

export async function serversList(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const servers = storeOf(ctx).list();
  if (options.json) {
    process.stdout.write(JSON.stringify(servers, null, 2) + '\n');
    return;
  }
  if (servers.length === 0) {
    process.stdout.write('No MCP server yet. Add one: airlock servers add NAME -- COMMAND [ARGS…], or airlock servers add NAME --url URL\n');
    return;
  }
  const width = Math.max(...servers.map((s) => s.name.length));
  for (const { name, entry } of servers) {
    process.stdout.write(`${name.padEnd(width)}  ${entry.enabled ? 'enabled ' : 'disabled'}  ${entry.transport}  ${describe(entry)}\n`);
  }
}

export interface AddOptions {
  command: string[];
  url?: string;
  env: string[];
  secret: string[];
  header: string[];
  timeout?: number;
  disabled?: boolean;
  allowPrivateNetwork?: boolean;
}

export async function serversAdd(ctx: CliContext, name: string, o: AddOptions): Promise<number> {
  if (o.url && o.command.length > 0) throw new AirlockError('usage', 'give either a command (after --) or --url, not both');
  if (!o.url && o.command.length === 0) {
    throw new AirlockError('usage', `no server given: airlock servers add ${name} -- COMMAND [ARGS…] (a stdio server), or --url URL (an HTTP one)`);
  }
  if (o.url && (o.env.length > 0 || o.secret.length > 0))
    throw new AirlockError('usage', '--env and --secret are for a stdio server (a command); an HTTP server takes --header');
  if (!o.url && (o.header.length > 0 || o.allowPrivateNetwork))
    throw new AirlockError('usage', '--header and --allow-private-network are for an HTTP server (--url)');
  const common = { enabled: !o.disabled, timeoutMs: o.timeout !== undefined ? o.timeout * 1000 : DEFAULT_TIMEOUT_MS };
  const entry: ServerEntry = o.url
    ? { transport: 'http', url: o.url, headers: o.header, allowPrivateNetwork: o.allowPrivateNetwork === true, ...common }
    : { transport: 'stdio', command: o.command[0]!, args: o.command.slice(1), env: o.env, secrets: o.secret, ...common };
  await storeOf(ctx).add(name, entry);
  process.stdout.write(`Added MCP server ${name} (${entry.transport}: ${describe(entry)})${entry.enabled ? '' : ', disabled'}.\n`);
  for (const secret of secretNames(entry)) process.stdout.write(`  its ${secret}: airlock servers secret ${name} ${secret}\n`);
  process.stdout.write(`See its tools: airlock servers show ${name}. Clients do not reach it through Airlock yet.\n`);
  return 0;
}

export async function serversSecret(ctx: CliContext, name: string, variable: string): Promise<number> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  if (!secretNames(entry).includes(variable)) {
    throw new AirlockError('usage', `${variable} is not a secret of ${name} (its secrets: ${secretNames(entry).join(', ') || 'none'})`, {
      hint: `add it to the entry: airlock servers remove ${name}, then add it again with --${entry.transport === 'stdio' ? 'secret' : 'header'} ${variable}`,
    });
  }
  const store = secretStoreFor(ctx);
  const secret = await readSecretFromStdin({ input: process.stdin, output: process.stderr, prompt: `${variable} for MCP server ${name}: ` });
  await store.set(secretAccount(name, variable), secret);
  process.stdout.write(`Saved ${variable} for ${name} in the ${store.kind} (${fingerprint(secret)}).\n`);
  return 0;
}

export async function serversShow(ctx: CliContext, name: string, options: { json?: boolean }): Promise<number> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  if (entry.transport !== 'stdio') {
    process.stdout.write(`${name}: ${entry.url} (HTTP). Connecting to HTTP servers is not built yet.\n`);
    return 1;
  }
  const [{ connectStdio }, { childEnvironment, loginShellPath }] = await Promise.all([
    import('../../core/upstream/upstreamClient.ts'),
    import('../../core/upstream/childEnvironment.ts'),
  ]);
  const store = secretStoreFor(ctx);
  const secrets: Record<string, string> = {};
  const missing: string[] = [];
  for (const variable of entry.secrets) {
    const value = await store.get(secretAccount(name, variable));
    if (value === undefined) missing.push(variable);
    else secrets[variable] = value;
  }
  if (missing.length > 0)
    process.stderr.write(`airlock: ${name} has no ${missing.join(', ')} yet (airlock servers secret ${name} ${missing[0]}); started without\n`);
  // What the server says is scrubbed of the secrets it was given, in the log and in errors alike.
  for (const value of Object.values(secrets)) ctx.redaction.add(value);
  const env = childEnvironment({ pass: entry.env, secrets, parent: process.env, ...(await loginPathOf(loginShellPath)) });
  const connection = await connectStdio(name, entry, { env, log: (line) => ctx.logger.debug(line), redact: ctx.redaction.redact });
  try {
    const tools = await connection.tools();
    if (options.json) {
      process.stdout.write(JSON.stringify({ name, entry, tools }, null, 2) + '\n');
      return 0;
    }
    process.stdout.write(`${name}: ${describe(entry)} — ${tools.length} tool${tools.length === 1 ? '' : 's'}\n`);
    for (const tool of tools) {
      const a = tool.annotations ?? {};
      const kind = a.readOnlyHint ? 'read-only' : a.destructiveHint === false ? 'writes' : 'may destroy';
      const line = printable((tool.description ?? '').split('\n')[0]!).slice(0, 100);
      process.stdout.write(`  ${printable(tool.name)}  (${kind})${line ? `  ${line}` : ''}\n`);
    }
    return 0;
  } finally {
    await connection.close();
  }
}

/** A server's words as a terminal may show them: no control characters (escape sequences could rewrite the screen or the clipboard). */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}

async function loginPathOf(read: () => Promise<string | undefined>): Promise<{ loginPath?: string }> {
  const path = await read();
  return path ? { loginPath: path } : {};
}

export async function serversEnable(ctx: CliContext, name: string, enabled: boolean): Promise<number> {
  if (!(await storeOf(ctx).setEnabled(name, enabled))) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  process.stdout.write(`${name} ${enabled ? 'enabled' : 'disabled'}.\n`);
  return 0;
}

export async function serversRemove(ctx: CliContext, name: string): Promise<number> {
  const store = storeOf(ctx);
  const entry = store.get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  // Its secrets first: a key store that cannot be reached leaves the entry (and says why), never a secret nobody lists.
  const keys = secretStoreFor(ctx);
  for (const variable of secretNames(entry)) await keys.delete(secretAccount(name, variable));
  await store.remove(name);
  process.stdout.write(`Removed ${name}${secretNames(entry).length > 0 ? ' and its secrets' : ''}.\n`);
  return 0;
}
