// Reads the key for `airlock keys set PROFILE`, so it never has to be an
// argument (argv is visible to every user on the machine).
// - On a terminal: a prompt with no echo at all (not even asterisks, which
//   would give away the length). Backspace and Ctrl-U edit, Enter finishes,
//   Ctrl-C aborts with an error saying nothing was saved, escape sequences
//   (arrow keys…) are ignored. The terminal is always restored.
// - Otherwise (a pipe or a file): all of standard input, minus one trailing
//   newline (\n or \r\n).
// An empty key is an error either way, and no error text contains the input.
import { StringDecoder } from 'node:string_decoder';
import { AirlockError } from '../util/errors.ts';

export interface ReadSecretOptions {
  input: NodeJS.ReadStream;
  /** Where the prompt goes (stderr, so stdout stays clean). */
  output: NodeJS.WriteStream;
  prompt: string;
}

/** Refuse to buffer more than this from a pipe; no API key comes close. */
export const MAX_STDIN_BYTES = 64 * 1024;

const emptyKey = (): AirlockError =>
  new AirlockError('usage', 'no key was given (the input was empty)', {
    hint: 'type or paste the key at the prompt, or pipe it in: airlock keys set PROFILE < keyfile',
  });

export async function readSecretFromStdin(options: ReadSecretOptions): Promise<string> {
  const secret = options.input.isTTY ? await readHidden(options) : await readAll(options.input);
  if (secret.length === 0) throw emptyKey();
  return secret;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    size += buf.length;
    if (size > MAX_STDIN_BYTES) throw new AirlockError('usage', `standard input is larger than ${MAX_STDIN_BYTES} bytes: that is not an API key`);
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

function readHidden({ input, output, prompt }: ReadSecretOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    let chars: string[] = [];
    let escape = false; // inside an escape sequence (ESC [ … final byte)
    const wasRaw = input.isRaw === true;
    const wasFlowing = input.readableFlowing === true;
    const decoder = new StringDecoder('utf8'); // a character may straddle two chunks

    const finish = (error: Error | undefined) => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onError);
      if (typeof input.setRawMode === 'function') input.setRawMode(wasRaw);
      if (!wasFlowing) input.pause(); // a flowing TTY would keep the process alive
      output.write('\n');
      const value = chars.join('');
      chars = [];
      if (error) reject(error);
      else resolve(value);
    };

    const onData = (chunk: string | Buffer) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const ch of text) {
        const code = ch.codePointAt(0)!;
        if (escape) {
          // CSI sequences end with a byte in @–~; a lone ESC + one char ends at once.
          if (ch !== '[' && ch !== 'O' && code >= 0x40 && code <= 0x7e) escape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n') return finish(undefined);
        if (ch === '\u0003') return finish(new AirlockError('usage', 'cancelled (Ctrl-C): no key was saved'));
        if (ch === '\u0004') {
          if (chars.length === 0) return finish(new AirlockError('usage', 'cancelled (Ctrl-D): no key was saved'));
          return finish(undefined);
        }
        if (ch === '\u007f' || ch === '\b') {
          chars.pop();
          continue;
        }
        if (ch === '\u0015') {
          chars = [];
          continue;
        }
        if (ch === '\u001b') {
          escape = true;
          continue;
        }
        if (code < 0x20) continue;
        chars.push(ch);
      }
    };
    const onEnd = () => finish(undefined);
    const onError = (error: Error) => finish(new AirlockError('usage', `cannot read the key from the terminal: ${error.message}`));

    output.write(prompt);
    if (typeof input.setRawMode === 'function') input.setRawMode(true);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    input.resume();
  });
}
