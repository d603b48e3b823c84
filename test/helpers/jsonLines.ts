// What a test reads of a stream carrying newline-delimited JSON (an MCP
// stdio transport's output): each line parsed, in order, as it comes.
import type { Readable } from 'node:stream';

export function jsonLinesOf(stream: Readable): unknown[] {
  const out: unknown[] = [];
  let rest = '';
  stream.setEncoding('utf8').on('data', (d: string) => {
    rest += d;
    let i: number;
    while ((i = rest.indexOf('\n')) >= 0) {
      out.push(JSON.parse(rest.slice(0, i)));
      rest = rest.slice(i + 1);
    }
  });
  return out;
}
