// The lean path of `airlock stdio` (what client registrations run): with
// only --data-dir, --exit-when-idle and --log-level on the command line, the
// bin entry comes straight here — no command-line framework, settings table,
// MCP SDK or zod — so a client's server is up in a few tens of milliseconds.
// Anything else goes through the full CLI (same behaviour, slower start).
import { CLI_ENTRY } from '../core/util/installPaths.ts';
import { checkDataDir, defaultDataDir } from '../core/config/dataDir.ts';
import { AirlockError } from '../core/util/errors.ts';
import { connectOrStart } from '../core/mcp/companionLocator.ts';
import { runForwarder } from '../core/mcp/stdioForwarder.ts';
import { withScope } from '../core/mcp/sessionScope.ts';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const LEAN_FLAGS = new Set(['--data-dir', '--exit-when-idle', '--log-level', '--api']);

/** The flags as name → value, or undefined when the command line needs the full CLI. */
export function leanArgs(args: readonly string[]): Map<string, string> | undefined {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!LEAN_FLAGS.has(name)) return undefined;
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) return undefined;
    // --api may be given several times: the session reaches each API named.
    flags.set(name, name === '--api' && flags.has(name) ? `${flags.get(name)},${value}` : value);
  }
  const level = flags.get('--log-level');
  if (level !== undefined && !(LEVELS as readonly string[]).includes(level)) return undefined;
  const idle = flags.get('--exit-when-idle');
  if (idle !== undefined && !/^\d+$/.test(idle)) return undefined;
  return flags;
}

export async function stdioJoin(args: readonly string[], flags: Map<string, string>): Promise<void> {
  // stdout is protocol only.
  const toStderr = (...a: unknown[]) => process.stderr.write(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ') + '\n');
  console.log = console.info = console.debug = toStderr;
  const env = process.env;
  const level = flags.get('--log-level') ?? env.AIRLOCK_LOG_LEVEL ?? 'info';
  const rank = Math.max(0, (LEVELS as readonly string[]).indexOf(level));
  const log = (at: (typeof LEVELS)[number], message: string) => {
    if (LEVELS.indexOf(at) >= rank) process.stderr.write(`airlock ${at.padEnd(5)} [stdio] ${message}\n`);
  };
  const dataDir = flags.get('--data-dir') ?? env.AIRLOCK_DATA_DIR ?? defaultDataDir();
  try {
    checkDataDir(dataDir, flags.has('--data-dir') ? '--data-dir' : env.AIRLOCK_DATA_DIR ? 'AIRLOCK_DATA_DIR' : 'the default data dir');
  } catch (error) {
    process.stderr.write(`airlock: ${error instanceof AirlockError ? error.line : String(error)}\n`);
    process.exit(2);
  }
  const scope = flags.get('--api')?.split(',');
  const idleExit = Number(flags.get('--exit-when-idle') ?? env.AIRLOCK_EXIT_WHEN_IDLE ?? 0);
  let refused = false;
  await runForwarder({
    stdin: process.stdin,
    stdout: process.stdout,
    log: (m) => log('warn', m),
    connect: async () => {
      const address = await connectOrStart({
        dataDir,
        node: process.execPath,
        cli: CLI_ENTRY,
        idleExitSeconds: idleExit,
        serveArgs: withoutSessionFlags(args),
        log: (at, m) => log(at, m),
      });
      return { ...address, mcpUrl: withScope(address.mcpUrl, scope) };
    },
    refused: (why) => {
      refused = true;
      exitRefused(why);
    },
  });
  // Refused: exitRefused ends the process once the answer is written.
  if (!refused) process.exit(0);
}

/** The companion refused the session for good (an --api it does not serve): each reason on stderr, exit 2 once the answer is out. */
export function exitRefused(why: string): void {
  for (const line of why.split('\n')) process.stderr.write(`airlock: ${line}\n`);
  setImmediate(() => process.exit(2));
}

/** The flags of a session alone (--api): a companion started in the background for it does not take them. */
export function withoutSessionFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--api') i++;
    else if (!args[i]!.startsWith('--api=')) out.push(args[i]!);
  }
  return out;
}
