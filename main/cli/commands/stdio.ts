// `airlock stdio`: MCP over stdin/stdout for clients that spawn their
// servers (Claude Desktop, Cursor…). By default it joins the companion for
// its data dir — the desktop app or `airlock serve` — starting a headless one
// in the background when none runs (it exits after --exit-when-idle seconds
// without clients, 300 by default here), so every client shares one approval
// queue, audit log and key store. `--in-process` runs a private companion in
// this process instead: there, with no approval window, mutations under
// "ask" are put to the person through the client's elicitation when it
// supports it, and denied with instructions otherwise.
// stdout carries protocol only: anything that tries console.log goes to stderr.
import { CLI_ENTRY } from '../../core/util/installPaths.ts';
import type { CliContext } from '../context.ts';
import { onShutdown, shutdown } from '../shutdown.ts';
import { givenCompanionSettings, joinedVerdict, type GivenSetting, type JoinedVerdict } from '../joinedSettings.ts';
import { unservedScope } from '../../core/mcp/sessionScope.ts';
import { messageOf } from '../../../contract/values.ts';
import { MessageTracer } from '../../core/mcp/requestTracing.ts';

/** Keeps stdout for the protocol: console.log/info/debug go to stderr. */
export function protectStdout(): void {
  const toStderr = (...args: unknown[]) => process.stderr.write(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export async function stdioCommand(ctx: CliContext, options: { inProcess?: boolean; serveArgs?: string[]; scope?: string[] } = {}): Promise<void> {
  protectStdout();
  if (options.inProcess) return inProcess(ctx, options.scope);
  const { withScope } = await import('../../core/mcp/sessionScope.ts');
  const { connectOrStart } = await import('../../core/mcp/companionLocator.ts');
  const { runForwarder } = await import('../../core/mcp/stdioForwarder.ts');
  const dataDir = ctx.settings.dataDir;
  const log = ctx.logger.child('stdio');
  // Settings given here that only the shared companion can honour: checked against it before anything is forwarded,
  // and again once it answers (one started now in the background may be the desktop app, which takes no flags).
  const given = givenCompanionSettings(ctx);
  let checked = given.length === 0;
  let refused = false;
  // --api, and --profile of an API the companion serves: what this session reaches.
  let scope = options.scope;
  const refuseUnhonoured = async () => {
    const verdict = await checkJoined(dataDir, given);
    checked = verdict !== undefined;
    if (verdict?.scope) scope = [...new Set([...(scope ?? []), ...verdict.scope])];
    if (!verdict?.refused.length) return;
    for (const line of verdict.refused) process.stderr.write(`airlock: ${line}\n`);
    await shutdown(2);
  };
  if (!checked) await refuseUnhonoured();
  await runForwarder({
    stdin: process.stdin,
    stdout: process.stdout,
    log: (m) => log.warn(m),
    connect: async () => {
      const address = await connectOrStart({
        dataDir,
        node: process.execPath,
        cli: CLI_ENTRY,
        idleExitSeconds: ctx.settings.exitWhenIdle,
        ...(options.serveArgs ? { serveArgs: options.serveArgs } : {}),
        log: (at, m) => log[at](m),
      });
      if (!checked) await refuseUnhonoured();
      return { ...address, mcpUrl: withScope(address.mcpUrl, scope) };
    },
    // The companion refused the session (--api names an API it does not serve): said, exit 2.
    refused: (why) => {
      refused = true;
      for (const line of why.split('\n')) process.stderr.write(`airlock: ${line}\n`);
      void shutdown(2);
    },
  });
  // Refused: the shutdown under way ends the process with 2 once the answer is out.
  if (!refused) await shutdown(0);
}

/**
 * The lines refusing each given setting the running companion does not use, and the scope --profile asks for;
 * undefined when no companion runs yet (one started in the background with these flags honours them). A
 * companion that cannot be asked is a refusal too: nothing is ignored in silence.
 */
async function checkJoined(dataDir: string, given: GivenSetting[]): Promise<JoinedVerdict | undefined> {
  const { serverInfoWhenStarted, connectToRunningServer } = await import('../runningServer.ts');
  // One that is starting is waited for: it is the one this client joins.
  const info = await serverInfoWhenStarted(dataDir);
  if (!info) return undefined;
  try {
    const control = await connectToRunningServer(dataDir);
    const [status, settings] = await Promise.all([control.call('status', {}), control.call('settings.get', {})]);
    return joinedVerdict(given, { pid: status.pid, apis: status.apis.map((a) => a.name), values: settings.values });
  } catch (error) {
    const names = given.map((g) => g.key).join(', ');
    return {
      refused: [
        `could not ask the running companion (pid ${info.pid}) whether it uses the settings given here (${names}): ${messageOf(error)}. Remove them, or run this client with --in-process.`,
      ],
    };
  }
}

/**
 * Answers the client's initialize while the companion is built (mcp/earlyInitialize.ts), naming the enabled APIs
 * in the session's scope as the server's instructions will. Not when the command names its API (--profile,
 * --spec): that API is loaded before anything is answered, as always.
 */
async function answerEarly(ctx: CliContext, scope: string[] | undefined) {
  if (ctx.settings.profile !== undefined || ctx.settings.spec !== undefined) return undefined;
  const [{ answerInitializeEarly }, { earlyInstructions }] = await Promise.all([
    import('../../core/mcp/earlyInitialize.ts'),
    import('../../core/mcp/earlyInstructions.ts'),
  ]);
  const early = answerInitializeEarly({
    stdin: process.stdin,
    stdout: process.stdout,
    instructions: earlyInstructions(ctx.settings.dataDir, scope),
    hasExecute: true,
  });
  // One turn of the event loop, so what the client has sent already is read and answered now: loading the rest
  // gives the loop no turn until it is done.
  await new Promise((resolve) => setImmediate(resolve));
  return early;
}

async function inProcess(ctx: CliContext, scope: string[] | undefined): Promise<void> {
  const early = await answerEarly(ctx, scope);
  const { LineLimitedStdioTransport } = await import('../../core/mcp/stdioTransport.ts');
  const { serveStdioRevisions } = await import('../../core/mcp/stdioRevisions.ts');
  const { GOING_AWAY, GOING_AWAY_CODE } = await import('../../core/mcp/goingAway.ts');
  const { createCompanion } = await import('../../core/runtime/companion.ts');
  const { logger } = ctx;
  const companion = await createCompanion({ resolved: ctx, logger, logBuffer: ctx.logBuffer, mode: 'stdio', redaction: ctx.redaction });
  const unserved = unservedScope(scope, companion.services.apis.list(), 'this companion');
  if (unserved.length > 0) {
    for (const line of unserved) process.stderr.write(`airlock: ${line}\n`);
    await companion.close();
    return shutdown(2);
  }
  const read = early?.take();
  const mcpLog = logger.child('mcp');
  const transport = new LineLimitedStdioTransport(process.stdin, process.stdout, { log: (m) => mcpLog.warn(m), ...(read ? { early: read } : {}) });
  const telemetry = companion.services.telemetry;
  if (telemetry?.enabled) transport.tracer = new MessageTracer(telemetry, () => ({ key: `stdio:${process.pid}`, transport: 'stdio' }));
  // The revision the client opens with: 2025 (initialize) or 2026-07-28 (server/discover, or the request envelope).
  const connection = serveStdioRevisions(transport, {
    legacy: () => {
      mcpLog.debug('stdio opened with initialize: MCP 2025');
      return companion.createMcpServer('stdio', scope ? { scope } : {});
    },
    modern: () => {
      mcpLog.debug('stdio opened with server/discover: MCP 2026-07-28');
      return companion.createModernServer({ key: `stdio:${process.pid}`, scope }, 'stdio');
    },
    onerror: (error) => mcpLog.debug(`stdio: ${error.message}`),
  });
  onShutdown(async () => {
    // A call still in flight is answered under its id before the process goes.
    await transport.answerInFlight(GOING_AWAY, GOING_AWAY_CODE);
    await connection.close();
    await companion.close();
  });
  process.stdin.on('end', () => void shutdown(0));
  if (read?.ended) void shutdown(0);
  const served = companion.services.apis.inScope(scope);
  logger.info(
    `Airlock ${companion.services.info.version} on stdio: ${served.map((a) => `${a.name} (${a.opened ? `${a.opened.api.catalogue.operations.length} operations` : a.state})`).join(', ') || 'no API'}`,
  );
}
