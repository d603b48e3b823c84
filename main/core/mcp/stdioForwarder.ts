// `airlock stdio` joining the running companion: MCP messages from the
// client on stdin go to the companion over one upgraded loopback connection
// carrying the same JSON lines (leanMcpPipe.ts; Streamable HTTP, leanMcpHttp.ts,
// when the companion is an older one without the pipe); its answers (and its
// own requests, such as elicitation) come back on stdout. The client's calls
// land in the companion's approval queue, audit and key store, and its
// Overview shows the client by the name it gave in `initialize`.
//
// - Lean: no MCP SDK, no zod (jsonLines.ts); a line over 4 MiB or one that
//   is not JSON gets its JSON-RPC error here, the rest is validated by the
//   companion.
// - The companion is found (or started) on the first message; the token is
//   read from the data dir, so a registration carries no secret.
// - If the companion goes away (stopped, restarted), the calls in flight get
//   a JSON-RPC error at once — never a hang — and the next message finds the
//   companion again, replays the client's `initialize` to open a new session,
//   and goes through.
// - A session the companion refuses for good (400: `--api` names an API it
//   does not serve) answers the request with the reason, and the command
//   says it and exits 2 (refused).
// - When the client goes away (stdin ends), the session is ended: in-flight
//   requests are dropped, which withdraws their pending approvals. When this
//   process dies without a word (SIGKILL), the OS closes the pipe and the
//   companion ends the session the same way, at once.
import type { Readable, Writable } from 'node:stream';
import { JsonLineReader, jsonLineWriter } from './jsonLines.ts';
import { createLeanMcpHttp, HttpStatusError, type LeanMcpHttp } from './leanMcpHttp.ts';
import { openLeanMcpPipe, PipeClosedError } from './leanMcpPipe.ts';
import type { CompanionAddress } from './companionLocator.ts';
import { isAlive } from '../config/serverInfo.ts';
import { messageOf } from '../../../contract/values.ts';

export interface ForwarderOptions {
  stdin: Readable;
  stdout: Writable;
  /** Finds the companion, starting one if needed. */
  connect(): Promise<CompanionAddress>;
  log(message: string): void;
  /**
   * The companion refused this session for good (400: an --api it does not serve, a bad scope): the request
   * that asked has its error; the command says why and exits. Without it, each request gets the error.
   */
  refused?(why: string): void;
}

type Id = string | number;
type Message = Record<string, unknown>;
const REPLAY = 'airlock-forwarder:reinitialize';

function idOf(message: Message): Id | undefined {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
const isRequest = (m: Message) => typeof m.method === 'string' && idOf(m) !== undefined;
const isResponse = (m: Message) => m.method === undefined && idOf(m) !== undefined;

export async function runForwarder(options: ForwarderOptions): Promise<void> {
  const write: (message: Message, line?: Buffer) => Promise<void> = jsonLineWriter(options.stdout);
  let http: LeanMcpHttp | undefined;
  let initialize: Message | undefined;
  let initialized = false;
  /**
   * Requests to the companion not answered yet: `sent` ones are failed at once if it goes away;
   * one still `sending` belongs to forward(), which retries it on a new session.
   */
  const inFlight = new Map<Id, 'sending' | 'sent'>();
  let replayed: (() => void) | undefined;
  let queue = Promise.resolve();

  const fail = (id: Id | null, why: string, code = -32000) =>
    void write({ jsonrpc: '2.0', id, error: { code, message: id === null ? why : `Airlock: ${why}` } });

  const drop = (why: string) => {
    const current = http;
    http = undefined;
    for (const [id, state] of inFlight) {
      if (state !== 'sent') continue;
      fail(id, why);
      inFlight.delete(id);
    }
    current?.close();
  };

  async function open(replay: boolean): Promise<LeanMcpHttp> {
    const address = await options.connect();
    const transport = await openLeanMcpPipe(address.mcpUrl, address.token).catch((error: unknown) => {
      // An older companion without the pipe: Streamable HTTP, as before.
      if (error instanceof HttpStatusError && error.status === 404) return createLeanMcpHttp(address.mcpUrl, address.token);
      throw error;
    });
    transport.onmessage = (message, line) => {
      if (idOf(message) === REPLAY && isResponse(message)) return replayed?.();
      if (isResponse(message)) inFlight.delete(idOf(message)!);
      void write(message, line);
    };
    let replayFailed: ((error: Error) => void) | undefined;
    transport.onerror = (error) => {
      // A pipe that closes while the initialize is replayed fails the replay at once (forward() tries again).
      if (error instanceof PipeClosedError) replayFailed?.(error);
      if (http !== transport) return;
      options.log(`companion connection: ${error.message}`);
      // A broken HTTP stream with the companion still alive is not fatal; a closed pipe, or a companion that is gone, fails what it held.
      if (error instanceof PipeClosedError || !isAlive(address.pid))
        drop(`the companion ${isAlive(address.pid) ? 'ended the session' : 'stopped'} (${error.message}); retry the call`);
    };
    if (replay && initialize) {
      // A new session for the same client: the companion sees its initialize again; the client never sees this answer.
      let timer: NodeJS.Timeout | undefined;
      const answered = new Promise<void>((resolve, reject) => {
        replayed = resolve;
        replayFailed = reject;
        timer = setTimeout(() => reject(new Error('no answer to initialize')), 15_000);
      });
      // It may fail while the send below is still under way: never an unhandled rejection.
      answered.catch(() => undefined);
      try {
        await transport.send({ ...initialize, id: REPLAY });
        await answered;
      } catch (error) {
        transport.close();
        throw error;
      } finally {
        clearTimeout(timer);
        replayFailed = undefined;
      }
      if (initialized) await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    return transport;
  }

  async function forward(message: Message, line: Buffer): Promise<void> {
    const method = typeof message.method === 'string' ? message.method : undefined;
    if (method === 'initialize') initialize = message;
    if (method === 'notifications/initialized') initialized = true;
    const id = isRequest(message) ? idOf(message) : undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        http ??= await open(attempt > 0 || method !== 'initialize');
        if (id !== undefined) inFlight.set(id, 'sending');
        await http.send(message, line);
        if (id !== undefined && inFlight.has(id)) inFlight.set(id, 'sent');
        return;
      } catch (error) {
        if (id !== undefined) inFlight.delete(id);
        if (error instanceof HttpStatusError && error.status === 400) {
          const why = error.reason ?? error.message;
          if (id !== undefined) await write({ jsonrpc: '2.0', id, error: { code: -32602, message: `Airlock: ${why}` } });
          options.refused?.(why);
          return;
        }
        options.log(`forwarding ${method ?? 'a response'} failed: ${messageOf(error)}${attempt === 0 ? '; finding the companion again' : ''}`);
        drop('the companion went away; retry the call');
        if (attempt === 1 && id !== undefined) fail(id, `cannot reach the Airlock companion (${messageOf(error)})`);
      }
    }
  }

  const reader = new JsonLineReader({
    value: (raw, line) => {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail(null, 'invalid request: not a JSON-RPC 2.0 message', -32600);
      // One message at a time, in order: the companion sees them as the client sent them.
      queue = queue.then(() => forward(raw as Message, line));
    },
    refused: (code, message, id) => {
      options.log(`stdin: ${message}`);
      fail(id ?? null, code === -32700 ? 'parse error: the line is not JSON' : message, code);
    },
  });
  const ended = new Promise<void>((resolve) => {
    options.stdin.once('end', resolve);
    options.stdin.once('close', resolve);
  });
  options.stdin.on('data', reader.push);
  await ended;
  await queue.catch(() => undefined);
  const last = http;
  http = undefined;
  if (last) {
    await last.terminate();
    last.close();
  }
}
