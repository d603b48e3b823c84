// Newline-delimited JSON from a stream, bounded: a line over the limit is
// never buffered (its bytes are dropped as they stream in) and is reported
// with its size — and with its JSON-RPC id when one can be read off its
// first or last kilobyte, which are all that is kept of it, so its answer
// reaches the call that is waiting; a line that is not JSON is reported too;
// the next line is read as usual. No MCP dependency: the stdio server
// transport adds JSON-RPC validation on top, the stdio forwarder passes
// values through.

export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

export interface JsonLineHandlers {
  /** One JSON value, with the bytes of its line (without the newline) for whoever passes it on unchanged. */
  value(raw: unknown, line: Buffer): void;
  /** A line refused: over the limit (`code` -32600) or not JSON (-32700); `message` says why; `id` the request's, when it is known. */
  refused(code: number, message: string, id?: string | number): void;
}

/** What is kept of a line over the limit, at each end, to read its id from. */
const KEPT_END = 1024;
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The id among the first members of the message (after `jsonrpc` and `method`, if they come first). */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)*"id"\s*:\s*` + ID_VALUE);
/** The id as the message's last member (a top-level one: nothing nested closes after it). */
const ID_AT_END = new RegExp(String.raw`,\s*"id"\s*:\s*` + ID_VALUE + String.raw`\s*\}\s*$`);

/** A JSON-RPC request's id read off the ends of its line, if it is there. */
export function idAtEnds(head: string, tail: string): string | number | undefined {
  const found = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail);
  if (!found) return undefined;
  try {
    const id = JSON.parse(found[1]!) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}

export class JsonLineReader {
  private readonly max: number;
  private readonly on: JsonLineHandlers;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the current over-long line dropped so far (undefined while not dropping). */
  private dropping: number | undefined;
  /** The first and the last KEPT_END bytes of the line being dropped. */
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  /** Reads what a caller needs of a line without parsing it all (undefined: parse it). */
  private readonly peek: ((line: Buffer) => unknown) | undefined;

  constructor(on: JsonLineHandlers, max = DEFAULT_MAX_LINE_BYTES, peek?: (line: Buffer) => unknown) {
    this.on = on;
    this.max = max;
    this.peek = peek;
  }

  readonly push = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      if (this.dropping !== undefined) {
        if (newline < 0) {
          this.dropping += data.length;
          this.keepTail(data);
          return;
        }
        this.keepTail(data.subarray(0, newline));
        this.refuseLong(this.dropping + newline);
        this.dropping = undefined;
        data = data.subarray(newline + 1);
        continue;
      }
      if (newline < 0) {
        if (this.pendingBytes + data.length > this.max) {
          // Over the limit before its end: stop keeping it (but its ends).
          this.dropping = this.pendingBytes + data.length;
          const all = [...this.pending, data];
          this.head = Buffer.concat(all).subarray(0, KEPT_END);
          this.tail = Buffer.alloc(0);
          for (const part of all) this.keepTail(part);
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
        const all = [...this.pending, data.subarray(0, newline)];
        this.head = Buffer.concat(all).subarray(0, KEPT_END);
        this.tail = Buffer.alloc(0);
        for (const part of all) this.keepTail(part);
        this.pending = [];
        this.pendingBytes = 0;
        this.refuseLong(lineBytes);
      } else {
        const bytes = this.pending.length === 0 ? data.subarray(0, newline) : Buffer.concat([...this.pending, data.subarray(0, newline)]);
        this.pending = [];
        this.pendingBytes = 0;
        this.handleLine(bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes);
      }
      data = data.subarray(newline + 1);
    }
  };

  reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.dropping = undefined;
    this.head = this.tail = Buffer.alloc(0);
  }

  private keepTail(part: Buffer): void {
    this.tail = part.length >= KEPT_END ? Buffer.from(part.subarray(part.length - KEPT_END)) : Buffer.concat([this.tail, part]).subarray(-KEPT_END);
  }

  private refuseLong(bytes: number): void {
    const id = idAtEnds(this.head.toString('utf8'), this.tail.toString('utf8'));
    this.head = this.tail = Buffer.alloc(0);
    this.on.refused(-32600, `request line of ${formatBytes(bytes)} is over the ${formatBytes(this.max)} limit; it was dropped`, id);
  }

  private handleLine(bytes: Buffer): void {
    const quick = this.peek?.(bytes);
    if (quick !== undefined) return this.on.value(quick, bytes);
    const line = bytes.toString('utf8');
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.on.refused(-32700, `a line of ${formatBytes(bytes.length)} is not JSON`);
      return;
    }
    this.on.value(raw, bytes);
  }
}

const NEWLINE = Buffer.from('\n');

/**
 * Writes one JSON value per line (or, given its line's bytes, those bytes).
 * Lines written in the same tick (answers that settled together, a burst of
 * requests read from one chunk) leave in one write: the stream is corked
 * until the tick ends. Resolves once the stream has taken the line, or — when
 * it pushed back — once it drains, closes or fails (never waits forever on a
 * stream that is gone: the caller sees that through the stream itself).
 */
export function jsonLineWriter(stream: import('node:stream').Writable): (value: unknown, line?: Buffer) => Promise<void> {
  let corked = false;
  let blocked: Promise<void> | undefined;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  const unblocked = () =>
    (blocked ??= new Promise<void>((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        stream.off('error', done);
        blocked = undefined;
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
      stream.on('error', done);
    }));
  return (value, line) => {
    if (stream.destroyed) return Promise.resolve();
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    // A line passed on unchanged is written as it came, without encoding it again.
    const taken = line ? (stream.write(line), stream.write(NEWLINE)) : stream.write(JSON.stringify(value) + '\n');
    return taken ? Promise.resolve() : unblocked();
  };
}
