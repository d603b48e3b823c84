// tools/list is answered from a prepared reply: built once by the server,
// kept as JSON text, and written by the transport before the SDK reads the
// request; built again when the tools change (and the client told), never
// used while an API in reach is being opened (the server then waits, so the
// tools describe it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createMcpServer, refreshTools } from '../../main/core/mcp/createMcpServer.ts';
import { LineLimitedStdioTransport } from '../../main/core/mcp/stdioTransport.ts';
import { preparedAnswer } from '../../main/core/mcp/createMcpServer.ts';
import { jsonLinesOf } from '../helpers/jsonLines.ts';
import { probeServerOptions, type ProbeState } from '../helpers/probeServer.ts';
import { peekAnswer } from '../../main/core/mcp/leanMcpPipe.ts';

const T = { timeout: 10_000 };

test('tools/list answers from the prepared reply, built again when the tools change', T, async () => {
  const state: ProbeState = { description: 'The first description', built: 0, opening: false };
  const server = createMcpServer(probeServerOptions(state));
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineLimitedStdioTransport(input, output);
  transport.answerEarly = (raw) => preparedAnswer(server, raw);
  await server.connect(transport);
  const replies = jsonLinesOf(output);
  let id = 0;
  const ask = async (method: string, params: unknown = {}) => {
    const mine = ++id;
    input.write(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }) + '\n');
    for (let turn = 0; turn < 200; turn++) {
      const reply = replies.find((r) => (r as { id?: number }).id === mine);
      if (reply) return reply as { result: { tools: { name: string; description: string }[] } };
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no answer to ${method}`);
  };
  await ask('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');

  const first = await ask('tools/list');
  assert.equal(state.built, 1, 'the first tools/list builds the answer');
  assert.equal(first.result.tools.find((t) => t.name === 'probe')?.description, 'The first description');
  const second = await ask('tools/list');
  assert.deepEqual(second.result, first.result);
  assert.equal(state.built, 1, 'the second is the prepared reply: nothing was built');
  const line = preparedAnswer(server, { jsonrpc: '2.0', id: 9, method: 'tools/list' });
  assert.ok(line, 'the transport answers it');
  assert.deepEqual(peekAnswer(line), { jsonrpc: '2.0', id: 9, result: true }, "the joined pipe's shim passes it on without parsing it");
  assert.equal(preparedAnswer(server, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { cursor: 'x' } }), undefined, 'a cursor goes to the server');
  assert.equal(preparedAnswer(server, { jsonrpc: '2.0', method: 'tools/list' }), undefined, 'a notification is no request');

  // The tools change: the client is told, and the next answer is built again.
  state.description = 'The second description';
  refreshTools(server);
  const third = await ask('tools/list');
  assert.equal(third.result.tools.find((t) => t.name === 'probe')?.description, 'The second description');
  assert.ok(replies.some((r) => (r as { method?: string }).method === 'notifications/tools/list_changed'));
  const builtThen = state.built;
  await ask('tools/list');
  assert.equal(state.built, builtThen, 'prepared again');

  // An API in reach being opened: no prepared reply (the server waits for it, then answers).
  state.opening = true;
  assert.equal(preparedAnswer(server, { jsonrpc: '2.0', id: 10, method: 'tools/list' }), undefined);
  await ask('tools/list');
  assert.equal(state.built, builtThen + 1, 'answered by the server');
  await server.close();
});
