// One companion serving several APIs at once, through real processes: two
// echo APIs (alpha and beta, each with its own key) beside the built-in demo.
// Sessions scoped with `?api=` see only their APIs; an unscoped one reaches
// each under its own name; one run calls three APIs, each call approved and
// audited under its API; no API's key ever reaches another's origin, even
// through a redirect; an API enabled or disabled while sessions are open is
// served, or refused, at their next call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serve, runCliToEnd, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec, type EchoApi } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** The promise, or a failure naming what did not come within the deadline. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
import type { ControlClient } from '../../main/core/control/controlClient.ts';

const KEY_A = 'sk_alpha_0123456789abcdefALPHA';
const KEY_B = 'sk_beta_0123456789abcdefBETAKEY';

interface Fixture {
  dir: string;
  alpha: EchoApi;
  beta: EchoApi;
  server: Served;
  control: ControlClient;
  clients: Client[];
  connect(scope?: string[], name?: string): Promise<Client>;
}

/** Writes an echo API's profile (bearer auth, mutations ask) into the data dir. */
function echoProfile(dir: string, name: string, url: string, extra: Record<string, unknown> = {}): void {
  const specDir = join(dir, `${name}-spec`);
  mkdirSync(specDir, { recursive: true });
  mkdirSync(join(dir, 'profiles'), { recursive: true });
  const spec = writeEchoSpec(specDir, url);
  writeFileSync(join(dir, 'profiles', `${name}.json`), JSON.stringify({ spec, auth: 'bearer', policy: 'ask', enabled: true, ...extra }, null, 2));
}

async function start(t: { after(fn: () => unknown): void }): Promise<Fixture> {
  const { dir, cleanup } = tempDir();
  const alpha = await startEchoApi();
  const beta = await startEchoApi();
  echoProfile(dir, 'alpha', alpha.url);
  echoProfile(dir, 'beta', beta.url);
  const server = await serve(dir, ['--secret-store', 'file']);
  const control = controlClient(dir, server.url);
  await control.call('keys.set', { profile: 'alpha', secret: KEY_A });
  await control.call('keys.set', { profile: 'beta', secret: KEY_B });
  const clients: Client[] = [];
  const fx: Fixture = {
    dir,
    alpha,
    beta,
    server,
    control,
    clients,
    async connect(scope, name = 'many-apis-test') {
      const url = new URL(server.mcpUrl);
      for (const api of scope ?? []) url.searchParams.append('api', api);
      const client = await httpClient(url.toString(), server.token, name);
      clients.push(client);
      return client;
    },
  };
  t.after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server.stop();
    await alpha.close();
    await beta.close();
    cleanup();
  });
  return fx;
}

const searchText = async (client: Client, query: string, api?: string) => {
  const r = await client.callTool({ name: 'search_docs', arguments: { query, ...(api ? { api } : {}) } });
  return {
    text: (r.content as { text: string }[])[0]!.text,
    isError: r.isError === true,
    results: (r.structuredContent as { results: { api: string; call: string }[] })?.results,
  };
};

test('apis list: the demo and the two profiles are served, each under its own name', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const apis = await fx.control.call('apis.list', {});
  const served = apis.filter((a) => a.state === 'ready').map((a) => `${a.name}:${a.operations}`);
  assert.deepEqual(served, ['alpha:19', 'beta:19', 'demo:7']);
  assert.equal(apis.find((a) => a.name === 'openagenda')?.state, 'disabled', 'the OpenAgenda preset is off until a person turns it on');
});

test('two clients scoped to different APIs see different APIs, and one scoped to A cannot reach B in any way', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const onlyAlpha = await fx.connect(['alpha'], 'alpha-only');
  const onlyDemo = await fx.connect(['demo'], 'demo-only');

  const alphaTools = await onlyAlpha.listTools();
  const demoTools = await onlyDemo.listTools();
  const describe = (tools: typeof alphaTools, name: string) => tools.tools.find((x) => x.name === name)!.description!;
  assert.match(describe(alphaTools, 'search_docs'), /Echo API documentation \(19 operations\)/);
  assert.match(describe(demoTools, 'search_docs'), /Demo Events API documentation \(7 operations\)/);

  // One API in reach: calls are written `api.…`, as before; the other APIs are not there at all.
  const alphaSearch = await searchText(onlyAlpha, 'list items');
  assert.ok(alphaSearch.results.length > 0);
  assert.ok(
    alphaSearch.results.every((r) => r.api === 'alpha' && r.call.startsWith('api.')),
    JSON.stringify(alphaSearch.results),
  );
  assert.doesNotMatch((await searchText(onlyAlpha, 'list events')).text, /events\.list/);
  assert.equal((await searchText(onlyAlpha, 'list items', 'beta')).isError, true, 'the api argument cannot widen the scope');

  const reach = await execute(onlyAlpha, 'return [typeof api, typeof alpha, typeof beta, typeof demo, (await api.items.list()).status];');
  assert.deepEqual(JSON.parse(reach.text), ['object', 'object', 'undefined', 'undefined', 200]);
  assert.equal(fx.alpha.received.at(-1)!.headers.authorization, `Bearer ${KEY_A}`);
  const demoReach = await execute(onlyDemo, 'return [typeof api, typeof demo, typeof alpha, (await api.events.list({ query: { limit: 1 } })).status];');
  assert.deepEqual(JSON.parse(demoReach.text), ['object', 'object', 'undefined', 200]);

  // Past the sandbox's client: an operation id naming another API reaches no gate of its.
  const beforeBeta = fx.beta.received.length;
  const forged = await execute(onlyAlpha, "return typeof beta === 'undefined' ? 'no beta' : 'beta';");
  assert.equal(forged.text, 'no beta');
  assert.equal(fx.beta.received.length, beforeBeta, 'beta saw nothing of the alpha-only session');
});

test("an unscoped session reaches every API under its name; search covers them all and names each result's API", { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const all = await fx.connect();
  const { tools } = await all.listTools();
  const description = tools.find((x) => x.name === 'execute')!.description!;
  assert.match(description, /`alpha` \(Echo, 19 operations\), `beta` \(Echo, 19 operations\), `demo` \(Airlock Demo Events API, 7 operations\)/);
  assert.ok(Buffer.byteLength(tools.find((x) => x.name === 'search_docs')!.description!) < 2048);

  const found = await searchText(all, 'list events');
  assert.equal(found.results[0]!.call, 'demo.events.list', 'the strong match in the small API comes first');
  assert.equal(found.results[0]!.api, 'demo');
  // The outline: an API's groups with their counts, then one group's operations with their exact calls.
  const outline = await all.callTool({ name: 'search_docs', arguments: { api: 'demo' } });
  const outlineText = (outline.content as { text: string }[])[0]!.text;
  assert.match(outlineText, /^Airlock Demo Events API: 7 operations in \d+ groups\./);
  const firstGroup = /^- ([^ ]+) \((\d+)\): /m.exec(outlineText)!;
  const group = await all.callTool({ name: 'search_docs', arguments: { api: 'demo', group: firstGroup[1] } });
  const listed = (group.structuredContent as { results: { call: string }[] }).results;
  assert.equal(listed.length, Number(firstGroup[2]));
  assert.ok(
    listed.every((r) => r.call.startsWith('demo.')),
    JSON.stringify(listed),
  );
  const onlyBeta = await searchText(all, 'list items', 'beta');
  assert.ok(
    onlyBeta.results.every((r) => r.api === 'beta' && r.call.startsWith('beta.')),
    JSON.stringify(onlyBeta.results),
  );

  const r = await execute(
    all,
    `const a = await alpha.items.list(); const b = await beta.items.list(); const d = await demo.events.list({ query: { limit: 1 } });
     return [typeof api, a.status, b.status, d.status];`,
  );
  assert.deepEqual(JSON.parse(r.text), ['undefined', 200, 200, 200]);
  assert.equal(fx.alpha.received.at(-1)!.headers.authorization, `Bearer ${KEY_A}`);
  assert.equal(fx.beta.received.at(-1)!.headers.authorization, `Bearer ${KEY_B}`);
});

test("a hostile script cannot send one API's key to another API's origin, directly or through a redirect", { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const all = await fx.connect();
  const betaItems = `${fx.beta.url}/items`;
  const r = await execute(
    all,
    `const out = [];
     out.push((await alpha.bounce.get({ path: { status: 302 }, query: { to: ${JSON.stringify(betaItems)} } })).status);
     out.push((await alpha.items.list({ headers: { host: ${JSON.stringify(new URL(fx.beta.url).host)} } })).status);
     out.push((await beta.items.list({ headers: { authorization: 'Bearer stolen' } })).status);
     return out;`,
  );
  assert.equal(r.isError, false, r.text);
  for (const received of fx.beta.received) {
    assert.ok(!JSON.stringify(received.headers).includes(KEY_A), `beta received alpha's key: ${JSON.stringify(received.headers)}`);
  }
  for (const received of fx.alpha.received) {
    assert.ok(!JSON.stringify(received.headers).includes(KEY_B), `alpha received beta's key: ${JSON.stringify(received.headers)}`);
  }
  assert.ok(!r.text.includes(KEY_A) && !r.text.includes(KEY_B), 'no key in the answer');
});

test('one execute calls three APIs: each mutation is approved and audited under its own API', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const all = await fx.connect(undefined, 'three-apis');
  const asked: string[] = [];
  const approveEach = (async () => {
    for (let i = 0; i < 3; i++) {
      const event = await waitForEvent(fx.control, 'approval-requested', (e) => !asked.includes(e.approval.id), 60_000);
      asked.push(event.approval.id);
      assert.equal(event.approval.request.operationId.includes(':'), false, 'the person sees the operation as its API names it');
      await fx.control.call('approvals.decide', { id: event.approval.id, decision: 'approve', scope: 'once' });
    }
  })();
  const run = execute(
    all,
    `const a = await alpha.items.create({ body: { n: 1 } });
     const b = await beta.items.create({ body: { n: 2 } });
     const d = await demo.events.create({ body: { title: 'three apis', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });
     return [a.status, b.status, d.status];`,
  );
  await approveEach;
  const result = await run;
  assert.deepEqual(JSON.parse(result.text), [201, 201, 201]);
  const decided = await fx.control.call('approvals.answered', { limit: 10 });
  assert.deepEqual(decided.map((d) => d.profile).sort(), ['alpha', 'beta', 'demo']);
  const audit = await fx.control.call('audit.query', { limit: 50 });
  // Each held call is recorded when held (pending) and again with its outcome, under its own API both times.
  const calls = (decision: string) =>
    audit.records.flatMap((r) => (r.kind === 'api' && r.method === 'POST' && r.decision === decision ? [`${r.profile} ${r.operationId}`] : [])).sort();
  assert.deepEqual(calls('approved'), ['alpha items.create', 'beta items.create', 'demo events.create']);
  assert.deepEqual(calls('pending'), ['alpha items.create', 'beta items.create', 'demo events.create']);
});

test('an API enabled while a client is connected is searched and called at its next call; one disabled is refused', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  await fx.control.call('apis.disable', { name: 'beta' });
  const onlyBeta = await fx.connect(['beta'], 'beta-only');
  const all = await fx.connect(undefined, 'everything');
  const refused = await execute(onlyBeta, 'return 1');
  assert.equal(refused.isError, true);
  assert.match(refused.text, /not served: beta\. The person running Airlock can enable it \(`airlock apis enable beta`/);

  const described = (await all.listTools()).tools.find((x) => x.name === 'execute')!.description!;
  assert.doesNotMatch(described, /`beta`/);
  const told = new Promise<void>((resolve) => all.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  const enabled = await fx.control.call('apis.enable', { name: 'beta' });
  assert.equal(enabled.state, 'ready');
  await within(told, 20_000, 'notifications/tools/list_changed after an API was enabled');
  assert.match((await all.listTools()).tools.find((x) => x.name === 'execute')!.description!, /`beta` \(Echo, 19 operations\)/);
  assert.equal((await searchText(all, 'list items', 'beta')).results[0]!.api, 'beta');
  assert.deepEqual(JSON.parse((await execute(onlyBeta, 'return (await api.items.list()).status;')).text), 200);
  assert.deepEqual(JSON.parse((await execute(all, 'return (await beta.items.list()).status;')).text), 200);

  await fx.control.call('apis.disable', { name: 'beta' });
  const after = await execute(onlyBeta, 'return (await api.items.list()).status;');
  assert.equal(after.isError, true);
  assert.match(after.text, /not served: beta/);
  const list = await fx.control.call('apis.list', {});
  assert.deepEqual(
    list.filter((a) => ['alpha', 'beta'].includes(a.name)).map((a) => [a.name, a.enabled, a.state]),
    [
      ['alpha', true, 'ready'],
      ['beta', false, 'disabled'],
    ],
  );
});

/** A client that spawns `airlock stdio` with these arguments, as a registration would. */
async function stdioClient(t: { after(fn: () => unknown): void }, args: string[]): Promise<McpClient> {
  const client = new McpClient({ name: 'stdio-scoped', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, 'stdio', ...args],
    cwd: ROOT,
    stderr: 'pipe',
    env: process.env as Record<string, string>,
  });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

test('stdio --api scopes its session, joined to the companion or in process; --profile of a served API does the same', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const joined = await stdioClient(t, ['--data-dir', fx.dir, '--api', 'alpha']);
  const { tools } = await joined.listTools();
  assert.match(tools.find((x) => x.name === 'search_docs')!.description!, /Echo API documentation \(19 operations\)/);
  assert.deepEqual(JSON.parse((await execute(joined, 'return [typeof demo, typeof beta, (await api.items.list()).status];')).text), [
    'undefined',
    'undefined',
    200,
  ]);
  assert.equal(fx.alpha.received.at(-1)!.headers.authorization, `Bearer ${KEY_A}`);

  const byProfile = await stdioClient(t, ['--data-dir', fx.dir, '--profile', 'beta']);
  assert.deepEqual(JSON.parse((await execute(byProfile, 'return [typeof alpha, (await api.items.list()).status];')).text), ['undefined', 200]);
  assert.equal(fx.beta.received.at(-1)!.headers.authorization, `Bearer ${KEY_B}`);

  const inProcess = await stdioClient(t, ['--data-dir', fx.dir, '--in-process', '--secret-store', 'file', '--api', 'beta']);
  // Initialize is answered while the APIs load: the instructions name the API in reach all the same.
  assert.match(inProcess.getInstructions() ?? '', /the (beta API \(loading\)|Echo API \(19 operations\))/);
  assert.deepEqual(JSON.parse((await execute(inProcess, 'return [typeof alpha, typeof demo, (await beta.items.list()).status];')).text), [
    'undefined',
    'undefined',
    200,
  ]);
});

test('airlock apis add reads the document first and serves it at once; show, disable and remove follow', { timeout: 120_000 }, async (t) => {
  const fx = await start(t);
  const all = await fx.connect(undefined, 'already-connected');
  const gamma = await startEchoApi();
  t.after(() => gamma.close());
  const specDir = join(fx.dir, 'gamma-spec');
  mkdirSync(specDir, { recursive: true });
  const spec = writeEchoSpec(specDir, gamma.url);
  const broken = join(specDir, 'broken.yaml');
  writeFileSync(broken, 'openapi: 3.1.0\ninfo:\n  title: Broken\n  version: "1"\npaths:\n  /x: [unclosed\n');

  const bad = await runCliToEnd(['apis', 'add', 'broken', '--spec', broken, '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /line \d+, column \d+|:\d+:\d+/, bad.stderr);
  assert.equal(
    (await fx.control.call('apis.list', {})).some((a) => a.name === 'broken'),
    false,
    'nothing saved',
  );

  const added = await runCliToEnd(['apis', 'add', 'gamma-api', '--spec', spec, '--auth', 'none', '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /^gamma-api: Echo 1, 19 operations; served: 19 operations/m);
  // The client connected before it sees it at its next call, under its derived name.
  assert.equal((await searchText(all, 'list items', 'gamma-api')).results[0]!.call, 'gamma_api.items.list');
  assert.deepEqual(JSON.parse((await execute(all, 'return (await gamma_api.items.list()).status;')).text), 200);

  const shown = await runCliToEnd(['apis', 'show', 'gamma-api', '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.match(shown.stdout, /in execute +gamma_api/);
  assert.match(shown.stdout, /state +served: 19 operations/);

  const off = await runCliToEnd(['apis', 'disable', 'gamma-api', '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.equal(off.code, 0, off.stderr);
  assert.match((await execute(all, 'return typeof gamma_api;')).text, /undefined/);
  const removed = await runCliToEnd(['apis', 'remove', 'gamma-api', '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.equal(removed.code, 0, removed.stderr);
  const listed = await runCliToEnd(['apis', 'list', '--json', '--data-dir', fx.dir], { timeoutMs: 30_000 });
  assert.deepEqual(
    (JSON.parse(listed.stdout) as { name: string }[]).map((a) => a.name),
    ['alpha', 'beta', 'demo', 'openagenda'],
  );
});
