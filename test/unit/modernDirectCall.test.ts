// A plain 2026-07-28 tools/call of one of Airlock's tools is answered without
// the v2 SDK (issue 38 §6: the modern path no slower than the 2025 one) — and
// exactly as the SDK answers it: the same result for each kind of tool result
// (text, an error thrown, structured content checked by the output schema, a
// result's own _meta, no content, input_required), while a call that is not
// plain (a progress token, arguments the schema refuses, a tool that is not
// Airlock's) is the SDK's. A direct call is aborted when its client cancels it
// or its connection closes, and answered by the transport's last word when the
// companion goes, as the SDK's calls are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { inputRequired } from '@modelcontextprotocol/server';
import { createModernMcpServer, type McpServerOptions } from '../../main/core/mcp/createMcpServer.ts';
import { LineLimitedStdioTransport } from '../../main/core/mcp/stdioTransport.ts';
import { serveStdioRevisions } from '../../main/core/mcp/stdioRevisions.ts';
import { plainModernCall } from '../../main/core/mcp/modernDirectCall.ts';
import type { RegisteredToolText } from '../../main/core/mcp/auditedTools.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { jsonLinesOf } from '../helpers/jsonLines.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createModernMcp } from '../../main/core/mcp/modernHttp.ts';

const MODERN = '2026-07-28';
const envelope = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'direct', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

type Answer = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** `promise`, or a failure naming `what` after 5 s. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within 5 s`)), 5_000)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A server's options with one tool per kind of result; what it records, and a way to take one tool away. */
function toolsFixture(transport: 'stdio' | 'http') {
  const calls: { tool: string; key: string; clientName?: string }[] = [];
  const aborted: string[] = [];
  let started!: () => void;
  const waitStarted = new Promise<void>((resolve) => (started = resolve));
  let removable: RegisteredToolText | undefined;
  const options: McpServerOptions = {
    apis: () => [],
    ready: async () => [],
    logger: silentLogger,
    transport,
    onToolCall: (call) => void calls.push({ tool: call.tool, key: call.caller.key, ...(call.caller.clientName ? { clientName: call.caller.clientName } : {}) }),
    tools: [
      (registry) => {
        const simple = { title: 'T', description: 'd', annotations: { readOnlyHint: true } };
        registry.register('text', { ...simple, inputSchema: { n: z.number().default(1) } }, async ({ n }) => ({
          result: { content: [{ type: 'text', text: `n=${n}` }] },
        }));
        registry.register('throws', { ...simple, inputSchema: {} }, async () => {
          throw new Error('it broke');
        });
        const output = { count: z.number() };
        registry.register('structured', { ...simple, inputSchema: { count: z.unknown() }, outputSchema: output }, async ({ count }) => ({
          result: { content: [{ type: 'text', text: 'counted' }], structuredContent: { count } },
        }));
        registry.register('meta', { ...simple, inputSchema: {} }, async () => ({
          result: { content: [{ type: 'text', text: 'm' }], isError: true, _meta: { 'example.com/mine': 1 } },
        }));
        registry.register('empty', { ...simple, inputSchema: {} }, async () => ({ result: {} as never }));
        registry.register('ask', { ...simple, inputSchema: {} }, async () => ({
          result: inputRequired({
            inputRequests: { q: inputRequired.elicit({ message: 'sure?', requestedSchema: { type: 'object', properties: {} } }) },
            requestState: 'opaque',
          }) as never,
        }));
        registry.register('rounds', { ...simple, inputSchema: {} }, async (_args, ctx) => ({
          result: { content: [{ type: 'text', text: `can elicit: ${ctx.rounds?.canElicit}` }] },
        }));
        registry.register('wait', { ...simple, inputSchema: {} }, async (_args, ctx) => {
          started();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          aborted.push(String(ctx.signal.reason?.message));
          return { result: { content: [{ type: 'text', text: 'stopped' }] } };
        });
        removable = registry.register('removable', { ...simple, inputSchema: {} }, async () => ({ result: { content: [{ type: 'text', text: 'here' }] } }));
        registry.registerLoose('other__tool', { ...simple }, async () => ({ result: { content: [{ type: 'text', text: 'theirs' }] } }));
      },
    ],
  };
  return { options, calls, aborted, waitStarted, remove: () => removable!.remove() };
}

/** A connection to a modern server with one tool per kind of result; counts what reaches the SDK's tools/call. */
async function connection() {
  const { options, calls, aborted, waitStarted, remove } = toolsFixture('stdio');
  const server = await createModernMcpServer(options, { key: 'stdio:direct', transport: 'stdio' });
  // The SDK's own tools/call handler, counted: a call answered directly never reaches it.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (...a: unknown[]) => Promise<unknown>> })._requestHandlers;
  const original = handlers.get('tools/call')!;
  const sdkCalls: string[] = [];
  handlers.set('tools/call', (...a) => {
    sdkCalls.push((a[0] as { params: { name: string } }).params.name);
    return original(...a);
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const wire = new LineLimitedStdioTransport(input, output);
  const served = serveStdioRevisions(wire, { legacy: () => assert.fail('a modern client gets no 2025 server'), modern: async () => server });
  const replies = jsonLinesOf(output) as Answer[];
  let next = 0;
  const write = (message: Record<string, unknown>) => input.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  /** Waits (a bounded number of turns) for the answer under `id`. */
  const answerTo = async (id: number | string) => {
    for (let turn = 0; turn < 2000; turn++) {
      const reply = replies.find((r) => r.id === id);
      if (reply) return reply;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no answer under id ${id}`);
  };
  const call = (name: string, args: unknown, meta: Record<string, unknown> = envelope()) => {
    const id = ++next;
    write({ id, method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: meta } });
    return { id, answer: () => answerTo(id) };
  };
  write({ id: 'discover', method: 'server/discover', params: { _meta: envelope() } });
  await answerTo('discover');
  return { call, write, replies, wire, served, sdkCalls, calls, aborted, waitStarted, remove };
}

test('a plain call is answered without the SDK, exactly as the SDK answers the same call', { timeout: 20_000 }, async () => {
  const c = await connection();
  const cases: [string, unknown, Record<string, unknown>?][] = [
    ['text', { n: 2 }],
    ['text', undefined],
    ['throws', {}],
    ['structured', { count: 3 }],
    ['structured', { count: 'three' }],
    ['meta', {}],
    ['empty', {}],
    ['ask', {}, { elicitation: {} }],
    ['rounds', {}, { elicitation: {} }],
    ['rounds', {}, { elicitation: { form: {}, url: {} } }],
    ['rounds', {}, { elicitation: { url: {} } }],
    ['rounds', {}, {}],
  ];
  for (const [name, args, capabilities] of cases) {
    const before = c.sdkCalls.length;
    const direct = await c.call(name, args, envelope(capabilities)).answer();
    assert.equal(c.sdkCalls.length, before, `${name}: answered without the SDK`);
    // The same call with a progress token is the SDK's (a plain call carries none).
    const sdk = await c.call(name, args, { ...envelope(capabilities), progressToken: `p-${name}` }).answer();
    assert.equal(c.sdkCalls.length, before + 1, `${name}: the progress token's call went to the SDK`);
    assert.deepEqual(direct.result, sdk.result, `${name} ${JSON.stringify(args)}: ${JSON.stringify(direct)} against ${JSON.stringify(sdk)}`);
    assert.equal(direct.error, undefined);
  }
  // Spot checks of what both said.
  const text = await c.call('text', {}).answer();
  assert.deepEqual(text.result?.content, [{ type: 'text', text: 'n=1' }], "the schema's default applied");
  assert.equal(text.result?.resultType, 'complete');
  assert.deepEqual((text.result?._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']!.name, 'airlock');
  assert.match(
    JSON.stringify((await c.call('structured', { count: 'x' }).answer()).result),
    /Output validation error: Invalid structured content for tool structured: count: /,
  );
  // The approval's form is asked in the client only where it declared form elicitation (`{}` is form alone).
  const rounds = async (capabilities: Record<string, unknown>) => JSON.stringify((await c.call('rounds', {}, envelope(capabilities)).answer()).result?.content);
  assert.match(await rounds({ elicitation: {} }), /can elicit: true/);
  assert.match(await rounds({ elicitation: { url: {} } }), /can elicit: false/);
  // Each call was audited under the client's declared name, the direct ones as the SDK's.
  assert.ok(c.calls.length >= cases.length * 2 && c.calls.every((r) => r.clientName === 'direct'), JSON.stringify(c.calls.slice(0, 3)));
  await c.served.close();
});

test('a call that is not plain, or not of one of Airlock’s tools, is the SDK’s', { timeout: 20_000 }, async () => {
  const c = await connection();
  const refused = await c.call('text', { n: 'two' }).answer();
  assert.deepEqual(c.sdkCalls, ['text'], 'arguments the schema refuses: the SDK answers, naming the field');
  assert.match(JSON.stringify(refused.result), /Input validation error: Invalid arguments for tool text: n: /);
  await c.call('other__tool', {}).answer();
  assert.deepEqual(c.sdkCalls, ['text', 'other__tool'], "another server's tool: its result is checked by the SDK");
  const unknown = await c.call('nope', {}).answer();
  assert.match(String(unknown.error?.message), /Tool nope not found/);
  // A tool taken away (its API disabled) is not called directly any more: the SDK says it is not there.
  assert.deepEqual((await c.call('removable', {}).answer()).result?.content, [{ type: 'text', text: 'here' }]);
  const calledBefore = c.sdkCalls.length;
  c.remove();
  assert.match(String((await c.call('removable', {}).answer()).error?.message), /Tool removable not found/);
  assert.equal(c.sdkCalls.length, calledBefore + 1);
  const tasks = envelope({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
  await c.call('text', {}, tasks).answer();
  assert.equal(c.sdkCalls.at(-1), 'text', 'a client that declares the Tasks extension: the SDK');
  await c.served.close();

  // What is plain, read alone: a request with an id, name/arguments/_meta only, the revision's envelope, nothing more.
  const plain = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'text', arguments: {}, _meta: envelope() } };
  assert.ok(plainModernCall(plain, MODERN));
  const not = [
    { ...plain, id: null },
    { ...plain, method: 'tools/list' },
    { ...plain, params: { ...plain.params, arguments: [] } },
    { ...plain, params: { ...plain.params, task: {} } },
    { ...plain, params: { ...plain.params, inputResponses: {} } },
    { ...plain, params: { ...plain.params, _meta: { ...envelope(), progressToken: 1 } } },
    { ...plain, params: { ...plain.params, _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } },
    { ...plain, params: { ...plain.params, _meta: { ...envelope(), 'io.modelcontextprotocol/clientInfo': { name: 'x' } } } },
    { ...plain, params: { name: 'text', arguments: {} } },
    { ...plain, id: 1.5 },
    { ...plain, extra: true },
    { ...plain, params: { ...plain.params, _meta: { ...envelope({ elicitation: null }) } } },
    { ...plain, params: { ...plain.params, _meta: { ...envelope(), 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1', title: 5 } } } },
  ];
  for (const body of not) assert.equal(plainModernCall(body, MODERN), undefined, JSON.stringify(body));
});

test('a direct call is aborted when its client cancels it or its connection closes, and answered when the companion goes', { timeout: 20_000 }, async () => {
  const c = await connection();
  // Cancelled: the handler sees it, and no answer is written (as the SDK writes none).
  const first = c.call('wait', {});
  await within(c.waitStarted, 'the call started');
  c.write({ method: 'notifications/cancelled', params: { requestId: first.id, reason: 'changed my mind' } });
  for (const deadline = Date.now() + 5_000; c.aborted.length === 0; await new Promise((resolve) => setTimeout(resolve, 5)))
    assert.ok(Date.now() < deadline, 'aborted within 5 s');
  assert.deepEqual(c.aborted, ['the client cancelled the call']);
  const after = await c.call('text', {}).answer();
  assert.ok(after.result, 'the connection serves on');
  assert.equal(
    c.replies.some((r) => r.id === first.id),
    false,
    'the cancelled call is not answered',
  );

  // The companion goes: the call in flight is answered with an error under its id, once.
  const second = c.call('wait', {});
  for (const deadline = Date.now() + 5_000; !c.wire['inFlight'].has(second.id); await new Promise((resolve) => setTimeout(resolve, 5)))
    assert.ok(Date.now() < deadline, 'in flight within 5 s');
  assert.equal(await c.wire.answerInFlight('the companion is going'), 1);
  assert.equal((await second.answer()).error?.message, 'the companion is going');

  // The connection closes: the call still running is aborted.
  await c.served.close();
  for (const deadline = Date.now() + 5_000; c.aborted.length < 2; await new Promise((resolve) => setTimeout(resolve, 5)))
    assert.ok(Date.now() < deadline, 'aborted within 5 s of the close');
  assert.deepEqual(c.aborted.at(-1), 'the connection closed');
  assert.equal(c.replies.filter((r) => r.id === second.id).length, 1, 'answered once');
});

test(
  'over HTTP a plain call is answered with the tools of a server built once for its caller and tool; hanging up cancels it',
  { timeout: 20_000 },
  async (t) => {
    const { options, calls, aborted, waitStarted } = toolsFixture('http');
    const built: string[] = [];
    // While `gate` is set, building a server waits for it (as for the APIs in reach still opening); `building` says one began.
    let gate: Promise<void> | undefined;
    let building = () => {};
    const modern = createModernMcp({
      logger: silentLogger,
      createServer: async (caller, request) => {
        built.push(`${caller.key} ${request?.tool}`);
        if (gate) {
          building();
          await gate;
        }
        return createModernMcpServer(options, { key: caller.key, transport: 'http' }, request?.tool);
      },
    });
    /** Holds every build until the function returned is called; resolves `began` when one starts waiting. */
    const holdBuilds = () => {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      const began = new Promise<void>((resolve) => (building = resolve));
      return {
        began,
        release: () => {
          gate = undefined;
          release();
        },
      };
    };
    // Each exchange's end as the server sees it (the client hanging up), by the scope its URL names.
    const ended = new Map<string, Promise<void>>();
    const http = createServer((req, res) => {
      ended.set(new URL(req.url ?? '/', 'http://x').searchParams.get('api') ?? '', new Promise((resolve) => res.once('close', () => resolve())));
      let text = '';
      req.setEncoding('utf8').on('data', (d: string) => (text += d));
      req.on('end', () => void modern.serve(req, res, JSON.parse(text)));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    t.after(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await modern.close();
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    let id = 0;
    const post = (name: string, args: unknown, options: { meta?: Record<string, unknown>; signal?: AbortSignal; scope?: string } = {}) =>
      fetch(options.scope ? `${url}?api=${options.scope}` : url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer t',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args, _meta: options.meta ?? envelope() } }),
        signal: options.signal ?? AbortSignal.timeout(10_000),
      }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), body: (await r.json()) as Answer }));

    const first = await post('text', { n: 1 });
    const again = await post('text', { n: 2 });
    assert.deepEqual([first.status, first.type], [200, 'application/json']);
    assert.deepEqual(again.body.result?.content, [{ type: 'text', text: 'n=2' }]);
    assert.equal(built.length, 1, `one server built for the caller and the tool: ${built.join('; ')}`);
    // The same call through the SDK (a progress token makes it not plain): the same result.
    const sdk = await post('text', { n: 2 }, { meta: { ...envelope(), progressToken: 'p' } });
    assert.deepEqual(again.body.result, sdk.body.result);
    assert.equal(built.length, 2, 'the SDK built its own server for that request');
    // Another tool, another caller-and-tool; after the tools change, built again.
    await post('meta', {});
    assert.equal(built.length, 3);
    modern.toolsChanged();
    await post('text', { n: 3 });
    assert.equal(built.length, 4, 'built again after the tools changed');

    // Another caller (another scope) gets a server of its own, and its calls run as it: never with another's tools.
    await post('text', { n: 4 }, { scope: 'elsewhere' });
    await post('text', { n: 5 }, { scope: 'elsewhere' });
    await post('text', { n: 6 });
    assert.equal(built.length, 5, built.join('; '));
    assert.deepEqual(
      calls.slice(-3).map((call) => call.key.endsWith(':api=elsewhere')),
      [true, true, false],
      'each call ran as its own caller',
    );

    // The tools change while a server is being built: what it was built with is not kept.
    const across = holdBuilds();
    const during = post('meta', {}, { scope: 'during' });
    await within(across.began, 'the build began');
    modern.toolsChanged();
    across.release();
    assert.ok((await during).body.result);
    const before = built.length;
    await post('meta', {}, { scope: 'during' });
    assert.equal(built.length, before + 1, 'built again: what was built across the change was not kept');

    // The client hangs up while its caller's server is still being built: the tool never runs.
    const slow = holdBuilds();
    const early = new AbortController();
    const hungUp = post('text', { n: 7 }, { scope: 'early', signal: early.signal }).catch((error: Error) => error);
    await within(slow.began, 'the build began');
    early.abort();
    assert.equal(((await hungUp) as Error).name, 'AbortError');
    await within(ended.get('early')!, 'the server saw the hang-up');
    const ran = calls.length;
    slow.release();
    await post('text', { n: 8 }, { scope: 'early' });
    assert.deepEqual(
      calls.slice(ran).map((call) => call.tool),
      ['text'],
      'only the call after the hang-up ran',
    );

    // The client hangs up while its call runs: the call is aborted.
    const gone = new AbortController();
    const waiting = post('wait', {}, { signal: gone.signal }).catch((error: Error) => error);
    await within(waitStarted, 'the call started');
    gone.abort();
    assert.equal(((await waiting) as Error).name, 'AbortError');
    for (const deadline = Date.now() + 5_000; aborted.length === 0; await new Promise((resolve) => setTimeout(resolve, 5)))
      assert.ok(Date.now() < deadline, 'aborted within 5 s of the hang-up');
    assert.deepEqual(aborted, ['the client closed the connection']);
  },
);
