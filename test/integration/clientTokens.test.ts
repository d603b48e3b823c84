// HTTP clients' own tokens (issue 38 §2): a token made with `airlock clients
// token add` lets its client in (2025 sessions and 2026-07-28 requests), its
// scope comes with it (a URL may narrow it, never widen it), a session
// opened with one token is not found with another, a run held for one
// client cannot be collected by another, and a revoked token is refused at
// once, by the running companion, without a restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { runCliToEnd, serve, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec, type EchoApi } from '../helpers/echoApi.ts';
import { tempDir } from '../helpers/paths.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';

let echo: EchoApi;
let server: Served;
let control: ControlClient;
let dataDir: string;
let cleanup: () => void;

type Result = { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const textOf = (r: Result) => r.content?.find((c) => c.type === 'text')?.text ?? '';

async function makeToken(name: string, apis: string[] = []): Promise<string> {
  const made = await runCliToEnd(['clients', 'token', 'add', name, '--json', '--data-dir', dataDir, ...apis.flatMap((a) => ['--api', a])]);
  assert.equal(made.code, 0, made.stderr);
  return (JSON.parse(made.stdout) as { token: string }).token;
}

async function modernWith(token: string, name: string, url = server.mcpUrl): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernHttpTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

before(async () => {
  const made = tempDir();
  cleanup = made.cleanup;
  dataDir = made.dir;
  echo = await startEchoApi();
  const spec = writeEchoSpec(dataDir, echo.url);
  server = await serve(dataDir, ['--spec', spec, '--auth', 'bearer'], { AIRLOCK_API_KEY: 'sk_test_TOKENS_0123456789' });
  control = controlClient(dataDir, server.url);
  await control.call('profiles.save', { name: 'second', spec, auth: 'bearer' });
  assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 1_000 } })).applied, ['approvalReplyAfterMs']);
});

after(async () => {
  await server?.stop();
  await echo?.close();
  cleanup?.();
});

test('a client token lets its client in, over both revisions; list shows it without the token', { timeout: 90_000 }, async (t) => {
  const token = await makeToken('alice-laptop');
  const legacy = await httpClient(server.mcpUrl, token, 'alice-legacy');
  t.after(() => legacy.close());
  assert.equal((await execute(legacy, 'return (await custom.items.list()).status;')).text, '200');
  const modern = await modernWith(token, 'alice-modern');
  t.after(() => modern.close());
  assert.equal(textOf((await modern.callTool({ name: 'execute', arguments: { code: 'return 2;' } })) as Result), '2');
  const listed = await runCliToEnd(['clients', 'token', 'list', '--data-dir', dataDir]);
  assert.match(listed.stdout, /^alice-laptop {2}sha256:[0-9a-f]{12} {2}every API served/m);
  assert.ok(!listed.stdout.includes(token), 'the token is never listed');
  // A name is one client's: a second token under it is refused, saying what to do.
  const again = await runCliToEnd(['clients', 'token', 'add', 'alice-laptop', '--data-dir', dataDir]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /exists already.*revoke it first/s);
});

test("a token's scope comes with it: the client reaches its API only; a URL may narrow it, never widen it", { timeout: 90_000 }, async (t) => {
  const token = await makeToken('bob-ci', ['second']);
  const modern = await modernWith(token, 'bob');
  t.after(() => modern.close());
  const description = (await modern.listTools()).tools.find((tool) => tool.name === 'execute')?.description ?? '';
  assert.match(description, /\bsecond\b/);
  assert.doesNotMatch(description, /\bcustom\b/);
  const other = (await modern.callTool({ name: 'execute', arguments: { code: 'return typeof custom;' } })) as Result;
  assert.equal(textOf(other), 'undefined', 'the API outside the token is not in reach');
  // Widening through the URL is refused, over both revisions, saying why.
  const widened = await fetch(`${server.mcpUrl}?api=custom`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bob', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(widened.status, 400);
  const refusal = (await widened.json()) as { id: unknown; error: { message: string } };
  assert.equal(refusal.id, 3);
  assert.match(refusal.error.message, /the token of bob-ci reaches second only; the URL names custom too/);
  await assert.rejects(httpClient(`${server.mcpUrl}?api=custom`, token, 'bob-wide-legacy'), /reaches second only/);
});

test('a session opened with one token is not found with another, and a held run is not collected by another client', { timeout: 90_000 }, async (t) => {
  const carol = await makeToken('carol');
  const mallory = await makeToken('mallory');
  const client = await modernWith(carol, 'carol');
  t.after(() => client.close());
  const thief = await modernWith(mallory, 'carol'); // the same declared name: it labels, it never grants
  t.after(() => thief.close());
  const requested = waitForEvent(control, 'approval-requested');
  const first = (await client.callTool({
    name: 'execute',
    arguments: { code: `const r = await custom.items.create({ body: { name: 'carol' } }); return r.status;` },
  })) as Result;
  const { approval } = await requested;
  const held = first.structuredContent?.held as { id: string } | undefined;
  assert.ok(held, textOf(first));
  const stolen = (await thief.callTool({ name: 'execute', arguments: { resume: held.id } })) as Result;
  assert.equal(stolen.isError, true);
  assert.match(textOf(stolen), /no run/);
  await control.call('approvals.decide', { id: approval.id, decision: 'deny', scope: 'once', reason: 'test' });

  // A 2025 session: its id with another token finds nothing.
  const legacy = await httpClient(server.mcpUrl, carol, 'carol-legacy');
  t.after(() => legacy.close());
  await execute(legacy, 'return 1;');
  const sessionId = (legacy.transport as unknown as { sessionId?: string }).sessionId!;
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${mallory}`,
      'mcp-session-id': sessionId,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(response.status, 404);
});

test('a revoked token is refused at its next request, by the running companion', { timeout: 90_000 }, async () => {
  const token = await makeToken('dave');
  const before = await fetch(server.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  assert.notEqual(before.status, 401);
  const revoked = await runCliToEnd(['clients', 'token', 'revoke', 'dave', '--data-dir', dataDir]);
  assert.equal(revoked.code, 0, revoked.stderr);
  const after = await fetch(server.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(after.status, 401);
});

test(
  '"this client, until revoked" given to a client with its own token is bound to the token: it passes over either revision; another token declaring the same name is asked; revoking the token revokes it',
  { timeout: 90_000 },
  async (t) => {
    assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 60_000 } })).applied, ['approvalReplyAfterMs']);
    t.after(() => control.call('settings.update', { values: { approvalReplyAfterMs: 1_000 } }));
    const erin = await makeToken('erin');
    const other = await makeToken('mallory-2');
    const create = `return (await custom.items.create({ body: { name: 'erin' } })).status;`;
    const legacy = await httpClient(server.mcpUrl, erin, 'shared-name');
    t.after(() => legacy.close());
    const requested = waitForEvent(control, 'approval-requested');
    const first = execute(legacy, create);
    const { approval } = await requested;
    assert.equal(approval.request.caller.clientToken?.name, 'erin', 'the caller is its token, whatever it declares');
    await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'client-always' });
    assert.match((await first).text, /^2\d\d$/);
    const [grant] = (await control.call('grants.list', {})).filter((g) => g.scope === 'client-always');
    assert.equal(grant?.clientName, 'erin');
    assert.ok(grant?.clientTokenId, 'bound to the token');

    // The same token, a 2026-07-28 request with no session and another declared name: through, nobody asked.
    const modern = await modernWith(erin, 'yet-another-name');
    t.after(() => modern.close());
    const again = (await modern.callTool({ name: 'execute', arguments: { code: create } })) as Result;
    assert.match(textOf(again), /^2\d\d$/, 'let through by the grant');

    // Another token declaring the same name is asked.
    const thief = await httpClient(server.mcpUrl, other, 'shared-name');
    t.after(() => thief.close());
    const asked = waitForEvent(control, 'approval-requested');
    const stolen = execute(thief, `const r = await custom.items.create({ body: { name: 'mallory' } }); return r.error?.message ?? r.status;`);
    const { approval: theirs } = await asked;
    assert.equal(theirs.request.caller.clientToken?.name, 'mallory-2');
    await control.call('approvals.decide', { id: theirs.id, decision: 'deny', scope: 'once', reason: 'not erin' });
    assert.match((await stolen).text, /not erin/);

    // Revoked on the Clients screen's method: the grant goes with the token.
    const id = (await control.call('clientTokens.list', {})).find((v) => v.name === 'erin')!.id;
    await control.call('clientTokens.revoke', { id });
    assert.equal((await control.call('grants.list', {})).filter((g) => g.clientTokenId === id).length, 0);
  },
);
