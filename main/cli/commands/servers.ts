// `airlock servers list | add | show | accept | policy | secret | enable |
// disable | remove`: other MCP servers behind Airlock's gate (issue 20).
// Entries live in `<data dir>/servers.json`; a secret a server needs is kept
// in the keychain (never on the command line, never in the file) and given
// to its process by name at start. `show` starts a stdio server with the
// environment its entry allows and prints its tools as Airlock sees them,
// with what changed since they were accepted; `accept` is the person's
// review, after which scripts reach the tools as `mcp.<server>.<tool>`.
import { ServerStore } from '../../core/upstream/serverStore.ts';
import { secretAccount, secretNames, DEFAULT_TIMEOUT_MS, type ServerEntry } from '../../core/upstream/serverEntry.ts';
import { AirlockError } from '../../core/util/errors.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import { fingerprint } from '../../core/secrets/fingerprint.ts';
import { readSecretFromStdin } from '../../core/secrets/readSecret.ts';
import { secretStoreFor } from './keys.ts';
import type { CliContext } from '../context.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { PinStore, reviewOf, type Review } from '../../core/upstream/toolPins.ts';
import { toolPolicy, type ToolPolicy } from '../../core/upstream/toolPolicy.ts';

const storeOf = (ctx: CliContext) => new ServerStore(dataPaths(ctx.settings.dataDir).servers);
const pinsOf = (ctx: CliContext) => new PinStore(dataPaths(ctx.settings.dataDir).serverReviews);

function describe(entry: ServerEntry): string {
  return entry.transport === 'stdio' ? [entry.command, ...entry.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ') : entry.url;
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
  process.stdout.write(`See its tools: airlock servers show ${name}; then accept them: airlock servers accept ${name}.\n`);
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

/** Starts a server as the companion would (its secrets from the key store) and lists its tools; stopped after `use`. */
async function withServer<T>(ctx: CliContext, name: string, use: (tools: Tool[], entry: ServerEntry) => Promise<T>): Promise<T> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  const { launchServer } = await import('../../core/upstream/serverLauncher.ts');
  const connection = await launchServer(name, entry, {
    keys: secretStoreFor(ctx),
    // What the server says is scrubbed of the secrets it was given, in the log and in errors alike.
    onSecret: (value) => ctx.redaction.add(value),
    log: (line) => ctx.logger.debug(line),
    redact: ctx.redaction.redact,
    onMissingSecret: (variable) =>
      process.stderr.write(`airlock: ${name} has no ${variable} yet (airlock servers secret ${name} ${variable}); started without\n`),
  });
  try {
    return await use(await connection.tools(), entry);
  } finally {
    await connection.close();
  }
}

export async function serversShow(ctx: CliContext, name: string, options: { json?: boolean }): Promise<number> {
  const pins = pinsOf(ctx);
  return withServer(ctx, name, async (tools, entry) => {
    const review = reviewOf(pins.get(name)?.tools, tools);
    if (options.json) {
      process.stdout.write(JSON.stringify({ name, entry, review, tools }, null, 2) + '\n');
      return 0;
    }
    process.stdout.write(`${name}: ${describe(entry)} — ${tools.length} tool${tools.length === 1 ? '' : 's'}, ${REVIEW_WORDS[review.state]}\n`);
    for (const tool of tools) {
      const line = printable((tool.description ?? '').split('\n')[0]!).slice(0, 100);
      process.stdout.write(`  ${printable(tool.name)}  (${kindOf(tool)}, ${policyOf(entry, tool)})${line ? `  ${line}` : ''}\n`);
    }
    if (review.state === 'changed') {
      process.stdout.write('\nWhat changed since you accepted it:\n');
      for (const change of review.changes) process.stdout.write(printableLines(change.diff) + '\n');
    }
    if (review.state !== 'accepted') process.stdout.write(`\nNothing of ${name} runs until you accept its tools: airlock servers accept ${name}\n`);
    return 0;
  });
}

export async function serversAccept(ctx: CliContext, name: string, options: { yes?: boolean }): Promise<number> {
  const pins = pinsOf(ctx);
  return withServer(ctx, name, async (tools) => {
    const review = reviewOf(pins.get(name)?.tools, tools);
    if (review.state === 'accepted') {
      process.stdout.write(`${name}'s ${tools.length} tools are accepted as they are; nothing to do.\n`);
      return 0;
    }
    // What is accepted is exactly what is shown here: the definitions, or what changed in them.
    for (const change of review.changes) process.stdout.write(`${change.change}: ${printable(change.tool)}\n${printableLines(change.diff)}\n`);
    if (!options.yes) {
      if (!process.stdin.isTTY) {
        throw new AirlockError(
          'usage',
          `accepting ${name}'s tools needs a yes: run it in a terminal, or add --yes once you have read them (airlock servers show ${name})`,
        );
      }
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`Accept these ${tools.length} tool definitions of ${name}? [y/N] `).finally(() => rl.close());
      if (!/^y(es)?$/i.test(answer.trim())) {
        process.stdout.write('Not accepted: its tools stay held.\n');
        return 1;
      }
    }
    await pins.accept(name, tools);
    process.stdout.write(
      `Accepted ${tools.length} tool${tools.length === 1 ? '' : 's'} of ${name}. Scripts reach them as mcp.${name}.<tool>(args); a change to them is held for review again.\n`,
    );
    return 0;
  });
}

export async function serversPolicy(ctx: CliContext, name: string, policy: ToolPolicy | 'default', tool: string | undefined): Promise<number> {
  const store = storeOf(ctx);
  if (!(await store.setPolicy(name, tool, policy === 'default' ? undefined : policy))) {
    throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  }
  const what = tool ? `${name}'s tool ${tool}` : `${name}'s tools`;
  process.stdout.write(policy === 'default' ? `${what}: back to the default.\n` : `${what}: ${policy}.\n`);
  return 0;
}

const REVIEW_WORDS: Record<Review['state'], string> = {
  unreviewed: 'not reviewed yet (held)',
  accepted: 'accepted',
  changed: 'changed since you accepted it (held)',
};

/** What a tool says of itself, in its annotations. */
function kindOf(tool: Tool): string {
  const a = tool.annotations ?? {};
  return a.readOnlyHint ? 'read-only' : a.destructiveHint === false ? 'writes' : 'may destroy';
}

/** What a call to it does once the server is accepted. */
function policyOf(entry: ServerEntry, tool: Tool): string {
  const policy = toolPolicy({
    reviewed: true,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(entry.toolPolicies && Object.hasOwn(entry.toolPolicies, tool.name) ? { toolPolicy: entry.toolPolicies[tool.name] } : {}),
    ...(entry.defaultPolicy ? { serverDefault: entry.defaultPolicy } : {}),
  });
  return { allow: 'runs', ask: 'asks you', deny: 'refused' }[policy];
}

/** A server's words as a terminal may show them: no control characters (escape sequences could rewrite the screen or the clipboard). */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}

/** Several lines of a server's words: each line printable, the line breaks kept. */
function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
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
  // Added again later, it waits for a review again.
  await pinsOf(ctx).forget(name);
  process.stdout.write(`Removed ${name}${secretNames(entry).length > 0 ? ' and its secrets' : ''}.\n`);
  return 0;
}
