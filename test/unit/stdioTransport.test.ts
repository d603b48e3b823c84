// stdio never goes silent: a line over the limit gets a JSON-RPC error and
// the next line is served; its bytes are dropped as they stream, never kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { jsonLinesOf } from '../helpers/jsonLines.ts';
import { LineLimitedStdioTransport } from '../../main/core/mcp/stdioTransport.ts';
import { jsonLineWriter } from '../../main/core/mcp/jsonLines.ts';

function harness(max: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const transport = new LineLimitedStdioTransport(input, output, { maxLineBytes: max, log: (m) => logs.push(m) });
  const received: unknown[] = [];
  transport.onmessage = (m) => received.push(m);
  const replies = jsonLinesOf(output);
  return { input, transport, received, replies, logs };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n';

test('a line over the limit gets an error naming its size, and the next request is served', { timeout: 10_000 }, async () => {
  const h = harness(1024);
  await h.transport.start();
  h.input.write(ping(1));
  // 64 KiB in 1 KiB chunks with no newline, then the newline.
  for (let i = 0; i < 64; i++) h.input.write('x'.repeat(1024));
  h.input.write('\n');
  h.input.write(ping(2));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    h.received.map((m) => (m as { id: number }).id),
    [1, 2],
  );
  assert.equal(h.replies.length, 1);
  const error = (h.replies[0] as { error: { code: number; message: string }; id: null }).error;
  assert.equal(error.code, -32600);
  assert.match(error.message, /request line of 64\.0 KiB is over the 1\.0 KiB limit/);
  assert.match(h.logs[0]!, /64\.0 KiB/);
});

test('a line that is not JSON, or not JSON-RPC, gets its error and the stream goes on', { timeout: 10_000 }, async () => {
  const h = harness(1024);
  await h.transport.start();
  h.input.write('not json\n{"hello":1}\n{"jsonrpc":"2.0","id":7,"method":5}\n' + ping(3));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    h.replies.map((r) => (r as { error: { code: number } }).error.code),
    [-32700, -32600, -32600],
  );
  assert.equal((h.replies[2] as { id: number }).id, 7);
  assert.deepEqual(
    h.received.map((m) => (m as { id: number }).id),
    [3],
  );
});

test('memory stays bounded while a huge line streams in', { timeout: 30_000 }, async () => {
  const h = harness(4 * 1024 * 1024);
  await h.transport.start();
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const before = process.memoryUsage().arrayBuffers;
  let peak = before;
  for (let i = 0; i < 64; i++) {
    h.input.write(chunk);
    await new Promise((r) => setImmediate(r));
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }
  h.input.write('\n' + ping(9));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    h.received.map((m) => (m as { id: number }).id),
    [9],
  );
  // 64 MiB went through; what was held at any time stayed near the 4 MiB limit.
  assert.ok(peak - before < 16 * 1024 * 1024, `held ${(peak - before) / 1048576} MiB`);
});

test(
  'a peer that sends but does not read stops being read once its unread answers pass the cap, and is read again when it catches up',
  { timeout: 10_000 },
  async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1024 });
    const transport = new LineLimitedStdioTransport(input, output, { maxUnreadBytes: 64 * 1024 });
    let received = 0;
    transport.onmessage = (m) => {
      received++;
      // Every request answered with ~8 KiB, which nobody reads yet.
      void transport.send({ jsonrpc: '2.0', id: (m as { id: number }).id, result: { blob: 'x'.repeat(8192) } });
    };
    await transport.start();
    for (let i = 1; i <= 200; i++) input.write(ping(i));
    for (const deadline = Date.now() + 5_000; !input.isPaused();) {
      assert.ok(Date.now() < deadline, 'reading pauses');
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(received < 200, `${received} requests read while nobody read the answers`);
    assert.ok(output.writableLength < 64 * 1024 + 2 * 8300, `unread answers stay near the cap (${output.writableLength} bytes)`);
    output.resume(); // the peer reads again
    for (const deadline = Date.now() + 5_000; received < 200;) {
      assert.ok(Date.now() < deadline, `every request is read once the answers drain (${received})`);
      await new Promise((r) => setImmediate(r));
    }
    await transport.close();
  },
);

test('a line written to a stream that pushes back and then closes settles: nothing waits forever on a stream that is gone', { timeout: 10_000 }, async () => {
  const stream = new PassThrough({ highWaterMark: 16 });
  const write = jsonLineWriter(stream);
  let settled = false;
  const pending = write({ big: 'x'.repeat(100_000) }).then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'it waits while nobody reads');
  stream.destroy();
  await pending;
  assert.equal(settled, true);
  assert.equal(stream.listenerCount('drain'), 0, 'no listener left behind');
});

test(
  "a request over the limit is answered under its own id, read off the line's start or end, so the call waiting for it ends",
  { timeout: 10_000 },
  async () => {
    const h = harness(1024);
    await h.transport.start();
    const big = 'x'.repeat(64 * 1024);
    // The id first (as clients write it), streamed in chunks; then the id last.
    const first = JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'execute', arguments: { code: big } } });
    for (let at = 0; at < first.length; at += 4096) h.input.write(first.slice(at, at + 4096));
    h.input.write('\n');
    h.input.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"execute","arguments":{"code":"${big}"}},"id":"last-7"}\n`);
    h.input.write(ping(3));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      h.replies.map((r) => (r as { id: unknown }).id),
      [41, 'last-7'],
    );
    assert.match((h.replies[0] as { error: { message: string } }).error.message, /request line of 64\.\d KiB is over the 1\.0 KiB limit/);
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [3],
      'the next request is served',
    );
  },
);

test(
  'requests still in flight when the process goes are answered under their ids; a late answer is not sent twice (issue 36 §3)',
  { timeout: 10_000 },
  async () => {
    const h = harness(1024 * 1024);
    await h.transport.start();
    h.input.write(ping(5));
    h.input.write(ping(6));
    await new Promise((r) => setImmediate(r));
    await h.transport.send({ jsonrpc: '2.0', id: 5, result: {} });
    assert.equal(await h.transport.answerInFlight('going away'), 1, 'only the request not answered yet');
    await h.transport.send({ jsonrpc: '2.0', id: 6, result: {} });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(h.replies, [
      { jsonrpc: '2.0', id: 5, result: {} },
      { jsonrpc: '2.0', id: 6, error: { code: -32000, message: 'going away' } },
    ]);
  },
);
