// MCP over stdin/stdout that never goes silent on bad input. The SDK's own
// stdio transport closes itself when a line is too long (and so the server
// stops answering); this one answers a line over the limit with a JSON-RPC
// error naming its size — without ever buffering it: its bytes are dropped
// as they stream in — logs it, and reads on. A line that is not JSON, or not
// JSON-RPC, gets its error too. stdout carries protocol only.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface StdioTransportOptions {
  maxLineBytes?: number;
  /** Where refused lines are reported (never stdout). */
  log?: (message: string) => void;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

export class LineLimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly max: number;
  private readonly log: (message: string) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the current over-long line dropped so far (undefined while not dropping). */
  private dropping: number | undefined;
  private started = false;

  constructor(stdin: Readable, stdout: Writable, options: StdioTransportOptions = {}) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.log = options.log ?? (() => undefined);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineLimitedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  private readonly onError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      if (this.dropping !== undefined) {
        if (newline < 0) {
          this.dropping += data.length;
          return;
        }
        this.refuseLong(this.dropping + newline);
        this.dropping = undefined;
        data = data.subarray(newline + 1);
        continue;
      }
      if (newline < 0) {
        if (this.pendingBytes + data.length > this.max) {
          // Over the limit before its end: stop keeping it.
          this.dropping = this.pendingBytes + data.length;
          this.pending = [];
          this.pendingBytes = 0;
        } else {
          this.pending.push(data);
          this.pendingBytes += data.length;
        }
        return;
      }
      const lineBytes = this.pendingBytes + newline;
      if (lineBytes > this.max) {
        this.pending = [];
        this.pendingBytes = 0;
        this.refuseLong(lineBytes);
      } else {
        const line = Buffer.concat([...this.pending, data.subarray(0, newline)]).toString('utf8');
        this.pending = [];
        this.pendingBytes = 0;
        this.handleLine(line.replace(/\r$/, ''));
      }
      data = data.subarray(newline + 1);
    }
  };

  private refuseLong(bytes: number): void {
    const message = `request line of ${formatBytes(bytes)} is over the ${formatBytes(this.max)} limit; it was dropped`;
    this.log(message);
    void this.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message } } as unknown as JSONRPCMessage);
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.log(`stdin: a line of ${formatBytes(Buffer.byteLength(line))} is not JSON`);
      void this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: the line is not JSON' } } as unknown as JSONRPCMessage);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const id = raw && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
      this.log('stdin: a line is JSON but not a JSON-RPC message');
      void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request: not a JSON-RPC 2.0 message' } } as unknown as JSONRPCMessage);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.onclose?.();
  }
}
