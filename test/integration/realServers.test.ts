// Real MCP servers from npm behind Airlock (issue 20): the official
// filesystem server (the worked example of docs/servers.md: a write held for
// a person, made exactly once when allowed, never when denied; reads run at
// once) and the "everything" server (structured content, progress, the
// environment a server is given). Both are dev dependencies, started the way
// a person's entry starts them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serve, runCliToEnd, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';
import { ofKind } from '../helpers/approvalKinds.ts';

const T = { timeout: 120_000 };
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

let dir: string;
let files: string;
let cleanup: () => void;
let companion: Served;
let client: Client;
let control: ControlClient;

/** `--data-dir` goes before a `--`: after it, everything is the server's command line. */
const cli = (args: string[]) => {
  const at = args.indexOf('--');
  const own = at === -1 ? args : args.slice(0, at);
  return runCliToEnd([...own, '--data-dir', dir, ...(at === -1 ? [] : args.slice(at))], { timeoutMs: 60_000 });
};
const run = async (code: string) => {
  const r = await execute(client, code);
  assert.equal(r.isError, false, r.text);
  return r.text;
};

before(async () => {
  ({ dir, cleanup } = tempDir('airlock-real-servers-'));
  files = join(dir, 'files');
  mkdirSync(files);
  writeFileSync(join(files, 'todo.txt'), 'buy milk\n');
  for (const args of [
    ['servers', 'add', 'fs', '--', process.execPath, FILESYSTEM, files],
    ['servers', 'add', 'everything', '--', process.execPath, EVERYTHING, 'stdio'],
  ]) {
    const added = await cli(args);
    assert.equal(added.code, 0, added.stderr);
  }
  companion = await serve(dir, [], { AIRLOCK_SOMETHING_PRIVATE: 'not for servers' });
  client = await httpClient(companion.mcpUrl, companion.token, 'real-servers-client');
  control = controlClient(dir, companion.url);
  for (const name of ['fs', 'everything']) {
    const accepted = await cli(['servers', 'accept', name, '--yes']);
    assert.equal(accepted.code, 0, accepted.stderr);
  }
});

after(async () => {
  await client?.close();
  await companion?.stop();
  cleanup?.();
});

test('the execute tool names the servers in reach, with their tools', T, async () => {
  const { tools } = await client.listTools();
  const description = tools.find((t) => t.name === 'execute')!.description!;
  assert.match(description, /mcp\.fs \(14 tools: read_file, read_text_file/);
  // 14: Airlock declares elicitation to the servers it fronts (a server's question is put to the person), so
  // server-everything offers its trigger-elicitation-request too.
  assert.match(description, /mcp\.everything \(14 tools: echo/);
  assert.ok(description.length < 4000, `${description.length} characters`);
});

test('filesystem: reads run at once; a write waits for a person and is made exactly once when allowed', T, async () => {
  const listing = await run(`return (await mcp.fs.list_directory({ path: ${JSON.stringify(files)} })).data`);
  assert.match(listing, /\[FILE\] todo\.txt/);
  const target = join(files, 'note.md');
  const requested = waitForEvent(control, 'approval-requested');
  const writing = execute(
    client,
    `const r = await mcp.fs.write_file({ path: ${JSON.stringify(target)}, content: '# Hello\\n' }); return { data: r.data, error: r.error };`,
  );
  const { approval } = await requested;
  assert.equal(approval.request.call, 'mcp.fs.write_file');
  const asked = ofKind(approval.request, 'tool-call');
  assert.match(asked.description!, /Create a new file or completely overwrite/);
  assert.match(asked.arguments, /"content": "# Hello\\n"/);
  assert.equal(existsSync(target), false, 'nothing written while it waits');
  const approved = await cli(['approvals', 'approve', approval.id]);
  assert.equal(approved.code, 0, approved.stderr);
  const result = await writing;
  assert.equal(result.isError, false, result.text);
  assert.match(result.text, /Successfully wrote/);
  assert.equal(readFileSync(target, 'utf8'), '# Hello\n');
});

test('filesystem: a denied write is never made', T, async () => {
  const target = join(files, 'denied.md');
  const requested = waitForEvent(control, 'approval-requested');
  const writing = execute(client, `return (await mcp.fs.write_file({ path: ${JSON.stringify(target)}, content: 'x' })).error`);
  const { approval } = await requested;
  assert.equal((await cli(['approvals', 'deny', approval.id, '--reason', 'no new files'])).code, 0);
  assert.match((await writing).text, /no new files/);
  assert.equal(existsSync(target), false);
});

test('everything: structured content comes back as data; a long operation with progress finishes', T, async () => {
  const sum = await run("return (await mcp.everything['get-sum']({ a: 2, b: 40 })).data");
  assert.match(sum, /42/);
  const structured = JSON.parse(await run("return (await mcp.everything['get-structured-content']({ location: 'New York' })).data")) as Record<string, unknown>;
  assert.equal(typeof structured.temperature, 'number');
  const long = await run("return (await mcp.everything['trigger-long-running-operation']({ duration: 1, steps: 3 })).data");
  assert.match(long, /completed/i);
});

test("everything: a server's environment holds only what its entry passes (no Airlock setting, no key)", T, async () => {
  const env = await run("return (await mcp.everything['get-env']({})).data");
  assert.match(env, /"PATH"/);
  assert.doesNotMatch(env, /AIRLOCK_/);
  assert.doesNotMatch(env, /not for servers/);
  assert.doesNotMatch(env, /"HOME"/);
});

test('search_docs finds the servers’ tools beside the API operations, as exact calls', T, async () => {
  type Results = { results: { api: string; kind: string; operationId: string; method?: string; call: string }[] };
  const search = async (args: Record<string, unknown>) => {
    const r = await client.callTool({ name: 'search_docs', arguments: args });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    return { text: (r.content as { text: string }[])[0]!.text, ...(r.structuredContent as Results) };
  };
  const write = await search({ query: 'write a new file with some content', limit: 5 });
  assert.ok(
    write.results.slice(0, 3).some((h) => h.call === 'mcp.fs.write_file'),
    write.results.map((h) => h.call).join(', '),
  );
  assert.match(write.text, /await mcp\.fs\.write_file\(\{ path: …, content: … \}\)/);
  assert.match(write.text, /may destroy data: a call may wait for a person/);
  const sum = await search({ query: 'add two numbers', limit: 3 });
  assert.equal(sum.results[0]!.call, 'mcp.everything["get-sum"]');
  assert.equal(sum.results[0]!.kind, 'tool-call');
  assert.equal(sum.results[0]!.method, undefined, 'a tool has no HTTP method');
  assert.equal(sum.results[0]!.api, 'mcp:everything');
  // The demo API's own requests still find its operations first.
  const events = await search({ query: 'list upcoming events', limit: 3 });
  assert.equal(events.results[0]!.api, 'demo');
  // One server alone, and its "outline": its tools.
  const only = await search({ query: 'directory', api: 'mcp:fs', limit: 5 });
  assert.ok(only.results.every((h) => h.api === 'mcp:fs'));
  const outline = await search({ api: 'mcp:everything' });
  assert.equal(outline.results.length, 14);
  assert.match(outline.text, /^14 tools of MCP server everything/);
  assert.ok(
    outline.results.some((r) => r.operationId === 'trigger-elicitation-request'),
    'offered to a client that declares elicitation',
  );
});

test(
  "everything: a server's question (MCP 2025: its own elicitation request) reaches the person with every kind of field; the answer goes back",
  T,
  async () => {
    // Its tool waits for a person first (it does not say it only reads), then asks its question.
    const call = waitForEvent(control, 'approval-requested', (e) => e.approval.request.kind === 'tool-call');
    const asking = execute(client, `return (await mcp.everything['trigger-elicitation-request']({})).data`);
    const question = waitForEvent(control, 'approval-requested', (e) => e.approval.request.kind === 'server-question');
    await control.call('approvals.decide', { id: (await call).approval.id, decision: 'approve', scope: 'once' });
    const { approval } = await question;
    const q = ofKind(approval.request, 'server-question');
    assert.equal(q.message, 'Please provide inputs for the following fields:');
    const byName = new Map(q.fields.map((f) => [f.name, f]));
    assert.deepEqual(
      [byName.get('name')?.required, byName.get('email')?.format, byName.get('integer')?.maximum, byName.get('titledSingleSelectEnum')?.type],
      [true, 'email', 100, 'string'],
    );
    const multi = byName.get('untitledMultipleSelectEnum');
    assert.deepEqual([multi?.type, multi?.choices, multi?.maximum], ['list', ['Guitar', 'Piano', 'Violin', 'Drums', 'Bass'], 3]);
    // A list over its bound is refused, naming the field; then the answer goes back to the server.
    await assert.rejects(
      control.call('approvals.decide', {
        id: approval.id,
        decision: 'approve',
        answer: { name: 'Ada', untitledMultipleSelectEnum: ['Guitar', 'Piano', 'Violin', 'Drums'] },
      }),
      /"Untitled Multiple Select Enum" takes at most 3/,
    );
    await control.call('approvals.decide', { id: approval.id, decision: 'approve', answer: { name: 'Ada', untitledMultipleSelectEnum: ['Piano', 'Drums'] } });
    const result = await asking;
    assert.equal(result.isError, false, result.text);
    assert.match(result.text, /Ada/);
    assert.match(result.text, /Piano/);
  },
);
