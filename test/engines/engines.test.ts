// execute through a real MCP client on each subprocess engine and egress
// mode: the client reaches the API through the gate proxy, the tool
// description says what bounds the sandbox, and the unbounded mode is
// bannered. The deno case needs Deno, the wrapper case srt's tools: where
// they are missing, that case is skipped saying what to install (a failure
// under AIRLOCK_REQUIRE_ALL=1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { echoFixture } from '../helpers/echoApi.ts';
import { DENO, requireTools, SRT, type SystemNeed } from '../helpers/systemTools.ts';

const KEY = 'sk_engine_CANARY_0123456789ab';

const cases: { name: string; args: string[]; boundary: RegExp; banner?: RegExp; needs?: SystemNeed }[] = [
  { name: 'deno, egress executor', args: ['--engine', 'deno'], boundary: /Deno.*--allow-net/s, needs: DENO },
  {
    name: 'node, egress wrapper (srt)',
    args: ['--engine', 'node', '--egress', 'wrapper'],
    boundary: /srt wrapper lets the sandbox reach only the gate/,
    needs: SRT,
  },
  {
    name: 'node, egress none (acknowledged, bannered)',
    args: ['--engine', 'node', '--egress', 'none', '--allow-unrestricted-egress'],
    boundary: /NOT bounded/,
    banner: /WARNING: engine node with egress none/,
  },
];

for (const c of cases) {
  test(`execute on ${c.name}`, async (t) => {
    if (c.needs && !requireTools(t, c.needs)) return;
    const { dir, echo, spec } = await echoFixture(t);
    const server = await serve(dir, ['--spec', spec, '--auth', 'bearer', '--timeout-ms', '10000', ...c.args], { AIRLOCK_API_KEY: KEY });
    const client = await httpClient(server.mcpUrl, server.token);
    try {
      const { tools } = await client.listTools();
      assert.match(tools.find((x) => x.name === 'execute')!.description!, c.boundary);
      assert.deepEqual(await execute(client, 'return 1 + 1'), { text: '2', isError: false });
      const r = await execute(
        client,
        `const r = await api.items.list({ query: { tag: ['a'] } }); console.log('status', r.status); return { status: r.status, auth: r.data.headers.authorization };`,
      );
      assert.equal(r.isError, false, r.text);
      const [json, consoleBlock] = r.text.split('\n\nConsole:\n');
      assert.deepEqual(JSON.parse(json!), { status: 200, auth: 'Bearer [REDACTED]' });
      assert.equal(consoleBlock, 'status 200');
      assert.equal(echo.received.at(-1)!.headers.authorization, `Bearer ${KEY}`);
      const env = await execute(client, `return typeof process === 'undefined' ? 'no process' : JSON.stringify(process.env);`);
      assert.ok(!env.text.includes(KEY), env.text);
      const err = await execute(client, 'const a = 1;\nnull.x;');
      assert.equal(err.isError, true);
      assert.match(err.text, /execute\.js:2/);
      assert.doesNotMatch(err.text, /\/work\/|\/tmp\/|node_modules|file:\/\//);
      if (c.banner) assert.match(server.stderr(), c.banner);
      else assert.doesNotMatch(server.stderr(), /WARNING: engine/);
    } finally {
      await client.close();
      await server.stop();
    }
  });
}
