// readSecretFromStdin: a pipe is read whole minus one trailing newline; a
// terminal gets a prompt with no echo, backspace and Ctrl-U editing, Ctrl-C
// aborting, and is always put back out of raw mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { readSecretFromStdin, MAX_STDIN_BYTES } from '../../main/core/secrets/readSecret.ts';
import { AirlockError } from '../../main/core/util/errors.ts';

const CANARY = 'sk-canary-91aa02bb';

function sink() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return { output: out as unknown as NodeJS.WriteStream, text: () => text };
}

function pipe(...chunks: (string | Buffer)[]) {
  const input = new PassThrough();
  for (const c of chunks) input.write(c);
  input.end();
  return input as unknown as NodeJS.ReadStream;
}

/** A PassThrough that looks like a terminal and records raw-mode switches. */
function fakeTty() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; isRaw: boolean; setRawMode: (on: boolean) => unknown };
  const rawCalls: boolean[] = [];
  stream.isTTY = true;
  stream.isRaw = false;
  stream.setRawMode = (on: boolean) => {
    rawCalls.push(on);
    stream.isRaw = on;
    return stream;
  };
  return { input: stream as unknown as NodeJS.ReadStream, write: (s: string | Buffer) => stream.write(s), end: () => stream.end(), rawCalls, stream };
}

const prompt = 'API key for alpha: ';

test('pipe: the whole input minus one trailing newline', async () => {
  const cases: [string[], string][] = [
    [[`${CANARY}\n`], CANARY],
    [[`${CANARY}\r\n`], CANARY],
    [[CANARY], CANARY],
    [[`${CANARY}\n\n`], `${CANARY}\n`],
    [['sk-', 'split-', 'chunks\n'], 'sk-split-chunks'],
    [['  spaced key  \n'], '  spaced key  '],
  ];
  for (const [chunks, expected] of cases) {
    const { output, text } = sink();
    assert.equal(await readSecretFromStdin({ input: pipe(...chunks), output, prompt }), expected);
    assert.equal(text(), '', 'no prompt on a pipe');
  }
});

test('pipe: a UTF-8 character split across chunks survives', async () => {
  const bytes = Buffer.from('clé\n', 'utf8');
  const { output } = sink();
  assert.equal(await readSecretFromStdin({ input: pipe(bytes.subarray(0, 3), bytes.subarray(3)), output, prompt }), 'clé');
});

test('pipe: empty input is an error', async () => {
  for (const chunks of [[], [''], ['\n'], ['\r\n']]) {
    const { output } = sink();
    await assert.rejects(
      readSecretFromStdin({ input: pipe(...chunks), output, prompt }),
      (e: unknown) => e instanceof AirlockError && e.kind === 'usage' && /no key was given/.test(e.message),
    );
  }
});

test('pipe: oversized input is refused', async () => {
  const { output } = sink();
  await assert.rejects(readSecretFromStdin({ input: pipe('x'.repeat(MAX_STDIN_BYTES + 1)), output, prompt }), /larger than/);
});

test('terminal: prompt, no echo, Enter finishes, raw mode on then off', async () => {
  const tty = fakeTty();
  const { output, text } = sink();
  const result = readSecretFromStdin({ input: tty.input, output, prompt });
  tty.write(CANARY.slice(0, 6));
  tty.write(CANARY.slice(6));
  tty.write('\r');
  assert.equal(await result, CANARY);
  assert.equal(text(), prompt + '\n');
  assert.ok(!text().includes(CANARY.slice(0, 4)));
  assert.deepEqual(tty.rawCalls, [true, false]);
  assert.equal(tty.stream.isPaused(), true, 'the terminal is not left flowing');
});

test('terminal: backspace, Ctrl-U and escape sequences edit; control characters are dropped', async () => {
  const tty = fakeTty();
  const { output, text } = sink();
  const result = readSecretFromStdin({ input: tty.input, output, prompt });
  tty.write('wrong');
  tty.write('\u0015'); // Ctrl-U: start over
  tty.write('abx\u007f'); // DEL erases x
  tty.write('c\b'); // BS erases c
  tty.write('\u001b[A\u001b[1;5C'); // arrow keys are ignored
  tty.write('d\u0007é'); // BEL is dropped
  tty.write('\n');
  assert.equal(await result, 'abdé');
  assert.equal(text(), prompt + '\n');
});

test('terminal: a pasted key with its newline in one chunk', async () => {
  const tty = fakeTty();
  const { output } = sink();
  const result = readSecretFromStdin({ input: tty.input, output, prompt });
  tty.write(`${CANARY}\r\n`);
  assert.equal(await result, CANARY);
});

test('terminal: Ctrl-C aborts with a clear error and restores the terminal', async () => {
  const tty = fakeTty();
  const { output } = sink();
  const result = readSecretFromStdin({ input: tty.input, output, prompt });
  tty.write(CANARY);
  tty.write('\u0003');
  await assert.rejects(
    result,
    (e: unknown) => e instanceof AirlockError && e.kind === 'usage' && e.message === 'cancelled (Ctrl-C): no key was saved' && !e.line.includes(CANARY),
  );
  assert.deepEqual(tty.rawCalls, [true, false]);
});

test('terminal: Enter on nothing is the empty-key error; Ctrl-D on nothing cancels; end of input finishes', async () => {
  {
    const tty = fakeTty();
    const result = readSecretFromStdin({ input: tty.input, output: sink().output, prompt });
    tty.write('\r');
    await assert.rejects(result, /no key was given/);
  }
  {
    const tty = fakeTty();
    const result = readSecretFromStdin({ input: tty.input, output: sink().output, prompt });
    tty.write('\u0004');
    await assert.rejects(result, /cancelled \(Ctrl-D\)/);
  }
  {
    const tty = fakeTty();
    const result = readSecretFromStdin({ input: tty.input, output: sink().output, prompt });
    tty.write('abc');
    tty.end();
    assert.equal(await result, 'abc');
  }
});
