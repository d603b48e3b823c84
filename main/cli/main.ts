// The `airlock` command line: commander wiring only. Each command resolves
// its settings (flag > AIRLOCK_* env > settings.json > default) and calls
// into the core. Usage errors print one line and exit 2.
import { Command, CommanderError, Option, InvalidArgumentError } from 'commander';
import { AirlockError, errorMessage } from '../core/util/errors.ts';
import { ControlError } from '../../contract/controlApi.ts';
import { AIRLOCK_VERSION } from '../core/util/version.ts';
import { addSettingOptions } from './options.ts';
import { cliContext } from './context.ts';
import { API_NAME, PROFILE_NAME, SERVER_NAME } from '../../contract/names.ts';

// Each command's module loads when that command runs, so one command's
// start-up never pays for another's dependencies (the control client and its
// contract schemas included: only commands that talk to a running companion
// load them).
const connectToRunningServer = async (dataDir: string) => (await import('./runningServer.ts')).connectToRunningServer(dataDir);
const serveCommand = async (...a: Parameters<typeof import('./commands/serve.ts').serveCommand>) => (await import('./commands/serve.ts')).serveCommand(...a);
const stdioCommand = async (...a: Parameters<typeof import('./commands/stdio.ts').stdioCommand>) => (await import('./commands/stdio.ts')).stdioCommand(...a);
const doctorCommand = async (...a: Parameters<typeof import('./commands/doctor.ts').doctorCommand>) =>
  (await import('./commands/doctor.ts')).doctorCommand(...a);
const approvalsCommands = () => import('./commands/approvals.ts');
const openCommands = () => import('./commands/open.ts');
const keysCommands = () => import('./commands/keys.ts');
const apisCommands = () => import('./commands/apis.ts');
const serversCommands = () => import('./commands/servers.ts');
const clientsCommands = () => import('./commands/clients.ts');
const clientTokenCommands = () => import('./commands/clientTokens.ts');
const auditCommands = () => import('./commands/audit.ts');
const printNetworkPolicy = async (...a: Parameters<typeof import('./commands/printNetworkPolicy.ts').printNetworkPolicy>) =>
  (await import('./commands/printNetworkPolicy.ts')).printNetworkPolicy(...a);

const choice =
  <T extends string>(name: string, values: readonly T[]) =>
  (raw: string): T => {
    if (!values.includes(raw as T)) throw new InvalidArgumentError(`'${raw}' is not allowed (expected one of ${values.join(', ')})`);
    return raw as T;
  };

const positiveInt = (raw: string): number => {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new InvalidArgumentError(`'${raw}' is not a positive whole number`);
  return Number(raw);
};

const profileArg = (raw: string): string => {
  if (!PROFILE_NAME.test(raw)) throw new AirlockError('usage', `'${raw}' is not a profile name (lowercase letters, digits, - and _; at most 40)`);
  return raw;
};

/** Each --api adds one API (or several, comma-separated) to the session's scope. */
const collectApi = (raw: string, previous: string[]): string[] => {
  const names = raw.split(',').map((n) => n.trim());
  for (const name of names) {
    if (!API_NAME.test(name)) throw new InvalidArgumentError(`'${name}' is not an API name (see \`airlock apis list\`)`);
  }
  return [...previous, ...names];
};

const auditFilterOptions = (c: Command) =>
  c
    .option('--since <time>', 'records at or after this ISO time')
    .option('--until <time>', 'records at or before this ISO time')
    .option('--client <name>', 'tool calls of this MCP client (and their API calls)')
    .option('--tool <name>', 'tool calls of this tool (and their API calls)')
    .option('--outcome <outcome>', 'exact outcome: ok, denied, timeout, …')
    .option('--text <substring>', 'substring of the input, error, URL or operation')
    .option('--api <name>', "calls of this API (its runs' tool calls too), or of an MCP server as mcp:<server>");

export function buildProgram(): Command {
  const program = new Command('airlock')
    .description('Airlock: a local code-mode MCP server for any OpenAPI 3.x API, with a person in control.')
    .version(AIRLOCK_VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      outputError: (s, write) => write(`airlock: ${s.replace(/^error: /, '')}`),
    })
    .addHelpText(
      'after',
      "\nSecrets are never flags: API keys come from the OS keychain (`airlock keys set <profile>`), or each API's AIRLOCK_KEY_<API> (AIRLOCK_API_KEY: the API --profile or --spec names).\nEvery flag has an AIRLOCK_* environment twin (shown in each command's --help); the flag wins.",
    );

  const sub = subcommandOf(program);
  addCompanionCommands(program, sub);
  addApprovalCommands(program, sub);
  addApiCommands(program, sub);
  addServerCommands(program, sub);
  addKeyCommands(program, sub);
  addClientCommands(program, sub);
  addAuditCommands(program, sub);
  addSettingsCommands(program, sub);
  return program;
}

/** Makes a subcommand that reports errors as the program does. */
type Sub = (parent: Command, name: string, description: string) => Command;

function subcommandOf(program: Command): Sub {
  return (parent, name, description) =>
    parent.command(name).description(description).exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
}

/** Only where the data lives and how much is logged: an API's own fields are arguments of `apis add`. */
const apiOptions = (c: Command) => addSettingOptions(c, [], ['dataDir', 'logLevel']);

/** The companion itself: serve, stdio, doctor, print-egress-policy, open. */
function addCompanionCommands(program: Command, sub: Sub): void {
  addSettingOptions(sub(program, 'serve', 'run the companion headless: MCP over HTTP on 127.0.0.1:<port>/mcp, control API under /control'), [
    'common',
    'server',
    'sandbox',
    'safety',
  ]).action(async function (this: Command) {
    await serveCommand(cliContext(this));
  });

  addSettingOptions(
    sub(
      program,
      'stdio',
      'MCP over stdin/stdout, for clients that spawn their servers (Claude Desktop…): joins the running companion, or starts one in the background',
    ),
    ['common', 'sandbox', 'safety'],
    // The idle time of a companion this command starts in the background.
    ['exitWhenIdle'],
  )
    .option('--in-process', 'run a private companion in this process instead of joining the shared one')
    .option('--api <name>', 'this session reaches only this API (repeat for several); without it, every API the companion serves', collectApi, [])
    .action(async function (this: Command) {
      const inProcess = this.opts().inProcess === true;
      const apis = this.opts().api as string[];
      // The flags given here (profile, spec, caps…) start the background companion too; --api is the session's alone.
      const { withoutSessionFlags } = await import('./stdioJoin.ts');
      const serveArgs = withoutSessionFlags(process.argv.slice(process.argv.indexOf('stdio') + 1).filter((a) => a !== '--in-process'));
      await stdioCommand(cliContext(this), { inProcess, serveArgs, ...(apis.length > 0 ? { scope: apis } : {}) });
    });

  addSettingOptions(sub(program, 'doctor', 'show what Airlock would run with and check it: data dir, profile, spec, engines, keychain, server'), [
    'common',
    'server',
    'sandbox',
    'safety',
  ])
    .addOption(new Option('--json', 'machine-readable output'))
    .action(async function (this: Command) {
      process.exitCode = await doctorCommand(cliContext(this), { json: this.opts().json === true });
    });

  addSettingOptions(sub(program, 'print-egress-policy', 'print the network policy the sandbox runs under, with its sha256 fingerprint'), ['common', 'sandbox'])
    .addOption(
      new Option('--format <format>', 'srt (the sandbox-runtime settings) or json').argParser(choice('--format', ['srt', 'json'] as const)).default('json'),
    )
    .action(async function (this: Command) {
      await printNetworkPolicy(cliContext(this), this.opts().format);
    });

  addSettingOptions(sub(program, 'open', 'open the web UI of the running `airlock serve --ui` in your browser (a one-time login link)'), ['common'])
    .option('--print', 'print the link instead of opening a browser')
    .action(async function (this: Command) {
      process.exitCode = await (
        await openCommands()
      ).openCommand(await connectToRunningServer(cliContext(this).settings.dataDir), { print: this.opts().print === true });
    });
}

/** approvals list, approve, deny: the queue of a running companion. */
function addApprovalCommands(program: Command, sub: Sub): void {
  const approvals = sub(program, 'approvals', 'answer the approval queue of a running `airlock serve`');
  addSettingOptions(sub(approvals, 'list', 'pending approvals, oldest first'), ['common'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      await (await approvalsCommands()).approvalsList(await connectToRunningServer(cliContext(this).settings.dataDir), { json: this.opts().json === true });
    });
  addSettingOptions(sub(approvals, 'approve', "let a pending mutation through (or answer a server's question)").argument('<id>', 'the approval id (apr_…)'), [
    'common',
  ])
    .addOption(
      new Option(
        '--scope <scope>',
        'once: this call; run: the rest of this run; session: this operation, this client, this session; client-always: this operation, this client (by the name it declares), until revoked; everyone-session: this operation, every client, until Airlock stops; always: this operation, every client, until revoked',
      )
        .argParser(choice('--scope', ['once', 'run', 'session', 'client-always', 'everyone-session', 'always'] as const))
        .default('once'),
    )
    .option(
      '--answer <field=value>',
      "a server's question: the answer to one of its fields (repeat for each; a field left out takes the server's default)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, id: string) {
      await (
        await approvalsCommands()
      ).approvalsDecide(await connectToRunningServer(cliContext(this).settings.dataDir), id, 'approve', {
        scope: this.opts().scope,
        ...(this.opts().answer ? { answers: this.opts().answer as string[] } : {}),
        json: this.opts().json === true,
      });
    });
  addSettingOptions(sub(approvals, 'deny', "refuse a pending mutation (or decline a server's question)").argument('<id>', 'the approval id (apr_…)'), [
    'common',
  ])
    .option('--reason <text>', 'told to the code as the API error')
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, id: string) {
      await (
        await approvalsCommands()
      ).approvalsDecide(await connectToRunningServer(cliContext(this).settings.dataDir), id, 'deny', {
        reason: this.opts().reason,
        json: this.opts().json === true,
      });
    });
}

/** apis: the APIs served at once (list, add, show, remove, enable, disable). */
function addApiCommands(program: Command, sub: Sub): void {
  const apis = sub(program, 'apis', 'the APIs the companion serves at once: list them, enable or disable one (no restart)');
  apiOptions(sub(apis, 'list', 'every API: served (with its operation count), loading, failed (why) or disabled'))
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      await (await apisCommands()).apisList(cliContext(this), { json: this.opts().json === true });
    });
  addSettingOptions(
    sub(apis, 'show', 'one API: its state, document, base URL, auth scheme, alias and mutation policy').argument(
      '<name>',
      'the API (profile) name',
      profileArg,
    ),
    ['common'],
  )
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await apisCommands()).apisShow(cliContext(this), name, { json: this.opts().json === true });
    });
  apiOptions(
    sub(apis, 'add', 'add an API from its OpenAPI document (read and checked first, as the APIs screen does); served at once unless --disabled').argument(
      '<name>',
      'its name (lowercase letters, digits, - and _)',
      profileArg,
    ),
  )
    .requiredOption('--spec <file|url>', 'the OpenAPI 3.x document: a file path or an http(s) URL')
    .option('--base-url <url>', "where calls go, when the document's servers do not say")
    .option('--auth <scheme>', 'how the key is sent: bearer, basic, header:<Name>, query:<name>, cookie:<name> or none (default: what the document declares)')
    .option('--disabled', 'save it without serving it')
    .action(async function (this: Command, name: string) {
      const o = this.opts();
      process.exitCode = await (
        await apisCommands()
      ).apisAdd(cliContext(this), name, {
        spec: o.spec as string,
        ...(o.baseUrl ? { baseUrl: o.baseUrl as string } : {}),
        ...(o.auth ? { auth: o.auth as string } : {}),
        ...(o.disabled ? { disabled: true } : {}),
      });
    });
  apiOptions(
    sub(apis, 'remove', 'remove a saved API: no longer served, its profile deleted (its key stays in the keychain)').argument(
      '<name>',
      'the API name',
      profileArg,
    ),
  ).action(async function (this: Command, name: string) {
    process.exitCode = await (await apisCommands()).apisRemove(cliContext(this), name);
  });
  for (const [verb, enabled, what] of [
    ['enable', true, 'serve this API from now on (a running companion loads it at once); saved in its profile'],
    ['disable', false, 'stop serving this API: new calls to it are refused, runs going finish; saved in its profile'],
  ] as const) {
    apiOptions(sub(apis, verb, what).argument('<name>', 'the API (profile) name', profileArg)).action(async function (this: Command, name: string) {
      process.exitCode = await (await apisCommands()).apisEnable(cliContext(this), name, enabled);
    });
  }
}

/** servers: other MCP servers behind the gate. */
function addServerCommands(program: Command, sub: Sub): void {
  const servers = sub(program, 'servers', "other MCP servers behind Airlock's gate: scripts call their tools as mcp.<server>.<tool>(args)");
  const serverArg = (raw: string): string => {
    if (!SERVER_NAME.test(raw)) throw new InvalidArgumentError(`'${raw}' is not a server name (lowercase letters, digits, - and _; at most 30)`);
    return raw;
  };
  const collect = (raw: string, previous: string[]) => [...previous, raw];
  /** A servers subcommand that may reach the key store (a server's secrets). */
  const withSecrets = (name: string, description: string) => addSettingOptions(sub(servers, name, description), ['common'], ['secretStore']);
  apiOptions(sub(servers, 'list', 'every MCP server: enabled or not, how it is reached'))
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      await (await serversCommands()).serversList(cliContext(this), { json: this.opts().json === true });
    });
  withSecrets('add', 'add a stdio server (its command after --) or an HTTP one (--url)')
    .argument('<name>', 'its name (lowercase letters, digits, - and _)', serverArg)
    .argument('[command...]', 'after --: the command that starts it and its arguments')
    .option('--url <url>', 'a Streamable HTTP (or SSE) server instead of a command')
    .option('--env <VAR>', 'pass this variable of your environment to it (repeat); nothing else is passed', collect, [])
    .option('--secret <VAR>', 'give it this variable from the keychain (repeat; set it with airlock servers secret)', collect, [])
    .option('--header <NAME>', 'an HTTP server: send this header, its value from the keychain (repeat)', collect, [])
    .option('--timeout <seconds>', 'a call without an answer or progress for this long fails (default 60)', positiveInt)
    .option('--allow-private-network', 'an HTTP server on a private or loopback address')
    .option('--disabled', 'save it turned off')
    .option('--autostart', 'start it when the companion starts (default: on first use)')
    .option('--client-id <id>', 'a remote server for machines: sign in as this OAuth client (its secret: airlock servers secret NAME oauth-client)')
    .addOption(
      new Option('--client-auth <how>', 'with --client-id: client-secret or private-key-jwt').argParser(
        choice('--client-auth', ['client-secret', 'private-key-jwt'] as const),
      ),
    )
    .option('--client-alg <alg>', 'with --client-auth private-key-jwt: the signing algorithm (default RS256)')
    .option('--scope <scope>', 'with --client-id: the scope to ask for')
    .option('--idp-token-endpoint <url>', "with --client-id: sign in through your organisation's identity provider (cross-app access): its token endpoint")
    .option('--idp-client-id <id>', "with --idp-token-endpoint: Airlock's client at the identity provider")
    .option(
      '--client-metadata-url <url>',
      "a person's sign-in: where Airlock's client metadata document is published (HTTPS); used as its client_id where the server accepts one (print the document: airlock servers client-metadata URL)",
    )
    .action(async function (this: Command, name: string, command: string[]) {
      const o = this.opts();
      process.exitCode = await (
        await serversCommands()
      ).serversAdd(cliContext(this), name, {
        command,
        ...(o.url ? { url: o.url as string } : {}),
        env: o.env as string[],
        secret: o.secret as string[],
        header: o.header as string[],
        ...(o.timeout ? { timeout: o.timeout as number } : {}),
        ...(o.disabled ? { disabled: true } : {}),
        ...(o.autostart ? { autostart: true } : {}),
        ...(o.clientId ? { clientId: o.clientId as string } : {}),
        ...(o.clientAuth ? { clientAuth: o.clientAuth as 'client-secret' | 'private-key-jwt' } : {}),
        ...(o.clientAlg ? { clientAlg: o.clientAlg as string } : {}),
        ...(o.scope ? { scope: o.scope as string } : {}),
        ...(o.clientMetadataUrl ? { clientMetadataUrl: o.clientMetadataUrl as string } : {}),
        ...(o.idpTokenEndpoint ? { idpTokenEndpoint: o.idpTokenEndpoint as string } : {}),
        ...(o.idpClientId ? { idpClientId: o.idpClientId as string } : {}),
        ...(o.allowPrivateNetwork ? { allowPrivateNetwork: true } : {}),
      });
    });
  sub(servers, 'client-metadata', "print Airlock's OAuth client metadata document, to publish at URL for servers added with --client-metadata-url")
    .argument('<url>', 'the HTTPS URL it will be published at (it is its client_id)')
    .action(async function (this: Command, url: string) {
      process.exitCode = await (await serversCommands()).serversClientMetadata(url);
    });
  withSecrets('show', 'start a server and print its tools as Airlock sees them')
    .argument('<name>', 'the server name', serverArg)
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversShow(cliContext(this), name, { json: this.opts().json === true });
    });
  withSecrets('accept', "review a server's tools (or what changed in them) and accept them: until then nothing of it runs")
    .argument('<name>', 'the server name', serverArg)
    .option('--yes', 'accept without asking (read them first: airlock servers show NAME)')
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversAccept(cliContext(this), name, { yes: this.opts().yes === true });
    });
  apiOptions(sub(servers, 'policy', "what a call to a server's tools does: allow, ask or deny (default: back to the tool's own)"))
    .argument('<name>', 'the server name', serverArg)
    .argument('<policy>', 'allow, ask, deny or default', choice('policy', ['allow', 'ask', 'deny', 'default'] as const))
    .option('--tool <tool>', 'only this tool (without it: the default for every tool of the server)')
    .action(async function (this: Command, name: string, policy: 'allow' | 'ask' | 'deny' | 'default') {
      process.exitCode = await (await serversCommands()).serversPolicy(cliContext(this), name, policy, this.opts().tool as string | undefined);
    });
  withSecrets('import', 'the servers your MCP clients run themselves; move chosen ones behind Airlock (their inline values into the key store)')
    .argument('[client]', "the client whose servers to move (without it: list every client's)")
    .option('--server <name>', 'a server of that client to move (repeat)', collect, [])
    .option('--all', 'every server of that client')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--yes', 'move without asking (read the --dry-run first)')
    .action(async function (this: Command, client: string | undefined) {
      const o = this.opts();
      process.exitCode = await (
        await serversCommands()
      ).serversImport(cliContext(this), client, { server: o.server as string[], all: o.all === true, dryRun: o.dryRun === true, yes: o.yes === true });
    });
  withSecrets('login', 'sign in to a remote server behind OAuth, in your browser (its tokens go to the key store)')
    .argument('<name>', 'the server name', serverArg)
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversLogin(cliContext(this), name);
    });
  withSecrets('secret', "store a server's secret in the keychain, read from stdin or a hidden prompt")
    .argument('<name>', 'the server name', serverArg)
    .argument('<variable>', 'the variable (or header) it is given as')
    .action(async function (this: Command, name: string, variable: string) {
      process.exitCode = await (await serversCommands()).serversSecret(cliContext(this), name, variable);
    });
  for (const [verb, enabled, what] of [
    ['enable', true, 'turn a server on'],
    ['disable', false, 'turn a server off'],
  ] as const) {
    apiOptions(sub(servers, verb, what).argument('<name>', 'the server name', serverArg)).action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversEnable(cliContext(this), name, enabled);
    });
  }
  apiOptions(sub(servers, 'direct', "offer a server's accepted tools to clients directly as NAME__TOOL (on), or only in scripts (off)"))
    .argument('<name>', 'the server name', serverArg)
    .argument('<on|off>', 'on or off', choice('on|off', ['on', 'off'] as const))
    .action(async function (this: Command, name: string, onOff: 'on' | 'off') {
      process.exitCode = await (await serversCommands()).serversDirect(cliContext(this), name, onOff === 'on');
    });
  apiOptions(sub(servers, 'restart', 'start a server again in the running companion (after a crash loop stopped it)'))
    .argument('<name>', 'the server name', serverArg)
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversRestart(cliContext(this), name);
    });
  withSecrets('remove', 'remove a server and its secrets')
    .argument('<name>', 'the server name', serverArg)
    .action(async function (this: Command, name: string) {
      process.exitCode = await (await serversCommands()).serversRemove(cliContext(this), name);
    });
}

/** keys: API keys in the key store, never on the command line. */
function addKeyCommands(program: Command, sub: Sub): void {
  const keys = sub(program, 'keys', 'API keys in the OS keychain (never on the command line)');
  addSettingOptions(sub(keys, 'set', 'store the key for a profile, read from stdin or a hidden prompt').argument('<profile>', 'profile name', profileArg), [
    'common',
    'safety',
  ]).action(async function (this: Command, profile: string) {
    await (await keysCommands()).keysSet(cliContext(this), profile);
  });
  addSettingOptions(sub(keys, 'rm', 'remove the key of a profile').argument('<profile>', 'profile name', profileArg), ['common', 'safety']).action(
    async function (this: Command, profile: string) {
      process.exitCode = await (await keysCommands()).keysRemove(cliContext(this), profile);
    },
  );
  addSettingOptions(sub(keys, 'ls', 'profiles that have a key, with fingerprints (never the keys)'), ['common', 'safety'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      await (await keysCommands()).keysList(cliContext(this), { json: this.opts().json === true });
    });
}

/** clients: registering Airlock in the MCP clients on this machine. */
function addClientCommands(program: Command, sub: Sub): void {
  const clients = sub(program, 'clients', 'register Airlock in the MCP clients on this machine (Claude Desktop, Claude Code, Cursor, VS Code…)');
  const clientArg = 'claude-desktop, claude-code, cursor, vscode, vscode-insiders, windsurf, codex, gemini, zed, lmstudio or cline';
  addSettingOptions(sub(clients, 'list', 'each client: installed or not, its config file, registered, outdated or broken'), ['common'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      await (await clientsCommands()).clientsList(cliContext(this), { json: this.opts().json === true });
    });
  for (const [action, description] of [
    ['add', 'register Airlock (stdio, no secret in the file): shows the diff, backs the file up, then checks the command answers'],
    ['remove', 'take Airlock out of the client, every other entry kept'],
  ] as const) {
    const change = addSettingOptions(sub(clients, action, description).argument('<name>', clientArg), ['common'])
      .option('--dry-run', 'show the change, write nothing')
      .option('--json', 'machine-readable output')
      .option('--no-verify', 'skip the MCP handshake with the registered command (add)');
    if (action === 'add') change.option('--api <name>', 'the client reaches only this API (repeat for several); without it, every API served', collectApi, []);
    change.action(async function (this: Command, name: string) {
      const o = this.opts();
      process.exitCode = await (
        await clientsCommands()
      ).clientsChange(cliContext(this), action, name, { dryRun: o.dryRun === true, json: o.json === true, verify: o.verify !== false, apis: o.api });
    });
  }
  addSettingOptions(sub(clients, 'undo', "restore the client's file as it was before the last add or remove").argument('<name>', clientArg), ['common'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, name: string) {
      await (await clientsCommands()).clientsUndo(cliContext(this), name, { json: this.opts().json === true });
    });
  const token = sub(clients, 'token', "HTTP clients' own tokens: who calls is known from its token, and one can be revoked alone");
  addSettingOptions(sub(token, 'add', 'make a token for a client (shown once; only its hash is kept)').argument('<name>', 'a name for the client'), ['common'])
    .option('--api <name>', 'the token reaches only this API (repeat for several); without it, every API served', collectApi, [])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command, name: string) {
      const o = this.opts();
      (await clientTokenCommands()).clientTokenAdd(cliContext(this), name, { apis: o.api, json: o.json === true });
    });
  addSettingOptions(sub(token, 'list', "the clients' tokens: name, fingerprint, APIs (never the tokens)"), ['common'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      (await clientTokenCommands()).clientTokenList(cliContext(this), { json: this.opts().json === true });
    });
  addSettingOptions(sub(token, 'revoke', "revoke a client's token: its next request is refused").argument('<name>', 'the client named at add'), [
    'common',
  ]).action(async function (this: Command, name: string) {
    (await clientTokenCommands()).clientTokenRevoke(cliContext(this), name);
  });
}

/** audit: tail, export and verify the audit log. */
/** Every setting in effect and where it came from (the organisation's included); changing them as the Settings screen does. */
const settingsCommands = () => import('./commands/settings.ts');

function addSettingsCommands(program: Command, sub: Sub): void {
  const settings = sub(program, 'settings', 'the settings in effect, and changing them');
  addSettingOptions(
    sub(settings, 'list', 'every setting: its value in effect and where it came from (a flag, env, settings.json, your organisation)'),
    [],
    ['dataDir', 'logLevel'],
  )
    .option('--json', 'the settings as the control API gives them')
    .action(async function (this: Command) {
      await (await settingsCommands()).settingsList(cliContext(this), { json: this.opts().json === true });
    });
  addSettingOptions(
    sub(settings, 'set', 'change settings (key=value …): a live one applies at once to a running companion; the others at its next start'),
    [],
    ['dataDir', 'logLevel'],
  )
    .argument('<key=value...>', 'settings to change, by their settings.json names (airlock settings list shows them)')
    .action(async function (this: Command, pairs: string[]) {
      await (await settingsCommands()).settingsSet(cliContext(this), pairs);
    });
}

function addAuditCommands(program: Command, sub: Sub): void {
  const audit = sub(program, 'audit', 'the audit log: every tool call and API call, hash-chained');
  auditFilterOptions(addSettingOptions(sub(audit, 'tail', 'the latest records, oldest first'), ['common']))
    .option('-n, --lines <n>', 'how many records', positiveInt, 20)
    .option('-f, --follow', 'keep printing new records (needs a running server)')
    .option('--json', 'one JSON object per line')
    .action(async function (this: Command) {
      const o = this.opts();
      await (await auditCommands()).auditTail(cliContext(this), { ...o, lines: o.lines, json: o.json === true, follow: o.follow === true });
    });
  auditFilterOptions(addSettingOptions(sub(audit, 'export', 'write records as JSONL or CSV'), ['common']))
    .addOption(new Option('--format <format>', 'jsonl or csv').argParser(choice('--format', ['jsonl', 'csv'] as const)).default('jsonl'))
    .option('-o, --output <file>', 'write to a file (0600) instead of stdout')
    .action(async function (this: Command) {
      const o = this.opts();
      await (await auditCommands()).auditExport(cliContext(this), { ...o, format: o.format });
    });
  addSettingOptions(sub(audit, 'verify', 'check the hash chain: exit 1 if a record was edited, inserted or deleted'), ['common'])
    .option('--json', 'machine-readable output')
    .action(async function (this: Command) {
      process.exitCode = (await auditCommands()).auditVerify(cliContext(this), { json: this.opts().json === true });
    });
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    if (error instanceof AirlockError) {
      process.stderr.write(`airlock: ${error.line}\n`);
      process.exit(error.kind === 'usage' ? 2 : 1);
    }
    if (error instanceof ControlError) {
      process.stderr.write(`airlock: ${error.message}${error.hint ? ` (${error.hint})` : ''}\n`);
      process.exit(error.code === 'bad_input' || error.code === 'not_found' ? 2 : 1);
    }
    process.stderr.write(`airlock: unexpected error: ${errorMessage(error)}\n${(error as Error).stack ?? ''}\n`);
    process.exit(1);
  }
}

await main(process.argv);
