// A 2026-07-28 stdio connection's tools/list is answered from the SDK's last answer until the tools change (the
// 2025 revision's prepared reply, for the modern one): the first goes to the SDK, a plain one after it is answered
// by the transport under its own id; a change, an envelope the SDK would refuse, a cursor, or an API being opened
// each send it to the SDK again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createModernMcpServer, keptListOf, refreshModernTools } from '../../main/core/mcp/createMcpServer.ts';
import { LineLimitedStdioTransport } from '../../main/core/mcp/stdioTransport.ts';
import { serveStdioRevisions } from '../../main/core/mcp/stdioRevisions.ts';
import { jsonLinesOf } from '../helpers/jsonLines.ts';
import { probeServerOptions, type ProbeState } from '../helpers/probeServer.ts';
import { peekAnswer } from '../../main/core/mcp/leanMcpPipe.ts';

const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'kept', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

test('a modern stdio connection answers tools/list from the SDK answer it kept, built again when the tools change', { timeout: 10_000 }, async () => {
  const state: ProbeState = { description: 'The first description', built: 0, opening: false };
  const server = await createModernMcpServer(probeServerOptions(state), { key: 'stdio:kept', transport: 'stdio' });
  // The SDK's own tools/list handler, counted: what the transport answers never reaches it.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (...a: unknown[]) => Promise<unknown>> })._requestHandlers;
  const original = handlers.get('tools/list')!;
  let sdkLists = 0;
  handlers.set('tools/list', (...a) => {
    sdkLists++;
    return original(...a);
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const wire = new LineLimitedStdioTransport(input, output);
  const connection = serveStdioRevisions(wire, {
    legacy: () => assert.fail('a modern client gets no 2025 server'),
    modern: async () => server,
  });
  const replies = jsonLinesOf(output);
  let id = 0;
  const ask = async (method: string, params: Record<string, unknown> = {}) => {
    const mine = ++id;
    input.write(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params: { _meta: envelope, ...params } }) + '\n');
    for (let turn = 0; turn < 500; turn++) {
      const reply = replies.find((r) => (r as { id?: number }).id === mine);
      if (reply) return reply as { result: { tools: { name: string; description: string }[] }; error?: unknown };
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no answer to ${method}`);
  };
  await ask('server/discover');

  const first = await ask('tools/list');
  assert.equal(first.result.tools.find((t) => t.name === 'probe')?.description, 'The first description');
  assert.equal(sdkLists, 1);
  const second = await ask('tools/list');
  assert.deepEqual(second.result, first.result);
  assert.equal(sdkLists, 1, 'the second is the kept answer: the SDK did not see it');
  const kept = keptListOf(server)!;
  const line = kept.answer({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: envelope } });
  assert.ok(line, 'the transport answers a plain one');
  assert.deepEqual(peekAnswer(line), { jsonrpc: '2.0', id: 9, result: true }, "the joined pipe's shim passes it on without parsing it");
  assert.equal(kept.answer({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { cursor: 'x', _meta: envelope } }), undefined, 'a cursor goes to the SDK');
  assert.equal(kept.answer({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }), undefined, 'no envelope: the SDK refuses it, not the kept answer');
  const otherRevision = { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
  await ask('tools/list', { _meta: otherRevision });
  assert.equal(sdkLists, 2, 'another revision in the envelope: the SDK answers it');

  // The tools change: the next answer is the SDK's, with what is described now (a client listening is told).
  state.description = 'The second description';
  refreshModernTools(server);
  const third = await ask('tools/list');
  assert.equal(third.result.tools.find((t) => t.name === 'probe')?.description, 'The second description');
  const seen = sdkLists;
  await ask('tools/list');
  assert.equal(sdkLists, seen, 'kept again');

  // An API in reach being opened: the SDK answers (its handler waits for the API, then describes it).
  state.opening = true;
  const builtThen = state.built;
  await ask('tools/list');
  assert.equal(sdkLists, seen + 1);
  assert.ok(state.built > builtThen, 'described again once the API was ready');
  await connection.close();
});
