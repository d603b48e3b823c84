// MCP over stdin/stdout that never goes silent on bad input. The SDK's own
// stdio transport closes itself when a line is too long (and so the server
// stops answering); this one answers a line over the limit with a JSON-RPC
// error naming its size — without ever buffering it: its bytes are dropped
// as they stream in (jsonLines.ts) — logs it, and reads on. A line that is
// not JSON, or not JSON-RPC, gets its error too. stdout carries protocol only.
// Given what an early reader took in (earlyInitialize.ts), it reads that
// first and does not send again the answer to an `initialize` answered there.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineReader, jsonLineWriter } from './jsonLines.ts';
import type { EarlyRead } from './earlyInitialize.ts';

export { DEFAULT_MAX_LINE_BYTES } from './jsonLines.ts';

/** Answers waiting for the peer to read them before no more requests are read. */
export const MAX_UNREAD_BYTES = 16 * 1024 * 1024;

export interface StdioTransportOptions {
  maxLineBytes?: number;
  /** Answers waiting to be read before no more requests are read (default MAX_UNREAD_BYTES). */
  maxUnreadBytes?: number;
  /** Where refused lines are reported (never stdout). */
  log?: (message: string) => void;
  /** Read before stdin, and the `initialize` already answered (earlyInitialize.ts): the server's answer to it is not sent. */
  early?: EarlyRead;
}

/** Whether a message read is the client's `initialize` with this id. */
function isInitialize(raw: unknown, id: string | number): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { method?: unknown }).method === 'initialize' && (raw as { id?: unknown }).id === id;
}

export class LineLimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * A request answered here, before the server reads it: the line to write back, or undefined to hand it to the
   * server (a plain tools/list from the server's prepared reply: createMcpServer.ts preparedAnswer).
   */
  answerEarly?: (raw: unknown) => Buffer | undefined;
  /**
   * Requests answered here without the server (a plain 2026-07-28 tools/call: modernDirectCall.ts): `take` says
   * whether it took a message (it answers through `send`, or gives it back with `deliver`); `close` when the
   * connection closes.
   */
  direct?: { take(raw: unknown): boolean; close(): void };
  /** Sees each message the connection sends (a kept tools/list answer is taken from it: keptModernList.ts). */
  sent?: (message: JSONRPCMessage) => void;
  /** Sees each message read and each answer written (telemetry on: a span per request). */
  tracer?: { received(raw: unknown): void; sent(raw: unknown): void };

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly log: (message: string) => void;
  private readonly reader: JsonLineReader;
  private readonly writeLine: (value: unknown, line?: Buffer) => Promise<void>;
  private started = false;
  private early: EarlyRead | undefined;
  /** The id the early-answered initialize is handed to the server under, so its answer is known for what it is. */
  private static readonly EARLY_ID = 'airlock:early-initialize';

  constructor(stdin: Readable, stdout: Writable, options: StdioTransportOptions = {}) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.log = options.log ?? (() => undefined);
    this.writeLine = jsonLineWriter(stdout);
    this.maxUnread = options.maxUnreadBytes ?? MAX_UNREAD_BYTES;
    this.early = options.early;
    this.reader = new JsonLineReader(
      {
        value: (raw) => this.handleValue(raw),
        refused: (code, message, id) => {
          this.log(code === -32700 ? `stdin: ${message}` : message);
          void this.send({
            jsonrpc: '2.0',
            id: id ?? null,
            error: { code, message: code === -32700 ? 'parse error: the line is not JSON' : message },
          } as unknown as JSONRPCMessage);
        },
      },
      options.maxLineBytes,
    );
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineLimitedStdioTransport already started');
    this.started = true;
    const early = this.early;
    this.stdin.on('data', this.reader.push);
    this.stdin.on('error', this.onError);
    if (!early) return;
    // What was read before this transport existed comes first, in order; then the pipe, which waited.
    const buffered = early.buffered;
    early.buffered = [];
    for (const chunk of buffered) this.reader.push(chunk);
    this.stdin.resume();
    if (early.error) setImmediate(() => this.onerror?.(early.error!));
  }

  private readonly onError = (error: Error) => this.onerror?.(error);

  private handleValue(raw: unknown): void {
    this.tracer?.received(raw);
    const prepared = this.answerEarly?.(raw);
    if (prepared) {
      void this.writeLine(undefined, prepared);
      this.tracer?.sent({ id: (raw as { id?: unknown }).id });
      return;
    }
    // A request its client cancelled is owed no answer (none is sent): not answered when the companion goes either.
    const cancelled = (raw as { method?: unknown; params?: { requestId?: unknown } } | null)?.method === 'notifications/cancelled';
    if (cancelled) this.inFlight.delete((raw as { params?: { requestId?: string | number } }).params?.requestId as string | number);
    if (this.direct?.take(raw)) {
      // Answered through send (or answerInFlight, if the companion goes first), as the server's answers are.
      const request = raw as { id?: unknown; method?: unknown };
      if (request.method !== undefined && (typeof request.id === 'string' || typeof request.id === 'number')) this.inFlight.add(request.id);
      return;
    }
    this.deliver(raw);
  }

  /** Hands a message read to the server (one `direct` took and gave back comes here too). */
  deliver(raw: unknown): void {
    const early = this.early;
    if (early?.answered !== undefined && !early.handed && isInitialize(raw, early.answered)) {
      // The initialize answered early: the server reads it under an id of its own, and its answer stays here.
      early.handed = true;
      raw = { ...(raw as object), id: LineLimitedStdioTransport.EARLY_ID };
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const id = raw && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
      this.log('stdin: a line is JSON but not a JSON-RPC message');
      void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request: not a JSON-RPC 2.0 message' } } as unknown as JSONRPCMessage);
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message) this.inFlight.add(message.id);
    this.onmessage?.(message);
  }

  /** Requests read and not yet answered, by id; and those answered by answerInFlight (a later answer is not sent). */
  private readonly inFlight = new Set<string | number>();
  private readonly cutOff = new Set<string | number>();

  /**
   * Answers every request still waiting with a JSON-RPC error under its id (the companion is going): no call of
   * the peer waits for an answer that will never come. Resolves once the answers are written.
   */
  async answerInFlight(message: string, code = -32000): Promise<number> {
    const ids = [...this.inFlight];
    const sent = Promise.all(ids.map((id) => this.send({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage)));
    for (const id of ids) this.cutOff.add(id);
    await sent;
    return ids.length;
  }

  /**
   * Answers sent in the same tick (calls whose audit records shared a commit) leave in one write. A peer
   * that sends but does not read cannot make answers pile up: past MAX_UNREAD_BYTES waiting to be read,
   * no more requests are read until the output drains.
   */
  send(message: JSONRPCMessage): Promise<void> {
    this.tracer?.sent(message);
    this.sent?.(message);
    const answered = ('result' in message || 'error' in message) && 'id' in message ? message.id : undefined;
    if (answered !== undefined && answered !== null) {
      // Answered once: the server's late answer to a request answerInFlight answered is not sent.
      if (this.cutOff.has(answered)) return Promise.resolve();
      this.inFlight.delete(answered);
    }
    if ('id' in message && message.id === LineLimitedStdioTransport.EARLY_ID && this.early?.answered !== undefined) {
      const answered = this.early.answered;
      this.early = undefined;
      // The client has had this answer already (earlyInitialize.ts).
      if ('result' in message) return Promise.resolve();
      // The server refused what was answered early: the client is told, under its own id, and it is logged.
      this.log(`the initialize answered early was refused by the server: ${JSON.stringify(message).slice(0, 300)}`);
      message = { ...message, id: answered } as JSONRPCMessage;
    }
    const written = this.writeLine(message);
    if (!this.holding && this.stdout.writableLength > this.maxUnread) {
      this.holding = true;
      this.stdin.pause();
      this.stdout.once('drain', () => {
        this.holding = false;
        if (!this.closed) this.stdin.resume();
      });
    }
    return written;
  }

  private holding = false;
  private closed = false;
  private readonly maxUnread: number;

  async close(): Promise<void> {
    this.closed = true;
    this.direct?.close();
    this.stdin.off('data', this.reader.push);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.reader.reset();
    this.onclose?.();
  }
}
