// `airlock stdio --in-process` answers the client's `initialize` as soon as
// it arrives, while the rest of the companion (the MCP SDK, the engines, the
// audit log) is still being loaded: clients time out servers that are slow
// to answer, and the answer needs none of that. Everything read meanwhile is
// kept and handed to the real transport (the `initialize` line included, so
// the server learns the client's capabilities as usual); the server's own
// answer to that `initialize` is then not sent again (stdioTransport.ts).
// Only a well-formed `initialize` as the first line is answered early; any
// other first line is left to the server. Only the first line is read
// early: the rest waits in the pipe. No SDK and no zod here.
import type { Readable, Writable } from 'node:stream';
import { SERVER_INFO, agreedProtocolVersion, serverCapabilities } from './serverIdentity.ts';

export interface EarlyInitializeOptions {
  stdin: Readable;
  stdout: Writable;
  /** The server's instructions, as the session's server will have them. */
  instructions: string;
  hasExecute: boolean;
}

export interface EarlyRead {
  /** What was read from stdin, in order, for the real transport to read first. */
  buffered: Buffer[];
  /** The id of the `initialize` answered early, if one was: the server's answer to it is not sent again. */
  answered?: string | number;
  /** stdin ended meanwhile: the client is gone once what it sent is read. */
  ended: boolean;
  /** stdin failed meanwhile. */
  error?: Error;
  /** Set by the transport once it has handed the answered `initialize` to the server. */
  handed?: boolean;
}

export interface EarlyInitialize {
  /** Stops reading (stdin is paused until the real transport reads it) and hands over what was read. */
  take(): EarlyRead;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The first line's `initialize` request, when it is one the SDK's server accepts as it is (no member a JSON-RPC
 * request does not have; capabilities and each of them objects; the client's name and version); undefined
 * otherwise, and the server answers it itself. Should the server refuse one answered here all the same, the
 * transport says so (stdioTransport.ts).
 */
export function initializeRequest(line: string): { id: string | number; protocolVersion: string } | undefined {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined;
  }
  return initializeMessage(m);
}

/** The same check on a message already parsed (an HTTP POST's body). */
export function initializeMessage(m: unknown): { id: string | number; protocolVersion: string } | undefined {
  if (!isObject(m) || Object.keys(m).some((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k))) return undefined;
  if (m.jsonrpc !== '2.0' || m.method !== 'initialize') return undefined;
  if (typeof m.id !== 'string' && (typeof m.id !== 'number' || !Number.isInteger(m.id))) return undefined;
  const p = m.params;
  if (!isObject(p) || typeof p.protocolVersion !== 'string') return undefined;
  if (!isObject(p.capabilities) || !Object.values(p.capabilities).every(isObject)) return undefined;
  if (!isObject(p.clientInfo) || typeof p.clientInfo.name !== 'string' || typeof p.clientInfo.version !== 'string') return undefined;
  return { id: m.id, protocolVersion: p.protocolVersion };
}

/** The answer a server gives to `initialize` (the SDK's server answers the same: test/unit/earlyInitialize.test.ts). */
export function initializeResult(protocolVersion: string, instructions: string, hasExecute: boolean): Record<string, unknown> {
  return {
    protocolVersion: agreedProtocolVersion(protocolVersion),
    capabilities: serverCapabilities(hasExecute),
    serverInfo: { ...SERVER_INFO },
    ...(instructions ? { instructions } : {}),
  };
}

/** Starts reading stdin; answers its first line at once when that is an `initialize`. */
export function answerInitializeEarly(options: EarlyInitializeOptions): EarlyInitialize {
  const { stdin, stdout } = options;
  const buffered: Buffer[] = [];
  let firstLine: Buffer[] | undefined = [];
  let answered: string | number | undefined;
  // Once the first line is read (or is too long to be an initialize), reading stops: the rest waits in the pipe
  // for the server's transport, which reads it with its limits.
  const settled = () => {
    firstLine = undefined;
    stdin.off('data', onData);
    stdin.pause();
  };
  const onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    buffered.push(data);
    if (!firstLine) return;
    const newline = data.indexOf(0x0a);
    if (newline < 0) {
      firstLine.push(data);
      // A first line this long is no initialize: the server reads (and refuses or answers) it.
      if (firstLine.reduce((n, b) => n + b.length, 0) > 64 * 1024) settled();
      return;
    }
    const line = Buffer.concat([...firstLine, data.subarray(0, newline)]).toString('utf8');
    settled();
    const request = initializeRequest(line);
    if (!request) return;
    answered = request.id;
    stdout.write(
      JSON.stringify({ jsonrpc: '2.0', id: request.id, result: initializeResult(request.protocolVersion, options.instructions, options.hasExecute) }) + '\n',
    );
  };
  let ended = false;
  let failed: Error | undefined;
  const onEnd = () => (ended = true);
  const onError = (error: Error) => (failed = error);
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  stdin.on('error', onError);
  return {
    take() {
      settled();
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      return { buffered, ended, ...(answered !== undefined ? { answered } : {}), ...(failed ? { error: failed } : {}) };
    },
  };
}
