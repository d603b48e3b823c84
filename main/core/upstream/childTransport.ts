// The MCP client side of a stdio server's pipes: one JSON-RPC message per
// line, each line bounded (10 MB by default) in both directions. A line over
// the bound from the server is drained as it streams in — never buffered —
// and reported, and the connection reads on; a line that is not JSON-RPC is
// reported too. A message to the server over the bound is never written (a
// server sent more than it reads may die, failing every call in flight). What
// the server writes is never trusted to be well-formed.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineReader, jsonLineWriter } from '../mcp/jsonLines.ts';

export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface ChildTransportOptions {
  /** The server's stdout (what it says) and stdin (what it is told). */
  from: Readable;
  to: Writable;
  maxMessageBytes?: number;
  /** A message refused (over the bound, not JSON, not JSON-RPC): said here, never thrown. */
  onRefused?(why: string): void;
}

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly options: ChildTransportOptions;
  private readonly reader: JsonLineReader;
  private readonly write: (value: unknown, line?: Buffer) => Promise<void>;
  private closed = false;

  constructor(options: ChildTransportOptions) {
    this.options = options;
    this.write = jsonLineWriter(options.to);
    this.reader = new JsonLineReader(
      {
        value: (raw) => {
          const parsed = JSONRPCMessageSchema.safeParse(raw);
          if (parsed.success) this.onmessage?.(parsed.data);
          else this.options.onRefused?.('a line is JSON but not a JSON-RPC message');
        },
        refused: (_code, message) => this.options.onRefused?.(message.replace(/^request line/, 'a line')),
      },
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    );
  }

  async start(): Promise<void> {
    this.options.from.on('data', this.reader.push);
    this.options.from.once('close', this.ended);
    this.options.to.on('error', this.failed);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the server has gone');
    const line = Buffer.from(JSON.stringify(message));
    const max = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (line.length > max) throw new Error(`a message of ${line.length} bytes is over the ${max}-byte cap on messages to the server`);
    await this.write(message, line);
  }

  async close(): Promise<void> {
    this.ended();
  }

  private readonly failed = (error: Error) => this.onerror?.(error);

  private readonly ended = () => {
    if (this.closed) return;
    this.closed = true;
    this.options.from.off('data', this.reader.push);
    this.options.to.off('error', this.failed);
    this.reader.reset();
    this.onclose?.();
  };
}
