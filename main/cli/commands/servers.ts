// `airlock servers list | add | show | accept | policy | secret | enable |
// disable | remove`: other MCP servers behind Airlock's gate (issue 20).
// Entries live in `<data dir>/servers.json`; a secret a server needs is kept
// in the keychain (never on the command line, never in the file) and given
// to its process by name at start. `show` starts a stdio server with the
// environment its entry allows and prints its tools as Airlock sees them,
// with what changed since they were accepted; `accept` is the person's
// review, after which scripts reach the tools as `mcp.<server>.<tool>`.
import { printable, printableLines } from '../printable.ts';
import { ServerStore } from '../../core/upstream/serverStore.ts';
import { secretAccount, secretNames, serverTarget, DEFAULT_TIMEOUT_MS, httpServerSchema, type ServerEntry } from '../../core/upstream/serverEntry.ts';
import { clientMetadataDocument } from '../../core/upstream/oauthProvider.ts';
import { OAUTH_REDIRECT_URL, cachedLoginPath } from '../../core/upstream/serverLauncher.ts';
import { missingCommandWarning } from '../../core/upstream/commandLookup.ts';
import { policyOf, serverRefusal } from '../../core/config/managedPolicy.ts';
import { refuseByPolicy } from '../policyRefusal.ts';
import { AirlockError } from '../../core/util/errors.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import { fingerprint } from '../../core/secrets/fingerprint.ts';
import { readSecretFromStdin } from '../../core/secrets/readSecret.ts';
import { secretStoreFor } from './keys.ts';
import type { CliContext } from '../context.ts';
import { PinStore } from '../../core/upstream/toolPins.ts';
import type { ToolPolicy } from '../../core/upstream/toolPolicy.ts';
import { serverReview } from '../../core/upstream/serverReview.ts';
import type { ServerReview, ServerView } from '../../../contract/servers.ts';

const storeOf = (ctx: CliContext) => new ServerStore(dataPaths(ctx.settings.dataDir).servers);
const pinsOf = (ctx: CliContext) => new PinStore(dataPaths(ctx.settings.dataDir).serverReviews);

/** The running companion's control client, or undefined when none runs for this data dir. */
async function running(ctx: CliContext) {
  return (await import('../runningServer.ts')).runningCompanion(ctx.settings.dataDir);
}

const STATE_WORDS: Record<ServerView['state'], string> = {
  disabled: 'disabled',
  configured: 'not started yet (starts on first use)',
  starting: 'starting',
  connected: 'connected',
  failed: 'failed',
  stopped: 'stopped',
};

export async function serversList(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const control = await running(ctx);
  if (control) {
    const views = await control.call('servers.list', {});
    if (options.json) {
      process.stdout.write(JSON.stringify(views, null, 2) + '\n');
      return;
    }
    if (views.length === 0) return noServerYet();
    const width = Math.max(...views.map((v) => v.name.length));
    for (const v of views) {
      const tools = v.toolCount !== undefined ? `, ${v.toolCount} tools` : '';
      const review = v.review && v.review !== 'accepted' ? `, ${REVIEW_WORDS[v.review]}` : '';
      const reason = v.reason ? `: ${printable(v.reason)}` : '';
      process.stdout.write(`${v.name.padEnd(width)}  ${STATE_WORDS[v.state]}${tools}${review}${reason}  ${v.transport}  ${printable(v.target)}\n`);
      if (v.commandMissing) process.stdout.write(`${' '.repeat(width)}  warning: ${printable(v.commandMissing)}\n`);
    }
    return;
  }
  const servers = storeOf(ctx).list();
  if (options.json) {
    process.stdout.write(JSON.stringify(servers, null, 2) + '\n');
    return;
  }
  if (servers.length === 0) return noServerYet();
  process.stdout.write('No companion runs for this data dir: what servers.json says.\n');
  const width = Math.max(...servers.map((s) => s.name.length));
  for (const { name, entry } of servers) {
    process.stdout.write(`${name.padEnd(width)}  ${entry.enabled ? 'enabled ' : 'disabled'}  ${entry.transport}  ${serverTarget(entry)}\n`);
  }
}

function noServerYet(): void {
  process.stdout.write('No MCP server yet. Add one: airlock servers add NAME -- COMMAND [ARGS…], or airlock servers add NAME --url URL\n');
}

export interface AddOptions {
  command: string[];
  url?: string;
  env: string[];
  secret: string[];
  header: string[];
  timeout?: number;
  disabled?: boolean;
  autostart?: boolean;
  /** A machine-to-machine remote server: the OAuth client Airlock signs in as. */
  clientId?: string;
  clientAuth?: 'client-secret' | 'private-key-jwt';
  clientAlg?: string;
  scope?: string;
  clientMetadataUrl?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
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
  const common = {
    enabled: !o.disabled,
    timeoutMs: o.timeout !== undefined ? o.timeout * 1000 : DEFAULT_TIMEOUT_MS,
    ...(o.autostart ? { autostart: true } : {}),
  };
  if (o.clientId === undefined && (o.clientAuth || o.clientAlg || o.scope))
    throw new AirlockError('usage', '--client-auth, --client-alg and --scope go with --client-id');
  if (o.clientId !== undefined && !o.url) throw new AirlockError('usage', '--client-id is for a remote server (--url)');
  if ((o.idpTokenEndpoint === undefined) !== (o.idpClientId === undefined))
    throw new AirlockError('usage', '--idp-token-endpoint and --idp-client-id go together (cross-app access), with --client-id');
  if (o.idpTokenEndpoint !== undefined && (o.clientId === undefined || o.clientAuth !== undefined || o.clientAlg !== undefined))
    throw new AirlockError('usage', 'cross-app access signs in as --client-id with its secret: give --client-id, without --client-auth or --client-alg');
  if (o.clientMetadataUrl !== undefined && (!o.url || o.clientId !== undefined))
    throw new AirlockError('usage', '--client-metadata-url is for a remote server a person signs in to (--url, without --client-id)');
  const clientCredentials = o.idpTokenEndpoint
    ? {
        crossApp: {
          clientId: o.clientId!,
          idpTokenEndpoint: o.idpTokenEndpoint,
          idpClientId: o.idpClientId!,
          ...(o.scope ? { scope: o.scope } : {}),
        },
      }
    : o.clientId
      ? {
          clientCredentials: {
            clientId: o.clientId,
            auth: o.clientAuth ?? 'client-secret',
            ...(o.clientAlg ? { algorithm: o.clientAlg } : {}),
            ...(o.scope ? { scope: o.scope } : {}),
          },
        }
      : {};
  const entry: ServerEntry = o.url
    ? {
        transport: 'http',
        url: o.url,
        headers: o.header,
        allowPrivateNetwork: o.allowPrivateNetwork === true,
        ...clientCredentials,
        ...(o.clientMetadataUrl ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
        ...common,
      }
    : { transport: 'stdio', command: o.command[0]!, args: o.command.slice(1), env: o.env, secrets: o.secret, ...common };
  // The organisation's policy, before anything is written (a running companion checks it again at every start).
  const refused = serverRefusal(policyOf(ctx.managed), { name, entry });
  if (refused) await refuseByPolicy(ctx, `servers add ${name}`, refused, 'nothing was added');
  await storeOf(ctx).add(name, entry);
  // After `--` everything is the server's: an Airlock option there was most likely meant for Airlock.
  const mine = o.command.slice(1).filter((a) => /^--(data-dir|secret-store|env|secret|timeout|disabled|log-level)(=|$)/.test(a));
  if (mine.length > 0) {
    process.stderr.write(
      `airlock: warning: ${mine.join(', ')} came after --, so it is part of the server's command line, not an option of Airlock's. If it was meant for Airlock, remove the server and add it again with the option before --.\n`,
    );
  }
  // A command that is not there: added all the same (it may be installed next), but said now, not at its first start.
  const missing = entry.transport === 'stdio' ? missingCommandWarning(entry.command, (await cachedLoginPath()) ?? process.env.PATH) : undefined;
  if (missing) process.stderr.write(`airlock: warning: ${missing}.\n`);
  process.stdout.write(`Added MCP server ${name} (${entry.transport}: ${serverTarget(entry)})${entry.enabled ? '' : ', disabled'}.\n`);
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

/**
 * A server's review: from the running companion (the process its calls go to), or, when none runs, from the
 * server started here as the companion would start it (its secrets from the key store), stopped after.
 */
async function reviewOf(ctx: CliContext, name: string): Promise<{ review: ServerReview; entry: ServerEntry; accept(digest: string): Promise<void> }> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  const control = await running(ctx);
  if (control) {
    return {
      review: await control.call('servers.review', { name }),
      entry,
      accept: async (digest) => void (await control.call('servers.accept', { name, digest })),
    };
  }
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
    const tools = await connection.tools();
    const pins = pinsOf(ctx);
    const review = serverReview(name, entry, tools, pins.get(name)?.tools, ctx.redaction.redact);
    return { review, entry, accept: async () => void (await pins.accept(name, tools)) };
  } finally {
    await connection.close();
  }
}

export async function serversShow(ctx: CliContext, name: string, options: { json?: boolean }): Promise<number> {
  const { review, entry } = await reviewOf(ctx, name);
  if (options.json) {
    process.stdout.write(JSON.stringify({ name, entry, review }, null, 2) + '\n');
    return 0;
  }
  const n = review.tools.length;
  process.stdout.write(`${name}: ${serverTarget(entry)} — ${n} tool${n === 1 ? '' : 's'}, ${REVIEW_WORDS[review.state]}\n`);
  for (const tool of review.tools) {
    const line = printable((tool.description ?? '').split('\n')[0]!).slice(0, 100);
    process.stdout.write(`  ${printable(tool.name)}  (${KIND_WORDS[tool.kind]}, ${POLICY_WORDS[tool.effective]})${line ? `  ${line}` : ''}\n`);
  }
  if (review.state === 'changed') {
    process.stdout.write('\nWhat changed since you accepted it:\n');
    for (const change of review.changes) process.stdout.write(printableLines(change.diff) + '\n');
  }
  if (review.state !== 'accepted') process.stdout.write(`\nNothing of ${name} runs until you accept its tools: airlock servers accept ${name}\n`);
  return 0;
}

export async function serversAccept(ctx: CliContext, name: string, options: { yes?: boolean }): Promise<number> {
  const { review, accept } = await reviewOf(ctx, name);
  const n = review.tools.length;
  if (review.state === 'accepted') {
    process.stdout.write(`${name}'s ${n} tools are accepted as they are; nothing to do.\n`);
    return 0;
  }
  // What is accepted is exactly what is shown here (its digest): the definitions, or what changed in them.
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
    const answer = await rl.question(`Accept these ${n} tool definitions of ${name}? [y/N] `).finally(() => rl.close());
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stdout.write('Not accepted: its tools stay held.\n');
      return 1;
    }
  }
  await accept(review.digest);
  process.stdout.write(
    `Accepted ${n} tool${n === 1 ? '' : 's'} of ${name}. Scripts reach them as mcp.${name}.<tool>(args); a change to them is held for review again.\n`,
  );
  return 0;
}

export async function serversPolicy(ctx: CliContext, name: string, policy: ToolPolicy | 'default', tool: string | undefined): Promise<number> {
  const control = await running(ctx);
  if (control) await control.call('servers.setPolicy', { name, ...(tool ? { tool } : {}), policy: policy === 'default' ? null : policy });
  else if (!(await storeOf(ctx).setPolicy(name, tool, policy === 'default' ? undefined : policy))) {
    throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  }
  const what = tool ? `${name}'s tool ${tool}` : `${name}'s tools`;
  process.stdout.write(policy === 'default' ? `${what}: back to the default.\n` : `${what}: ${policy}.\n`);
  return 0;
}

const REVIEW_WORDS: Record<ServerReview['state'], string> = {
  unreviewed: 'not reviewed yet (held)',
  accepted: 'accepted',
  changed: 'changed since you accepted it (held)',
};

const KIND_WORDS: Record<ServerReview['tools'][number]['kind'], string> = { 'read-only': 'read-only', writes: 'writes', 'may-destroy': 'may destroy' };
const POLICY_WORDS: Record<ToolPolicy, string> = { allow: 'runs', ask: 'asks you', deny: 'refused' };

export async function serversEnable(ctx: CliContext, name: string, enabled: boolean): Promise<number> {
  const control = await running(ctx);
  if (control) await control.call('servers.setEnabled', { name, enabled });
  else if (!(await storeOf(ctx).setEnabled(name, enabled)))
    throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  process.stdout.write(`${name} ${enabled ? 'enabled' : 'disabled'}.\n`);
  return 0;
}

export async function serversRemove(ctx: CliContext, name: string): Promise<number> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  const control = await running(ctx);
  const remove = async (): Promise<string[]> => {
    if (control) return (await control.call('servers.remove', { name })).leftBehind ?? [];
    const { removeServer } = await import('../../core/upstream/serverAdmin.ts');
    // The configuration never needs the key store; its secrets are removed where the store can be reached.
    const { GrantStore } = await import('../../core/approvals/grantStore.ts');
    const grants = new GrantStore({ file: dataPaths(ctx.settings.dataDir).grants });
    const { leftBehind } = await removeServer(name, { store: storeOf(ctx), pins: pinsOf(ctx), keys: secretStoreFor(ctx), grants, by: 'the CLI' });
    await grants.flush();
    return leftBehind;
  };
  const leftBehind = await remove();
  if (leftBehind.length === 0) {
    process.stdout.write(`Removed ${name}${secretNames(entry).length > 0 ? ' and its secrets' : ''}.\n`);
    return 0;
  }
  process.stdout.write(
    `Removed ${name}. The key store cannot be reached here, so these entries stay in it: ${leftBehind.join(', ')}. ` +
      `Remove them once it can be reached (a server added again as ${name} would find them).\n`,
  );
  return 0;
}

export async function serversRestart(ctx: CliContext, name: string): Promise<number> {
  const control = await running(ctx);
  if (!control) {
    throw new AirlockError('usage', 'no companion runs for this data dir: a server starts when a script first calls it', {
      hint: 'start the companion (airlock serve, or the app)',
    });
  }
  const view = await control.call('servers.restart', { name });
  process.stdout.write(
    `${name}: ${STATE_WORDS[view.state]}${view.toolCount !== undefined ? `, ${view.toolCount} tools` : ''}${view.reason ? `: ${printable(view.reason)}` : ''}\n`,
  );
  return view.state === 'connected' ? 0 : 1;
}

export async function serversDirect(ctx: CliContext, name: string, on: boolean): Promise<number> {
  const control = await running(ctx);
  if (control) await control.call('servers.setDirect', { name, direct: on });
  else if (!(await storeOf(ctx).setDirect(name, on))) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  process.stdout.write(
    on
      ? `${name}'s accepted tools are offered to clients directly, as ${name}__<tool> (at most 40 tools in all; execute reaches every one).\n`
      : `${name}'s tools are no longer offered directly (scripts still reach them as mcp.${name}.<tool>).\n`,
  );
  return 0;
}

export interface ImportOptions {
  server: string[];
  all?: boolean;
  dryRun?: boolean;
  yes?: boolean;
}

/**
 * `airlock servers import [CLIENT]`: without a client, the servers each client's file holds; with one, the chosen
 * ones moved behind Airlock — added here (their inline values into the key store), then taken out of the client's
 * file, which keeps one entry: Airlock (previewed, backed up; `airlock clients undo CLIENT` restores it).
 */
export async function serversImport(ctx: CliContext, client: string | undefined, o: ImportOptions): Promise<number> {
  const [{ machineRegistrar }, { importCandidate, keyStoreProblem, planImport, carryOut, unusableKeyStore }, { CLIENTS }, { describeSecretStore }] =
    await Promise.all([
      import('../../core/clients/machineRegistrar.ts'),
      import('../../core/upstream/serverImport.ts'),
      import('../../core/clients/clientCatalog.ts'),
      import('../../core/secrets/secretStoreView.ts'),
    ]);
  // Where inline values would go: a server with some cannot move while that store cannot be used (said before any change).
  const keys = secretStoreFor(ctx);
  const probe = await keys.probe();
  const unusable = unusableKeyStore(describeSecretStore({ kind: keys.kind, probe }));
  const registrar = machineRegistrar(ctx.settings.dataDir);
  const store = storeOf(ctx);
  if (!client) {
    let any = false;
    for (const d of CLIENTS) {
      const { label, file, entries } = await registrar.servers(d.id).catch(() => ({ label: d.label, file: undefined, entries: {} }));
      if (Object.keys(entries).length === 0) continue;
      any = true;
      process.stdout.write(`${label} (${d.id}, ${file}):\n`);
      for (const [from, raw] of Object.entries(entries)) {
        const c = importCandidate(from, raw);
        c.problem ??= keyStoreProblem(Object.keys(c.secrets), unusable);
        const secrets = Object.keys(c.secrets).length;
        process.stdout.write(
          c.entry && !c.problem
            ? `  ${printable(from)} → ${c.name}: ${printable(serverTarget(c.entry))}${secrets > 0 ? ` (${secrets} inline value${secrets === 1 ? '' : 's'} → the key store)` : ''}\n`
            : `  ${printable(from)}: cannot be moved: ${printable(c.problem ?? 'it cannot be read')}\n`,
        );
      }
    }
    process.stdout.write(
      any
        ? 'Move some behind Airlock: airlock servers import CLIENT --server NAME… (or --all); --dry-run shows the change first.\n'
        : 'No client on this machine has an MCP server of its own.\n',
    );
    return 0;
  }
  const plan = await planImport(registrar, new Set(store.list().map((s) => s.name)), client, { all: o.all === true, servers: o.server }, unusable);
  for (const c of plan.refused) process.stdout.write(`${printable(c.from)}: not moved: ${printable(c.problem!)}\n`);
  if (plan.moving.length === 0) return 1;
  for (const c of plan.moving) {
    const secrets = Object.keys(c.secrets);
    process.stdout.write(`${printable(c.from)} → ${c.name}: ${printable(serverTarget(c.entry!))}\n`);
    if (secrets.length > 0) process.stdout.write(`  its ${secrets.join(', ')}: moved into the key store (never written to servers.json)\n`);
    for (const note of c.notes) process.stdout.write(`  ${note}\n`);
  }
  process.stdout.write(`\n${plan.label}'s file, afterwards (it keeps one entry: Airlock):\n${plan.diff}\n`);
  if (o.dryRun) {
    process.stdout.write('Nothing changed (--dry-run).\n');
    return 0;
  }
  const n = plan.moving.length;
  if (!o.yes) {
    if (!process.stdin.isTTY)
      throw new AirlockError('usage', 'moving servers needs a yes: run it in a terminal, or add --yes once you have read the preview (--dry-run)');
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`Move ${n} server${n === 1 ? '' : 's'} behind Airlock? [y/N] `).finally(() => rl.close());
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stdout.write('Nothing moved.\n');
      return 1;
    }
  }
  const done = await carryOut(plan, registrar, store, keys);
  process.stdout.write(
    `Moved ${plan.moving.map((c) => c.name).join(', ')} behind Airlock${done.backup ? ` (the client's file was backed up: airlock clients undo ${client} restores it)` : ''}. ${plan.label}: ${done.afterwards}.\n`,
  );
  process.stdout.write(
    `Nothing of them runs until you review their tools: airlock servers accept ${plan.moving[0]!.name}${n > 1 ? ' (and the others)' : ''}.\n`,
  );
  return plan.refused.length > 0 ? 1 : 0;
}

/** `airlock servers login NAME`: signs in to a remote server behind OAuth in the browser; the tokens go to the key store. */
export async function serversLogin(ctx: CliContext, name: string): Promise<number> {
  const entry = storeOf(ctx).get(name);
  if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
  if (entry.transport !== 'http') throw new AirlockError('usage', `${name} is started as a command: only a remote server (--url) is signed in to`);
  const [{ launchServer, OAUTH_CALLBACK_PORT }, { browserAuthorize }] = await Promise.all([
    import('../../core/upstream/serverLauncher.ts'),
    import('../../core/upstream/oauthBrowserFlow.ts'),
  ]);
  const connection = await launchServer(name, entry, {
    keys: secretStoreFor(ctx),
    onSecret: (value) => ctx.redaction.add(value),
    log: (line) => ctx.logger.debug(line),
    redact: ctx.redaction.redact,
    authorize: browserAuthorize({ port: OAUTH_CALLBACK_PORT, tell: (line) => process.stderr.write(`${line}\n`) }),
  });
  try {
    const tools = await connection.tools();
    process.stdout.write(
      `Signed in to ${name}: ${tools.length} tool${tools.length === 1 ? '' : 's'}. Its tokens are in the key store, and Airlock refreshes them.\n`,
    );
  } finally {
    await connection.close();
  }
  // A running companion that failed to reach it starts it again, signed in.
  const control = await running(ctx).catch(() => undefined);
  if (control) await control.call('servers.restart', { name }).catch(() => undefined);
  return 0;
}

/** `airlock servers client-metadata URL`: the client ID metadata document to publish at URL, on stdout. */
export async function serversClientMetadata(url: string): Promise<number> {
  const checked = httpServerSchema.shape.clientMetadataUrl.safeParse(url);
  if (!checked.success || checked.data === undefined) {
    throw new AirlockError('usage', `${url} cannot be a client_id: it must be an HTTPS URL with a path`, {
      hint: 'for example https://example.org/airlock/client-metadata.json, served with content-type application/json',
    });
  }
  process.stdout.write(JSON.stringify(clientMetadataDocument(checked.data, OAUTH_REDIRECT_URL), null, 2) + '\n');
  return 0;
}
