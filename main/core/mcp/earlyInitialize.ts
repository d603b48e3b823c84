// `airlock stdio --in-process` answers the client's `initialize` as soon as
// it arrives, while the rest of the companion (the MCP SDK, the engines, the
// audit log) is still being loaded: clients time out servers that are slow
// to answer, and the answer needs none of that. Everything read meanwhile is
// kept and handed to the real transport (the `initialize` line included, so
// the server learns the client's capabilities as usual); the server's own
// answer to that `initialize` is then not sent again (stdioTransport.ts).
// Only a well-formed `initialize` as the first line is answered early; any
// other first line is left to the server. No SDK and no zod here.
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
}

export interface EarlyInitialize {
  /** Stops reading (stdin is paused until the real transport reads it) and hands over what was read. */
  take(): EarlyRead;
}

/** The first line's `initialize` request, when it is one a server would answer; undefined otherwise. */
export function initializeRequest(line: string): { id: string | number; protocolVersion: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!message || typeof message !== 'object') return undefined;
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (m.jsonrpc !== '2.0' || m.method !== 'initialize') return undefined;
  if (typeof m.id !== 'string' && (typeof m.id !== 'number' || !Number.isInteger(m.id))) return undefined;
  const p = m.params as { protocolVersion?: unknown; capabilities?: unknown; clientInfo?: { name?: unknown; version?: unknown } } | undefined;
  if (!p || typeof p.protocolVersion !== 'string' || !p.capabilities || typeof p.capabilities !== 'object') return undefined;
  if (!p.clientInfo || typeof p.clientInfo.name !== 'string' || typeof p.clientInfo.version !== 'string') return undefined;
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
  const onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    buffered.push(data);
    if (!firstLine) return;
    const newline = data.indexOf(0x0a);
    if (newline < 0) {
      firstLine.push(data);
      // A first line this long is no initialize: the server reads (and refuses or answers) it.
      if (firstLine.reduce((n, b) => n + b.length, 0) > 64 * 1024) firstLine = undefined;
      return;
    }
    const line = Buffer.concat([...firstLine, data.subarray(0, newline)]).toString('utf8');
    firstLine = undefined;
    const request = initializeRequest(line);
    if (!request) return;
    answered = request.id;
    stdout.write(
      JSON.stringify({ jsonrpc: '2.0', id: request.id, result: initializeResult(request.protocolVersion, options.instructions, options.hasExecute) }) + '\n',
    );
  };
  let ended = false;
  const onEnd = () => (ended = true);
  stdin.on('data', onData);
  stdin.once('end', onEnd);
  return {
    take() {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      firstLine = undefined;
      return { buffered, ended, ...(answered !== undefined ? { answered } : {}) };
    },
  };
}
