// The lean stdio path: which command lines take it, bad lines answered by
// the forwarder itself without reaching (or starting) a companion, and the
// fallback to Streamable HTTP for a companion without the pipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { leanArgs } from '../../main/cli/stdioJoin.ts';
import { runForwarder } from '../../main/core/mcp/stdioForwarder.ts';
import { peekAnswer } from '../../main/core/mcp/leanMcpPipe.ts';

test('only what registrations write goes the lean way; anything else gets the full CLI (and its validation)', () => {
  assert.deepEqual([...leanArgs([])!], []);
  assert.deepEqual(
    [...leanArgs(['--data-dir', '/d', '--log-level', 'warn'])!],
    [
      ['--data-dir', '/d'],
      ['--log-level', 'warn'],
    ],
  );
  assert.deepEqual(
    [...leanArgs(['--data-dir=/a b', '--exit-when-idle', '30'])!],
    [
      ['--data-dir', '/a b'],
      ['--exit-when-idle', '30'],
    ],
  );
  assert.equal(leanArgs(['--profile', 'openagenda']), undefined, 'other flags: full CLI');
  assert.equal(leanArgs(['--log-level', 'loud']), undefined, 'a bad value: full CLI, which says what is wrong');
  assert.equal(leanArgs(['--exit-when-idle', 'soon']), undefined);
  assert.equal(leanArgs(['--data-dir']), undefined);
  assert.equal(leanArgs(['--in-process']), undefined);
});

test('a line that is not JSON, or over 4 MiB, is answered here; nothing reaches a companion', { timeout: 10_000 }, async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let connects = 0;
  const lines: string[] = [];
  stdout.on('data', (d: Buffer) => lines.push(...d.toString('utf8').trim().split('\n')));
  const done = runForwarder({
    stdin,
    stdout,
    log: () => {},
    connect: async () => {
      connects++;
      throw new Error('not in this test');
    },
  });
  stdin.write('this is not json\n');
  stdin.write('x'.repeat(5 * 1024 * 1024) + '\n');
  stdin.write('[1, 2]\n');
  // A 6 MB execute (the field test's): answered under its own id, so the client's call ends now, not at its timeout.
  stdin.write(
    JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'execute', arguments: { code: 'x'.repeat(6 * 1024 * 1024) } } }) + '\n',
  );
  stdin.end();
  await done;
  const answers = lines.map((l) => JSON.parse(l) as { id: number | null; error: { code: number; message: string } });
  assert.deepEqual(
    answers.map((a) => [a.id, a.error.code]),
    [
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [12, -32600],
    ],
  );
  assert.match(answers[1]!.error.message, /5\.0 MiB is over the 4\.0 MiB limit/);
  assert.equal(connects, 0);
});

test(
  'a companion without the pipe (an older one) answers the upgrade with 404, and the forwarder speaks Streamable HTTP to it instead',
  { timeout: 10_000 },
  async (t) => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const message = body ? (JSON.parse(body) as { id?: number; method?: string }) : {};
        if (message.id === undefined) return void res.writeHead(202).end();
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echoed: message.method } }));
      });
    });
    // What an older companion's loopback server does with an upgrade it does not know.
    server.on('upgrade', (req, socket) => {
      seen.push(`upgrade ${req.url}`);
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => server.close(() => r())));
    const { port } = server.address() as AddressInfo;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answers: unknown[] = [];
    stdout.on('data', (d: Buffer) =>
      answers.push(
        ...d
          .toString('utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ),
    );
    const done = runForwarder({
      stdin,
      stdout,
      log: () => {},
      connect: async () => ({ mcpUrl: `http://127.0.0.1:${port}/mcp`, token: 't', pid: process.pid }),
    });
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) + '\n');
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
    for (const deadline = Date.now() + 5_000; answers.length < 2;) {
      if (Date.now() > deadline) throw new Error(`two answers expected, got ${JSON.stringify(answers)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    stdin.end();
    await done;
    assert.deepEqual(answers, [
      { jsonrpc: '2.0', id: 1, result: { echoed: 'initialize' } },
      { jsonrpc: '2.0', id: 2, result: { echoed: 'tools/list' } },
    ]);
    assert.deepEqual(seen.slice(0, 3), ['upgrade /mcp/pipe', 'POST /mcp', 'POST /mcp']);
  },
);

test("an answer's id is read off the end of its line; anything else is parsed whole", () => {
  const line = (v: unknown) => Buffer.from(JSON.stringify(v));
  const big = { tools: [{ name: 'execute', description: 'x'.repeat(5000), id: 99 }] };
  assert.deepEqual(peekAnswer(line({ result: big, jsonrpc: '2.0', id: 7 })), { jsonrpc: '2.0', id: 7, result: true });
  assert.deepEqual(peekAnswer(line({ result: big, jsonrpc: '2.0', id: 'airlock-forwarder:reinitialize' })), {
    jsonrpc: '2.0',
    id: 'airlock-forwarder:reinitialize',
    result: true,
  });
  // Errors, requests and notifications from the companion, and look-alikes nested or inside strings, are parsed.
  assert.equal(peekAnswer(line({ jsonrpc: '2.0', id: 7, error: { code: 1, message: 'x'.repeat(50) } })), undefined);
  assert.equal(peekAnswer(line({ method: 'elicitation/create', params: { message: 'x'.repeat(50) }, jsonrpc: '2.0', id: 3 })), undefined);
  assert.equal(peekAnswer(line({ result: { inner: { result: 1, jsonrpc: '2.0', id: 5 } }, jsonrpc: '2.0', id: 6 }))?.id, 6);
  assert.equal(peekAnswer(line({ result: { a: 1 }, jsonrpc: '2.0', id: 8, extra: '","jsonrpc":"2.0","id":9}' })), undefined);
  assert.equal(peekAnswer(line({ result: { a: 'x'.repeat(40) }, jsonrpc: '2.0', id: 'with \\"quote' })), undefined);
});
