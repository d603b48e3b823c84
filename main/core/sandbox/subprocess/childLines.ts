// The child's stdout, read as the guest prelude writes it: JSON lines tagged
// with the run's nonce. The reader holds at most one bounded line and stops
// counting past a total cap, so a flood of output ends quickly; lines
// without the nonce (the guest's own writes) are never trusted.
import type { ConsoleLevel } from '../engine.ts';
import { LINE_CONSOLE, LINE_ERROR, LINE_HOLD, LINE_READY, LINE_RESULT } from './guestPrelude.ts';

export type GuestMessage =
  | { type: 'hold' }
  | { type: 'ready' }
  | { type: 'console'; level: ConsoleLevel; text: string }
  | { type: 'result'; payload: string }
  | { type: 'error'; payload: string };

const LEVELS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug']);

export function parseGuestLine(line: string, nonce: string): GuestMessage | undefined {
  if (!line.startsWith(nonce)) return undefined;
  const type = line[nonce.length];
  const payload = line.slice(nonce.length + 1);
  switch (type) {
    case LINE_HOLD:
      return { type: 'hold' };
    case LINE_READY:
      return { type: 'ready' };
    case LINE_CONSOLE: {
      let entry: unknown;
      try {
        entry = JSON.parse(payload);
      } catch {
        return undefined;
      }
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string' || !LEVELS.has(entry[0])) return undefined;
      return { type: 'console', level: entry[0] as ConsoleLevel, text: entry[1] };
    }
    case LINE_RESULT:
      return { type: 'result', payload };
    case LINE_ERROR:
      return { type: 'error', payload };
    default:
      return undefined;
  }
}

/**
 * A `data` listener that splits chunks into lines. Over `lineBytes` in one
 * line, or `totalBytes` in all, it calls `onOverflow`; `stopped()` ends
 * reading (the run has settled).
 */
export function lineReader(caps: { lineBytes: number; totalBytes: number }, onLine: (line: string) => void, onOverflow: () => void, stopped: () => boolean) {
  let total = 0;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  return (chunk: Buffer): void => {
    if (stopped()) return;
    total += chunk.length;
    if (total > caps.totalBytes) return onOverflow();
    let start = 0;
    while (!stopped()) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        if (start < chunk.length) {
          partial.push(chunk.subarray(start));
          partialBytes += chunk.length - start;
          if (partialBytes > caps.lineBytes) onOverflow();
        }
        return;
      }
      const piece = chunk.subarray(start, newline);
      const line = partial.length > 0 ? Buffer.concat([...partial, piece]) : piece;
      partial = [];
      partialBytes = 0;
      onLine(line.toString('utf8'));
      start = newline + 1;
    }
  };
}
