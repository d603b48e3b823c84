// `stdio --in-process` answers initialize before the companion is built: the
// early answer is the one the session's server gives (same protocol version
// agreed, capabilities, server info, instructions), only a well-formed
// initialize on the first line is answered, everything read meanwhile reaches
// the server in order, and the server's own answer is not sent twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED } from '@modelcontextprotocol/sdk/types.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../main/core/mcp/serverIdentity.ts';
import { answerInitializeEarly, initializeRequest, initializeResult } from '../../main/core/mcp/earlyInitialize.ts';
import { createMcpServer } from '../../main/core/mcp/createMcpServer.ts';
import { LineLimitedStdioTransport } from '../../main/core/mcp/stdioTransport.ts';
import { serverInstructions } from '../../main/core/mcp/instructions.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { jsonLinesOf } from '../helpers/jsonLines.ts';

const T = { timeout: 10_000 };
const named = [
  { id: 'demo', clientNames: ['api', 'demo'] },
  { id: 'github', clientNames: ['api', 'github'] },
];
const initialize = (id: number | string, protocolVersion = '2025-06-18') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } } });

/** Waits (with a deadline) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A client's pipes, what comes back on stdout, and the early reader on them. */
function earlyPipe() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const got = jsonLinesOf(stdout);
  const early = answerInitializeEarly({ stdin, stdout, instructions: 'early', hasExecute: true });
  return { stdin, stdout, got, early };
}

function server() {
  return createMcpServer({
    apis: () => [],
    ready: async () => [],
    named: () => named,
    logger: createLogger({ level: 'error', sink: () => undefined }),
    transport: 'stdio',
    hasExecute: true,
    onToolCall: () => undefined,
  });
}

test("the protocol versions Airlock agrees to are the SDK's", () => {
  assert.equal(LATEST_PROTOCOL_VERSION, SDK_LATEST);
  assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_SUPPORTED]);
});

test("the early answer is the server's answer, for a supported version and for one it does not know", T, async () => {
  for (const version of ['2025-06-18', '2024-11-05', '1999-01-01']) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const got = jsonLinesOf(stdout);
    const s = server();
    await s.connect(new LineLimitedStdioTransport(stdin, stdout));
    stdin.write(initialize(7, version) + '\n');
    await until(() => got.length === 1, 'answer');
    const instructions = serverInstructions({ apis: named, hasExecute: true });
    assert.deepEqual((got[0] as { result: unknown }).result, initializeResult(version, instructions, true), version);
    await s.close();
  }
});

test('only a well-formed initialize on the first line is answered early', () => {
  assert.deepEqual(initializeRequest(initialize(1)), { id: 1, protocolVersion: '2025-06-18' });
  assert.deepEqual(initializeRequest(initialize('a')), { id: 'a', protocolVersion: '2025-06-18' });
  for (const line of [
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"x","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
    '{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"x","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":{}}}',
    '{"id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
    'not json',
    '[1,2]',
    // What the SDK's server would refuse: a member a request does not have, capabilities that are not objects.
    '{"jsonrpc":"2.0","id":1,"method":"initialize","foo":1,"params":{"protocolVersion":"x","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":[],"clientInfo":{"name":"a","version":"1"}}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":{"sampling":true},"clientInfo":{"name":"a","version":"1"}}}',
  ])
    assert.equal(initializeRequest(line), undefined, line);
});

test('answered early: what was read reaches the server in order, and its own answer to initialize is not sent again', T, async () => {
  const { stdin, stdout, got, early } = earlyPipe();
  // The client sends its initialize in two pieces, then the rest before the server exists.
  const first = initialize(1);
  stdin.write(first.slice(0, 20));
  stdin.write(first.slice(20) + '\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await until(() => got.length === 1, 'early answer');
  assert.deepEqual(got[0], { jsonrpc: '2.0', id: 1, result: initializeResult('2025-06-18', 'early', true) });

  const read = early.take();
  assert.equal(read.answered, 1);
  const s = server();
  let initialized = false;
  s.server.oninitialized = () => (initialized = true);
  await s.connect(new LineLimitedStdioTransport(stdin, stdout, { early: read }));
  stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  await until(() => got.length === 3, 'answers to both pings');
  assert.deepEqual(
    got.map((m) => (m as { id: unknown }).id),
    [1, 2, 3],
    'one answer to initialize (the early one), then the pings in order',
  );
  assert.equal(initialized, true, 'the server saw the client initialized');
  assert.deepEqual(s.server.getClientVersion(), { name: 'test', version: '1' }, 'and who it is, from the initialize it read');
  await s.close();
});

test('a first line that is not initialize is left to the server, which answers it', T, async () => {
  const { stdin, stdout, got, early } = earlyPipe();
  stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
  await new Promise((r) => setImmediate(r));
  assert.equal(got.length, 0, 'nothing answered early');
  const read = early.take();
  assert.equal(read.answered, undefined);
  const s = server();
  await s.connect(new LineLimitedStdioTransport(stdin, stdout, { early: read }));
  await until(() => got.length === 1, 'the server answering the ping');
  assert.equal((got[0] as { id: unknown }).id, 9);
  await s.close();
});

test("a request reusing the initialize's id is answered, the pipe keeps flowing, and only the initialize's second answer is held back", T, async () => {
  const { stdin, stdout, got, early } = earlyPipe();
  stdin.write(initialize(1) + '\n{"jsonrpc":"2.0","id":1,"method":"no/such/method"}\n');
  await until(() => got.length === 1, 'early answer');
  const s = server();
  await s.connect(new LineLimitedStdioTransport(stdin, stdout, { early: early.take() }));
  stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await until(() => got.length === 3, 'the unknown method refused and the ping answered');
  const [first, second, third] = got as { id: unknown; result?: unknown; error?: { code: number } }[];
  assert.ok(first!.result, 'the early answer');
  assert.deepEqual([second!.id, second!.error?.code], [1, -32601], 'the unknown method, refused under its id');
  assert.deepEqual([third!.id, third!.result], [2, {}]);
  // A barrier, not a wait: the server answers in order, so a second answer to the initialize would come before this one.
  stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  await until(() => got.some((m) => (m as { id: unknown }).id === 3), 'the ping sent after everything else answered');
  assert.deepEqual(
    got.map((m) => (m as { id: unknown }).id),
    [1, 1, 2, 3],
    'no second answer to the initialize',
  );
  await s.close();
});

test('if the server refuses an initialize answered early, the client is told under its id and it is logged', T, async () => {
  const { stdin, stdout, got, early } = earlyPipe();
  stdin.write(initialize('init') + '\n');
  await until(() => got.length === 1, 'early answer');
  const logged: string[] = [];
  const transport = new LineLimitedStdioTransport(stdin, stdout, { early: early.take(), log: (m) => logged.push(m) });
  // A server that refuses every initialize.
  transport.onmessage = (m) => void transport.send({ jsonrpc: '2.0', id: (m as { id: string }).id, error: { code: -32602, message: 'no' } });
  await transport.start();
  await until(() => got.length === 2, 'the refusal');
  assert.deepEqual((got[1] as { id: unknown; error: { code: number } }).id, 'init');
  assert.match(logged.join('\n'), /the initialize answered early was refused by the server/);
  await transport.close();
});

test('only the first line is read early: the rest waits in the pipe for the transport and its limits', T, async () => {
  const { stdin, early } = earlyPipe();
  stdin.write(initialize(1) + '\n');
  await new Promise((r) => setImmediate(r));
  stdin.write('x'.repeat(1024 * 1024));
  await new Promise((r) => setImmediate(r));
  const read = early.take();
  assert.ok(read.buffered.reduce((n, b) => n + b.length, 0) < 1024, 'the megabyte after the first line was not read early');
});
