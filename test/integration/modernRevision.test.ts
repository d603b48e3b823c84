// MCP 2026-07-28 over HTTP, beside 2025-11-25 on the same /mcp (issue 38 §1,
// §2): the v2 SDK's client, pinned to the modern revision and negotiating it
// (`auto`: server/discover first), lists the tools, searches and runs code
// with no session; a mutation held for a person is collected with
// `execute {resume}` by the same credential and scope, and by no other; a
// request naming a revision the server does not speak gets the error under
// its own id; and a 2025 client (v1 SDK, initialize and a session) works on
// the same endpoint as before. Where the person allows it, a held mutation is
// asked in the client too (input_required, a sealed requestState); progress
// keeps a modern client's call alive past its idle limit. Over stdio — joined
// to the companion, and in process — the revision is the one the client
// opens with, and a modern client's caller is its pipe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, NODE, ROOT } from '../helpers/paths.ts';
import { runCliToEnd, serve, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { startEchoApi, writeEchoSpec, type EchoApi } from '../helpers/echoApi.ts';
import { tempDir } from '../helpers/paths.ts';
import { heldCallWithProgress } from '../helpers/clientClock.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';

const MODERN = '2026-07-28';
let echo: EchoApi;
let server: Served;
let control: ControlClient;
let cleanup: () => void;
let dataDir: string;
let spec: string;

type Result = { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const textOf = (r: Result) => r.content?.find((c) => c.type === 'text')?.text ?? '';

async function modernClient(mode: 'auto' | 'legacy' | { pin: string }, name: string, url = server.mcpUrl): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '2.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new ModernHttpTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }));
  return client;
}

/** The v2 client over `airlock stdio` (auto: server/discover first), its stderr kept for failure messages. */
async function modernStdioClient(name: string, args: string[], env: Record<string, string> = {}): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new ModernStdioTransport({
    command: NODE,
    args: [CLI, 'stdio', ...args],
    cwd: ROOT,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...env },
  });
  await client.connect(transport);
  return client;
}

/**
 * A mutation `client` (declaring `name`) runs is held for a person (answered "held" after 1 s): `other` presenting its
 * id is told there is no such run; once approved, `client` collects it, and exactly one mutation reached the API.
 */
async function heldRunIsItsCallers(client: ModernClient, other: ModernClient, name: string): Promise<void> {
  const before = echo.received.filter((r) => r.method !== 'GET').length;
  const requested = waitForEvent(control, 'approval-requested', (e) => e.approval.request.caller.clientName === name);
  const first = (await client.callTool({
    name: 'execute',
    arguments: { code: `return (await api.items.create({ body: { name: '${name}' } })).status;` },
  })) as Result;
  const { approval } = await requested;
  assert.equal(approval.request.caller.protocolVersion, MODERN);
  const held = first.structuredContent?.held as { id: string } | undefined;
  assert.ok(held, `answered "held": ${textOf(first)}`);
  const stolen = (await other.callTool({ name: 'execute', arguments: { resume: held.id } })) as Result;
  assert.equal(stolen.isError, true);
  assert.match(textOf(stolen), /no run/);
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  const resumed = (await client.callTool({ name: 'execute', arguments: { resume: held.id } })) as Result;
  assert.equal(textOf(resumed), '201', textOf(resumed));
  assert.equal(echo.received.filter((r) => r.method !== 'GET').length, before + 1, 'exactly one mutation reached the API');
}

/** One raw JSON-RPC POST to /mcp with the token, as a client that writes its own requests. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  return { status: response.status, json: JSON.parse(data) as Record<string, unknown> };
}

const envelope = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

type RawAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

/** One request of the 2026-07-28 revision as a client that writes its own sends it: the routing headers, its envelope in `params._meta`; `url`: another scope (another caller). */
async function modernRequest(request: { id: number; method: string; name: string; params: Record<string, unknown> }, url?: string): Promise<RawAnswer> {
  const response = await fetch(url ?? server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': request.method,
      'mcp-name': request.name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: request.id, method: request.method, params: request.params }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as RawAnswer;
}

before(async () => {
  const made = tempDir();
  cleanup = made.cleanup;
  dataDir = made.dir;
  echo = await startEchoApi();
  spec = writeEchoSpec(made.dir, echo.url);
  server = await serve(made.dir, ['--spec', spec, '--auth', 'bearer'], { AIRLOCK_API_KEY: 'sk_test_MODERN_0123456789' });
  control = controlClient(made.dir, server.url);
  // A held call is answered "held" after 1 s (a live setting), so the test collects it with resume.
  assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 1_000 } })).applied, ['approvalReplyAfterMs']);
});

after(async () => {
  await server?.stop();
  await echo?.close();
  cleanup?.();
});

test(
  'server/discover names the modern revision (2025 ones are offered by initialize); the answer carries the request id and the server info',
  { timeout: 60_000 },
  async () => {
    const discover = { jsonrpc: '2.0', id: 'd-1', method: 'server/discover', params: { _meta: envelope(MODERN) } };
    const { status, json } = await post(discover, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.id, 'd-1');
    const result = json.result as { supportedVersions?: string[]; capabilities?: { tools?: unknown }; _meta?: Record<string, { name?: string }> };
    assert.ok(result.supportedVersions?.includes(MODERN), JSON.stringify(result));
    assert.equal(result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'airlock');
    assert.ok(result.capabilities?.tools);
    // The revision's HTTP rule: the header must name the version the body does; without it, refused under the id.
    const bare = await post(discover);
    assert.equal(bare.status, 400);
    assert.equal(bare.json.id, 'd-1');
    assert.match(JSON.stringify(bare.json.error), /MCP-Protocol-Version/);
  },
);

test('a revision the server does not speak is refused under the request id, naming the ones it speaks', { timeout: 60_000 }, async () => {
  const { json } = await post(
    { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
    { 'mcp-protocol-version': '2099-01-01' },
  );
  assert.equal(json.id, 7);
  const error = json.error as { code: number; message: string; data?: { supported?: string[]; requested?: string } };
  assert.ok(error, JSON.stringify(json));
  assert.match(JSON.stringify(error.data), /2026-07-28/);
  assert.equal(error.data?.requested, '2099-01-01');
});

test('pinned to 2026-07-28, the v2 client lists the tools, searches and runs code, with no session', { timeout: 90_000 }, async (t) => {
  const client = await modernClient({ pin: MODERN }, 'modern-pinned');
  t.after(() => client.close());
  const listed = await client.listTools();
  const { tools } = listed;
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('search_docs') && names.includes('execute'), names.join(', '));
  // Cache hints: the list is this credential's (private) and changes without notice to a client not listening (no reuse).
  assert.deepEqual([listed.ttlMs, listed.cacheScope], [0, 'private']);
  const search = (await client.callTool({ name: 'search_docs', arguments: { query: 'list items' } })) as Result;
  assert.match(textOf(search), /items\.list/);
  const run = (await client.callTool({ name: 'execute', arguments: { code: 'return (await api.items.list()).status;' } })) as Result;
  assert.equal(textOf(run), '200', textOf(run));
  // A request's server registers only the tool it calls: each kind of tool is there when called (a diagnostics one too).
  const health = (await client.callTool({ name: 'health', arguments: {} })) as Result;
  assert.equal(health.isError, undefined, textOf(health));
  assert.match(textOf(health), /"version"/);
  // Recorded in the audit like any call, labelled with the name the client declared.
  const calls = await control.call('audit.query', { limit: 20 });
  assert.ok(
    calls.records.some((r) => 'tool' in r && r.tool === 'execute' && 'clientName' in r && r.clientName === 'modern-pinned'),
    'the execute call is audited under the declared name',
  );
});

test('auto: the v2 client negotiates 2026-07-28 through server/discover', { timeout: 60_000 }, async (t) => {
  const client = await modernClient('auto', 'modern-auto');
  t.after(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion?.(), MODERN);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'execute'));
});

test(
  'a held mutation is collected with resume by the same credential and scope; another scope gets "no run", and nothing is sent twice',
  { timeout: 90_000 },
  async (t) => {
    const client = await modernClient({ pin: MODERN }, 'modern-held');
    t.after(() => client.close());
    const other = await modernClient({ pin: MODERN }, 'modern-other', `${server.mcpUrl}?api=custom`);
    t.after(() => other.close());
    // Another scope is another caller: it cannot collect the run, whoever it says it is.
    await heldRunIsItsCallers(client, other, 'modern-held');
  },
);

test(
  'a 2026-07-28 client that declares the Tasks extension gets a task for a held mutation: "waiting for your approval", then the result; only its caller can read or cancel it',
  { timeout: 120_000 },
  async () => {
    const TASKS = 'io.modelcontextprotocol/tasks';
    const withTasks = { ...envelope(MODERN), 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
    const posts = () => echo.received.filter((r) => r.method === 'POST').length;
    let id = 100;
    /** One request of the revision, its routing headers as the extension requires; `url` another scope (another caller). */
    const ask = (method: string, params: Record<string, unknown>, name: string, meta: object = withTasks, url?: string) =>
      modernRequest({ id: ++id, method, name, params: { ...params, _meta: meta } }, url);
    const run = (code: string) => ask('tools/call', { name: 'execute', arguments: { code } }, 'execute');
    const task = (method: string, taskId: string, meta?: object, url?: string) => ask(method, { taskId }, taskId, meta, url);
    /** Polls the task as a client does (its pollIntervalMs) until it is no longer working. */
    const settled = async (taskId: string, pollMs: number) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const got = await task('tasks/get', taskId);
        if (got.result?.status !== 'working') return got;
        assert.ok(Date.now() < deadline, `task ${taskId} still working after 30 s: ${JSON.stringify(got)}`);
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    };

    // The server says it offers the extension.
    const discover = await ask('server/discover', {}, 'server/discover');
    assert.deepEqual((discover.result?.capabilities as { extensions?: object })?.extensions, { [TASKS]: {} }, JSON.stringify(discover));
    // A run that needs no person is answered at once, as ever.
    const quick = await run('return 1 + 1;');
    assert.equal(quick.result?.resultType, 'complete', JSON.stringify(quick));
    assert.equal(quick.result?.taskId, undefined);

    const before = posts();
    const requested = waitForEvent(control, 'approval-requested', (e) => e.approval.request.caller.clientName === 'raw-client');
    const created = await run(`return (await api.items.create({ body: { name: 'tasked' } })).status;`);
    const { approval } = await requested;
    const made = created.result as { resultType?: string; taskId?: string; status?: string; statusMessage?: string; ttlMs?: number; pollIntervalMs?: number };
    assert.equal(made?.resultType, 'task', JSON.stringify(created));
    assert.equal(made.status, 'working');
    assert.match(made.statusMessage ?? '', /^Waiting for your approval in Airlock: POST \/items/);
    assert.ok(made.ttlMs! >= 30 * 60_000 && made.pollIntervalMs! > 0, JSON.stringify(made));
    assert.equal((created.result as { structuredContent?: unknown }).structuredContent, undefined, 'not answered "held"');
    const taskId = made.taskId!;
    const waiting = await task('tasks/get', taskId);
    assert.equal(waiting.result?.status, 'working');
    assert.match(String(waiting.result?.statusMessage), /Waiting for your approval in Airlock/);

    // Another caller (another scope) is told there is no such task, and the attempt is recorded; a request that does
    // not declare the extension is refused with the error that names it.
    const stolen = await task('tasks/get', taskId, withTasks, `${server.mcpUrl}?api=custom`);
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    const cancelled = await task('tasks/cancel', taskId, withTasks, `${server.mcpUrl}?api=custom`);
    assert.equal(cancelled.error?.code, -32602, JSON.stringify(cancelled));
    const undeclared = await task('tasks/get', taskId, envelope(MODERN));
    assert.equal(undeclared.error?.code, -32021, JSON.stringify(undeclared));
    const audit = await control.call('audit.query', { tool: 'execute', order: 'newest', limit: 10 });
    assert.ok(
      audit.records.some((r) => JSON.stringify(r).includes("named another client's task")),
      'the foreign read is in the audit',
    );

    await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
    const done = await settled(taskId, made.pollIntervalMs!);
    assert.equal(done.result?.status, 'completed', JSON.stringify(done));
    assert.deepEqual((done.result?.result as Result).content, [{ type: 'text', text: '201' }]);
    assert.equal(posts(), before + 1, 'exactly one mutation reached the API');

    // Cancelled while the person has not decided: the task ends "cancelled"; the request stays for the person, marked.
    const second = waitForEvent(control, 'approval-requested', (e) => e.approval.request.caller.clientName === 'raw-client');
    const other = (await run(`return (await api.items.create({ body: { name: 'cancelled' } })).status;`)).result as { taskId?: string };
    const pending = (await second).approval;
    const ack = (await task('tasks/cancel', other.taskId!)).result;
    assert.deepEqual([ack?.resultType, ack?.status, ack?.taskId], ['complete', undefined, undefined], 'an empty acknowledgement');
    assert.equal((await task('tasks/get', other.taskId!)).result?.status, 'cancelled');
    const marked = (await control.call('approvals.list', {})).find((p) => p.id === pending.id);
    assert.ok(marked?.clientStoppedWaitingAt, JSON.stringify(marked));
    await control.call('approvals.decide', { id: pending.id, decision: 'deny', scope: 'once', reason: 'cleanup' });
    assert.equal(posts(), before + 1, 'the cancelled one sent nothing');
  },
);

test('a 2025 client on the same endpoint: initialize, a session, and execute as before', { timeout: 60_000 }, async (t) => {
  const client = await httpClient(server.mcpUrl, server.token, 'legacy-client');
  t.after(() => client.close());
  const out = await execute(client, 'return (await api.items.list()).status;');
  assert.equal(out.text, '200');
});

test('the Overview (status) and `airlock doctor` say which revision each connected client speaks', { timeout: 90_000 }, async (t) => {
  const legacy = await httpClient(server.mcpUrl, server.token, 'legacy-revision');
  t.after(() => legacy.close());
  await execute(legacy, 'return 1;');
  const modern = await modernClient({ pin: MODERN }, 'modern-revision');
  t.after(() => modern.close());
  await modern.callTool({ name: 'execute', arguments: { code: 'return 1;' } });
  const { sessions } = await control.call('status', {});
  assert.equal(sessions.find((c) => c.clientName === 'legacy-revision')?.protocolVersion, '2025-11-25', JSON.stringify(sessions));
  // A modern client is its credential and scope: one entry for this token, unscoped, however many names it declares.
  const credential = sessions.filter((c) => c.key.startsWith('http:credential:') && !c.key.includes(':api='));
  assert.equal(credential.length, 1, JSON.stringify(sessions));
  assert.equal(credential[0]!.protocolVersion, MODERN);
  const doctor = await runCliToEnd(['doctor', '--data-dir', dataDir]);
  assert.match(doctor.stdout, /clients +\d+ connected: .*legacy-revision 1\.0\.0 over http, MCP 2025-11-25/);
  assert.match(doctor.stdout, /over http, MCP 2026-07-28/);
});

for (const [over, api, connect] of [
  ['HTTP', 'second', () => modernClient({ pin: MODERN }, 'modern-listener')],
  // Over joined stdio one server serves the connection: its tools are described again, not built per request.
  ['joined stdio', 'third', () => modernStdioClient('modern-stdio-listener', ['--data-dir', dataDir])],
] as const)
  test(
    `a 2026-07-28 client listening (subscriptions/listen) over ${over} hears that the tools changed when an API is added and switched off`,
    { timeout: 60_000 },
    async (t) => {
      const client = await connect();
      t.after(() => client.close());
      let told = 0;
      let heard: (() => void) | undefined;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        told++;
        heard?.();
      });
      const subscription = await client.listen({ toolsListChanged: true });
      t.after(() => subscription.close());
      assert.equal(subscription.honoredFilter.toolsListChanged, true);
      const next = () =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no tools/list_changed within 20 s (${told} so far)`)), 20_000);
          heard = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      // Listed twice before the change (over HTTP the second answer is the one kept for this caller): the same, and
      // without the API; after each change, what is served now.
      const first = await client.listTools();
      assert.deepEqual(await client.listTools(), first);
      assert.doesNotMatch(first.tools.find((tool) => tool.name === 'execute')?.description ?? '', new RegExp(`\\b${api}\\b`));
      const added = next();
      await control.call('profiles.save', { name: api, spec, auth: 'bearer' });
      await added;
      // Each change is told, and the tools listed then describe what is served now.
      const both = (await client.listTools()).tools.find((tool) => tool.name === 'execute')?.description ?? '';
      assert.match(both, new RegExp(`\\b${api}\\b`));
      const off = next();
      await control.call('apis.disable', { name: api });
      await off;
      const one = (await client.listTools()).tools.find((tool) => tool.name === 'execute')?.description ?? '';
      assert.doesNotMatch(one, new RegExp(`\\b${api}\\b`));
    },
  );

test(
  'where the person allows it, a held mutation is asked in the 2026-07-28 client too (input_required): its answer decides, once; a sealed state altered, or brought by another caller, decides nothing',
  { timeout: 90_000 },
  async (t) => {
    const posts = () => echo.received.filter((r) => r.method === 'POST').length;
    const create = (name: string) => `const r = await api.items.create({ body: { name: '${name}' } }); return r.error?.message ?? r.status;`;
    const capable = { ...envelope(MODERN), 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
    const call = (params: Record<string, unknown>, url?: string) =>
      modernRequest(
        { id: 7, method: 'tools/call', name: 'execute', params: { name: 'execute', arguments: { code: create('raw') }, _meta: capable, ...params } },
        url,
      );
    // Off (the default): a client that offers elicitation is answered "held", as any other.
    const heldOff = waitForEvent(control, 'approval-requested');
    const off = await call({});
    assert.notEqual(off.result?.resultType, 'input_required');
    assert.ok((off.result?.structuredContent as { held?: unknown } | undefined)?.held, JSON.stringify(off));
    await control.call('approvals.decide', { id: (await heldOff).approval.id, decision: 'deny', scope: 'once', reason: 'off' });

    assert.deepEqual((await control.call('settings.update', { values: { approvalInClient: true } })).applied, ['approvalInClient']);
    t.after(() => control.call('settings.update', { values: { approvalInClient: false } }));

    // The v2 client answers the question with its own elicitation handler, inside one callTool.
    const asked: string[] = [];
    const client = new ModernClient(
      { name: 'asking-client', version: '1' },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: unknown }).message));
      return { action: 'accept', content: { decision: 'allow' } };
    });
    await client.connect(new ModernHttpTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }));
    t.after(() => client.close());
    const before = posts();
    const allowed = (await client.callTool({ name: 'execute', arguments: { code: create('asked-in-client') } })) as Result;
    assert.equal(textOf(allowed), '201', textOf(allowed));
    assert.equal(asked.length, 1, 'asked once');
    assert.match(asked[0]!, /asking-client asks to run POST \/items .*Airlock asks you here too.* No answer within \d+ (min|s)/);
    assert.equal(posts(), before + 1, 'exactly one mutation reached the API');
    const decided = await control.call('audit.query', { order: 'newest', limit: 10 });
    assert.ok(
      decided.records.some((r) => JSON.stringify(r).includes('asking-client in its own prompt (MCP input_required)')),
      "the approval is recorded as the client person's",
    );

    // A raw client: the state it is given, altered, is refused by the server; brought by another caller (another scope), it decides nothing.
    const requested = waitForEvent(control, 'approval-requested');
    const first = await call({});
    const { approval } = await requested;
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    // Asked in the client, it is waiting for that answer: Airlock's prompt does not say the client stopped waiting.
    const asking = (await control.call('approvals.list', {})).find((p) => p.id === approval.id);
    assert.equal(asking?.clientStoppedWaitingAt, undefined, JSON.stringify(asking));
    const state = String(first.result?.requestState);
    const yes = { approval: { action: 'accept', content: { decision: 'allow' } } };
    const altered = await call({ requestState: `${state.slice(0, -2)}${state.endsWith('A') ? 'BB' : 'AA'}`, inputResponses: yes });
    assert.equal(altered.error?.code, -32602);
    assert.match(altered.error?.message ?? '', /Invalid or expired requestState/);
    const refusals = await control.call('audit.query', { tool: 'execute', order: 'newest', limit: 5 });
    assert.ok(
      refusals.records.some((r) => JSON.stringify(r).includes('a requestState was refused (mac)')),
      'the refusal is in the audit',
    );
    const other = await call({ requestState: state, inputResponses: yes }, `${server.mcpUrl}?api=custom`);
    assert.match(JSON.stringify(other.result), /not this client's/);
    const pending = await control.call('approvals.list', {});
    assert.ok(
      pending.some((p) => p.id === approval.id),
      'still waiting for a person: neither answer decided it',
    );
    await control.call('approvals.decide', { id: approval.id, decision: 'deny', scope: 'once', reason: 'cleanup' });
  },
);

test(
  'progress keeps a 2026-07-28 client waiting for a person past its idle limit, as a 2025 one: told at once and then every second, it gets the result',
  { timeout: 90_000 },
  async (t) => {
    const patient = { approvalReplyAfterMs: 60_000, approvalProgressEveryMs: 1_000 };
    assert.deepEqual((await control.call('settings.update', { values: patient })).applied.sort(), Object.keys(patient).sort());
    t.after(() => control.call('settings.update', { values: { approvalReplyAfterMs: 1_000, approvalProgressEveryMs: 10_000 } }));
    const client = await modernClient({ pin: MODERN }, 'modern-patient');
    t.after(() => client.close());
    const requested = waitForEvent(control, 'approval-requested');
    // Idle limit 12 s, reset by each progress notification; the client's 12 s pass on its own clock (as in
    // heldRuns.test.ts): each time a message sets its deadline again, the clock moves to 1 ms before it.
    const IDLE_MS = 12_000;
    const { result, messages, waitedMs } = await heldCallWithProgress(
      IDLE_MS,
      (options) =>
        client.callTool(
          { name: 'execute', arguments: { code: `const r = await api.items.create({ body: { name: 'patient' } }); return r.status;` } },
          options,
        ) as Promise<Result>,
      () => requested.then(({ approval }) => control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' })),
    );
    assert.ok(waitedMs >= 2 * IDLE_MS, `it waited past twice its idle limit (${waitedMs} ms of the client's clock)`);
    assert.equal(textOf(result), '201', textOf(result));
    assert.ok(messages.length >= 3, `told at once and then every second (${messages.length} messages)`);
    assert.ok(
      messages.every((m) => m === 'Waiting for your approval in Airlock: POST /items'),
      messages.join(' | '),
    );
  },
);

test(
  'search_docs needs nothing from an earlier request: related, an outline and one of its groups, each a request of its own',
  { timeout: 60_000 },
  async (t) => {
    const client = await modernClient({ pin: MODERN }, 'modern-stateless');
    t.after(() => client.close());
    const related = (await client.callTool({ name: 'search_docs', arguments: { related: 'items.get' } })) as Result;
    assert.notEqual(related.isError, true, textOf(related));
    assert.match(textOf(related), /items\.list/, 'the list that yields the ids items.get takes');
    const outline = (await client.callTool({ name: 'search_docs', arguments: { api: 'custom' } })) as Result;
    assert.notEqual(outline.isError, true, textOf(outline));
    const group = /^- (.+?) \(\d+\):/m.exec(textOf(outline))?.[1];
    assert.ok(group, `the outline names its groups: ${textOf(outline).slice(0, 300)}`);
    const listed = (await client.callTool({ name: 'search_docs', arguments: { api: 'custom', group } })) as Result;
    assert.notEqual(listed.isError, true, textOf(listed));
    assert.match(textOf(listed), new RegExp(`operations of Echo in ${group}`));
  },
);

for (const [mode, revision] of [
  ['auto', MODERN],
  ['legacy', '2025-11-25'],
] as const) {
  test(
    `the v2 client in ${mode} mode (${revision}) lists the tools, searches, and runs an execute that waits for an approval`,
    { timeout: 90_000 },
    async (t) => {
      assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 60_000 } })).applied, ['approvalReplyAfterMs']);
      t.after(() => control.call('settings.update', { values: { approvalReplyAfterMs: 1_000 } }));
      const client = await modernClient(mode, `v2-${mode}`);
      t.after(() => client.close());
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'execute'));
      assert.match(textOf((await client.callTool({ name: 'search_docs', arguments: { query: 'create an item' } })) as Result), /items\.create/);
      const requested = waitForEvent(control, 'approval-requested', (e) => e.approval.request.caller.clientName === `v2-${mode}`);
      const run = client.callTool({
        name: 'execute',
        arguments: { code: `return (await api.items.create({ body: { name: '${mode}' } })).status;` },
      }) as Promise<Result>;
      const { approval } = await requested;
      assert.equal(approval.request.caller.protocolVersion, revision, 'the revision it speaks, as the prompt knows it');
      await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
      assert.equal(textOf(await run), '201');
    },
  );
}

test(
  'joined stdio at 2026-07-28: the v2 client negotiates it, runs code, is listed with its revision, and a held run is collected by its own pipe and by no other',
  { timeout: 120_000 },
  async (t) => {
    const client = await modernStdioClient('v2-stdio-joined', ['--data-dir', dataDir]);
    t.after(() => client.close());
    assert.equal(client.getNegotiatedProtocolVersion?.(), MODERN);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'search_docs') && tools.some((tool) => tool.name === 'execute'));
    const run = (await client.callTool({ name: 'execute', arguments: { code: 'return (await api.items.list()).status;' } })) as Result;
    assert.equal(textOf(run), '200', textOf(run));
    const { sessions } = await control.call('status', {});
    const listed = sessions.find((c) => c.clientName === 'v2-stdio-joined');
    assert.equal(listed?.transport, 'stdio', JSON.stringify(sessions));
    assert.equal(listed?.protocolVersion, MODERN);

    // A held mutation (answered "held" after 1 s) belongs to this pipe: another pipe, whatever it declares, gets "no run".
    const other = await modernStdioClient('v2-stdio-joined', ['--data-dir', dataDir]);
    t.after(() => other.close());
    await heldRunIsItsCallers(client, other, 'v2-stdio-joined');
  },
);

test('stdio in process at 2026-07-28: the v2 client negotiates it, lists the tools and runs code', { timeout: 120_000 }, async (t) => {
  const own = tempDir();
  t.after(() => own.cleanup());
  const client = await modernStdioClient('v2-stdio-in-process', ['--in-process', '--data-dir', own.dir, '--spec', spec, '--auth', 'bearer'], {
    AIRLOCK_API_KEY: 'sk_test_MODERN_0123456789',
  });
  t.after(() => client.close());
  assert.equal(client.getNegotiatedProtocolVersion?.(), MODERN);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'execute'));
  const search = (await client.callTool({ name: 'search_docs', arguments: { query: 'list items' } })) as Result;
  assert.match(textOf(search), /items\.list/);
  const run = (await client.callTool({ name: 'execute', arguments: { code: 'return (await api.items.list()).status;' } })) as Result;
  assert.equal(textOf(run), '200', textOf(run));
});
