// The `airlock` command line: commander wiring only. Each command resolves
// its settings (flag > AIRLOCK_* env > settings.json > default) and calls
// into the core. Usage errors print one line and exit 2.
import { Command, CommanderError, Option } from 'commander';
import { AirlockError, errorMessage } from '../core/errors.ts';
import { AIRLOCK_VERSION } from '../core/runtime/version.ts';
import { addSettingOptions } from './options.ts';
import { cliContext } from './context.ts';
import { serveCommand } from './commands/serve.ts';
import { stdioCommand } from './commands/stdio.ts';
import { doctorCommand } from './commands/doctor.ts';

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
    .addHelpText('after', '\nSecrets are never flags: the API key comes from AIRLOCK_API_KEY.\nEvery flag has an AIRLOCK_* environment twin (shown in each command\'s --help); the flag wins.');

  const configure = (c: Command) => c.exitOverride().configureOutput(program.configureOutput());

  configure(addSettingOptions(program.command('serve').description('run the companion headless: MCP over HTTP on 127.0.0.1:<port>/mcp'), ['common', 'server'])).action(async function (this: Command) {
    await serveCommand(cliContext(this));
  });

  configure(addSettingOptions(program.command('stdio').description('MCP over stdin/stdout, for clients that spawn their servers (Claude Desktop…)'), ['common'])).action(async function (this: Command) {
    await stdioCommand(cliContext(this));
  });

  configure(addSettingOptions(program.command('doctor').description('show what Airlock would run with and check it: data dir, profile, spec, server'), ['common', 'server']))
    .addOption(new Option('--json', 'machine-readable output'))
    .action(async function (this: Command) {
      process.exitCode = await doctorCommand(cliContext(this), { json: this.opts().json === true });
    });

  return program;
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
    process.stderr.write(`airlock: unexpected error: ${errorMessage(error)}\n${(error as Error).stack ?? ''}\n`);
    process.exit(1);
  }
}

await main(process.argv);
