// The 2026-07-28 revision's servers kept between HTTP requests (modernServerPool.ts), behind the v2 SDK's own
// per-request handler: a server that has answered answers its caller's next request; two requests at once never share
// one; after a change of the tools no server built before is handed out, not even one that was answering then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ModernServerPool } from '../../main/core/mcp/modernServerPool.ts';

const MODERN = '2026-07-28';

/** A handler whose factory takes from the pool first; `built` counts the servers made. */
function pooledHandler() {
  const pool = new ModernServerPool<McpServer>();
  const built: McpServer[] = [];
  let release: (() => void) | undefined;
  const gate = () => new Promise<void>((resolve) => (release = resolve));
  const handler = createMcpHandler(
    () => {
      const idle = pool.take('caller');
      if (idle) return idle;
      const ticket = pool.ticket();
      const server = new McpServer({ name: 'pooled', version: String(built.length + 1) });
      server.registerTool('which', { inputSchema: z.object({ wait: z.boolean().optional() }) }, async ({ wait }) => {
        if (wait) await gate();
        return { content: [{ type: 'text', text: `server ${built.indexOf(server) + 1}` }] };
      });
      built.push(server);
      return pool.adopt('caller', server, ticket);
    },
    { legacy: 'reject' },
  );
  const call = async (id: number, wait = false): Promise<string> => {
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'which',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'which',
            arguments: { wait },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: `client ${id}`, version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      }),
    );
    const text = await response.text();
    const answer = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { result?: { content: { text: string }[] }; error?: unknown };
    assert.ok(answer.result, `answered: ${text}`);
    return answer.result.content[0]!.text;
  };
  return { pool, built, call, release: () => release?.(), waiting: () => release !== undefined, handler };
}

test('a server that has answered answers the next request: one server for calls one after another', { timeout: 10_000 }, async () => {
  const { built, call, pool } = pooledHandler();
  for (let id = 1; id <= 5; id++) assert.equal(await call(id), 'server 1');
  assert.equal(built.length, 1);
  assert.equal(pool.size, 1, 'idle again after the last answer');
});

test('two requests at once get two servers (one still answering is never handed out)', { timeout: 10_000 }, async () => {
  const { built, call, release, waiting } = pooledHandler();
  const slow = call(1, true);
  for (let tries = 0; !waiting(); tries++) {
    assert.ok(tries < 1000, 'the first call is being answered');
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(await call(2), 'server 2');
  release();
  assert.equal(await slow, 'server 1');
  assert.equal(built.length, 2);
});

test('after a change of the tools no server built before is handed out, not even one answering during the change', { timeout: 10_000 }, async () => {
  const { built, call, pool, release, waiting } = pooledHandler();
  assert.equal(await call(1), 'server 1');
  const slow = call(2, true); // server 1 again, held
  for (let tries = 0; !waiting(); tries++) {
    assert.ok(tries < 1000, 'the call is being answered');
    await new Promise((resolve) => setImmediate(resolve));
  }
  pool.clear();
  release();
  assert.equal(await slow, 'server 1');
  assert.equal(pool.size, 0, 'the server that answered across the change is not kept');
  assert.equal(await call(3), 'server 2');
  assert.equal(await call(4), 'server 2');
  assert.equal(built.length, 2);
});
