// The organisation's managed policy against a running companion (issue 40 §1), given with AIRLOCK_MANAGED_FILE as
// an admin's /etc/airlock/managed.json would be: a setting it fixes is shown as the organisation's and a change of
// it is refused with that reason; an API it denies cannot be added (control API and `airlock apis add` alike); an
// approval wider than it allows is refused, a narrower one decides; `airlock doctor` says it is in effect. A broken
// file fails closed: execute is switched off, and the companion and doctor say why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCliToEnd, serve, type Served } from '../helpers/processes.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { writeEchoSpec } from '../helpers/echoApi.ts';
import { tempDir } from '../helpers/paths.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';

const CREATE = `return (await api.events.create({ body: { title: 'managed', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;
let dir: string;
let cleanup: () => void;
let policy: string;
let server: Served;
let control: ControlClient;
let client: Client;

before(async () => {
  ({ dir, cleanup } = tempDir('airlock-managed-'));
  policy = join(dir, 'managed.json');
  writeFileSync(
    policy,
    JSON.stringify({
      settings: { approvalInClient: false, diagnosticsTools: false },
      apis: { denyOrigins: ['https://api.github.com'], denyProfiles: ['forbidden'] },
      servers: { allowCommands: ['npx -y @modelcontextprotocol/server-everything'] },
      approvals: { maxGrantScope: 'session' },
      limits: { timeoutMs: { max: 10_000 }, engine: { oneOf: ['quickjs'] }, auditRetentionDays: { min: 30 } },
    }),
  );
  // The person's own settings.json asks for more than the organisation allows: the value in effect is brought within it.
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ timeoutMs: 60_000, auditRetentionDays: 7 }));
  server = await serve(dir, [], { AIRLOCK_MANAGED_FILE: policy });
  control = controlClient(dir, server.url);
  client = await httpClient(server.mcpUrl, server.token, 'managed-client');
});

after(async () => {
  await client?.close();
  await server?.stop();
  cleanup?.();
});

test('a setting the organisation fixes is shown as its own, and a change of it is refused with that reason', { timeout: 60_000 }, async () => {
  const settings = await control.call('settings.get', {});
  assert.equal(settings.sources.approvalInClient, 'managed');
  assert.equal(settings.values.diagnosticsTools, false);
  await assert.rejects(control.call('settings.update', { values: { approvalInClient: true } }), /approvalInClient: set by your organisation/);
  // A setting it does not fix is the person's, as ever.
  assert.deepEqual((await control.call('settings.update', { values: { approvalReplyAfterMs: 20_000 } })).applied, ['approvalReplyAfterMs']);
  const { tools } = await client.listTools();
  assert.ok(!tools.some((tool) => tool.name === 'server_log'), 'the diagnostics tools are off, as the organisation set');
});

test('a setting the organisation bounds is brought within its bound, shown with it, and a change outside it is refused', { timeout: 60_000 }, async () => {
  const settings = await control.call('settings.get', {});
  assert.equal(settings.values.timeoutMs, 10_000, 'settings.json asked 60000 ms: brought to the most allowed');
  assert.equal(settings.values.auditRetentionDays, 30, 'settings.json asked 7 days: brought to the least allowed');
  const timeout = settings.meta.find((m) => m.key === 'timeoutMs')!;
  assert.equal(timeout.limit, 'at most 10000 ms');
  assert.equal(timeout.type !== 'boolean' && 'max' in timeout ? timeout.max : undefined, 10_000, 'the form offers no more than the bound');
  const engine = settings.meta.find((m) => m.key === 'engine')!;
  assert.deepEqual(engine.type === 'choice' ? engine.choices.map((c) => c.value) : [], ['quickjs']);
  assert.ok(
    settings.organisation?.rules.some((r) => r.area === 'apis' && /no APIs at https:\/\/api\.github\.com/.test(r.text)),
    JSON.stringify(settings.organisation),
  );
  await assert.rejects(
    control.call('settings.update', { values: { timeoutMs: 20_000 } }),
    /timeoutMs 20000 is not allowed: it must be at most 10000 ms \(set by your organisation/,
  );
  // Within the bound, the person chooses.
  assert.deepEqual((await control.call('settings.update', { values: { timeoutMs: 8_000 } })).applied, ['timeoutMs']);
  assert.equal((await control.call('settings.get', {})).values.timeoutMs, 8_000);
  // The engines it does not allow are shown so, and cannot be chosen.
  const matrix = await control.call('engine.matrix', {});
  assert.ok(
    matrix.cells.filter((c) => c.engine !== 'quickjs').every((c) => c.state === 'not-allowed' && /set by your organisation/.test(c.reason ?? '')),
    JSON.stringify(matrix.cells.map((c) => [c.engine, c.egress, c.state])),
  );
  await assert.rejects(control.call('engine.apply', { engine: 'deno', egress: 'executor' }), /engine deno is not allowed: it must be one of quickjs/);
});

test(
  '`airlock settings list` says what the organisation sets; `settings set` outside its bound is refused, within it applies',
  { timeout: 90_000 },
  async () => {
    const env = { env: { AIRLOCK_MANAGED_FILE: policy }, timeoutMs: 60_000 };
    const listed = await runCliToEnd(['settings', 'list', '--data-dir', dir], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^Set by your organisation \(.*managed\.json\): fixes approvalInClient, diagnosticsTools; timeoutMs at most 10000 ms/m);
    assert.match(listed.stdout, /^approvalInClient\s+false\s+set by your organisation$/m);
    assert.match(listed.stdout, /^timeoutMs\s+\d+\s+.*your organisation allows at most 10000 ms/m);
    const refused = await runCliToEnd(['settings', 'set', 'timeoutMs=20000', '--data-dir', dir], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /timeoutMs 20000 is not allowed: it must be at most 10000 ms \(set by your organisation/);
    const set = await runCliToEnd(['settings', 'set', 'timeoutMs=9000', '--data-dir', dir], env);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /In effect now: timeoutMs/);
    assert.equal((await control.call('settings.get', {})).values.timeoutMs, 9_000, 'the running companion took it');
  },
);

test('an API the organisation denies cannot be added, by the control API or the CLI; nothing is saved', { timeout: 60_000 }, async () => {
  const spec = writeEchoSpec(dir, 'https://api.github.com');
  await assert.rejects(control.call('profiles.save', { name: 'gh', spec }), /APIs at https:\/\/api\.github\.com are denied \(set by your organisation/);
  assert.ok(!(await control.call('apis.list', {})).some((a) => a.name === 'gh'), 'not saved');
  const cli = await runCliToEnd(['apis', 'add', 'forbidden', '--spec', spec, '--data-dir', dir], { env: { AIRLOCK_MANAGED_FILE: policy }, timeoutMs: 60_000 });
  assert.notEqual(cli.code, 0);
  assert.match(cli.stderr, /the API forbidden is denied \(set by your organisation/);
  assert.ok(!(await control.call('apis.list', {})).some((a) => a.name === 'forbidden'), 'not saved');
  // Both refusals are in the audit: who asked, what, and the policy's reason.
  const records = (await control.call('audit.query', { tool: 'managed-policy', order: 'oldest' })).records;
  const said = records.map((r) => (r.kind === 'tool' ? `${r.clientName} ${r.input} ${r.error}` : ''));
  assert.ok(
    said.some((line) => /profiles\.save.*APIs at https:\/\/api\.github\.com are denied/.test(line)),
    said.join('\n'),
  );
  assert.ok(
    said.some((line) => /^airlock CLI .*apis add forbidden.*the API forbidden is denied/.test(line)),
    said.join('\n'),
  );
});

test('an MCP server the organisation does not allow cannot be added, by the control API or the CLI', { timeout: 60_000 }, async () => {
  const entry = { transport: 'stdio', command: process.execPath, args: ['server.js'], env: [], secrets: [], enabled: true, timeoutMs: 10_000 };
  await assert.rejects(
    control.call('servers.add', { name: 'local', entry } as never),
    /MCP server local: the command .* is not among the allowed ones \(set by your organisation/,
  );
  assert.ok(!(await control.call('servers.list', {})).some((v) => v.name === 'local'), 'not added');
  const cli = await runCliToEnd(['servers', 'add', 'other', '--data-dir', dir, '--', process.execPath, 'server.js'], {
    env: { AIRLOCK_MANAGED_FILE: policy },
    timeoutMs: 60_000,
  });
  assert.notEqual(cli.code, 0);
  assert.match(cli.stderr, /MCP server other: .*not among the allowed ones \(set by your organisation/);
});

test('an approval wider than the organisation allows is refused, saying so; a narrower one decides', { timeout: 60_000 }, async () => {
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, CREATE);
  const { approval } = await requested;
  // Not offered, saying why: the prompt (approvals.list) and the CLI.
  assert.deepEqual(Object.keys(approval.scopesRefused ?? {}), ['client-always', 'everyone-session', 'always']);
  const listed = await runCliToEnd(['approvals', 'list', '--data-dir', dir], { env: { AIRLOCK_MANAGED_FILE: policy }, timeoutMs: 60_000 });
  assert.match(listed.stdout, /scopes offered: once, run, session.*\(not client-always, everyone-session, always: set by your organisation\)/);
  await assert.rejects(
    control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'always' }),
    /wider than "session" is not allowed \(set by your organisation/,
  );
  assert.deepEqual((await control.call('grants.list', {})).length, 0, 'nothing granted');
  await control.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  assert.equal((await run).text, '201');
});

test('every call asks a person when the organisation says so, a read too, and the prompt says why', { timeout: 90_000 }, async (t) => {
  const other = tempDir('airlock-managed-ask-');
  t.after(other.cleanup);
  const asking = join(other.dir, 'managed.json');
  writeFileSync(asking, JSON.stringify({ approvals: { ask: 'every-call' } }));
  const companion = await serve(other.dir, [], { AIRLOCK_MANAGED_FILE: asking });
  t.after(() => companion.stop());
  const ctl = controlClient(other.dir, companion.url);
  const mcp = await httpClient(companion.mcpUrl, companion.token, 'asked-client');
  t.after(() => mcp.close());
  const requested = waitForEvent(ctl, 'approval-requested');
  const run = execute(mcp, 'return (await api.events.list()).status');
  const { approval } = await requested;
  assert.equal(approval.request.kind === 'api-call' ? approval.request.method : '', 'GET');
  assert.match('rule' in approval.request ? approval.request.rule : '', /^every call asks a person \(set by your organisation\)/);
  await ctl.call('approvals.decide', { id: approval.id, decision: 'approve', scope: 'once' });
  assert.equal((await run).text, '200');
});

test('`airlock doctor` says the policy is in effect and what it fixes', { timeout: 60_000 }, async () => {
  const doctor = await runCliToEnd(['doctor', '--data-dir', dir], { env: { AIRLOCK_MANAGED_FILE: policy }, timeoutMs: 60_000 });
  assert.match(doctor.stdout, /managed policy .*managed\.json in effect \(set by your organisation\): fixes .*approvalInClient/);
});

test('a broken managed file fails closed: execute is off, and the companion and doctor say why', { timeout: 90_000 }, async (t) => {
  const other = tempDir('airlock-managed-broken-');
  t.after(other.cleanup);
  const broken = join(other.dir, 'managed.json');
  writeFileSync(broken, '{ "settings": { "timeoutMs": 5 } }');
  const companion = await serve(other.dir, [], { AIRLOCK_MANAGED_FILE: broken });
  t.after(() => companion.stop());
  assert.match(companion.stderr(), /managed policy .* is broken \(.*timeoutMs.*\): execute is switched off until it is fixed/);
  const mcp = await httpClient(companion.mcpUrl, companion.token, 'broken-policy-client');
  t.after(() => mcp.close());
  const refused = await execute(mcp, 'return 1 + 1');
  assert.equal(refused.isError, true);
  assert.match(refused.text, /kill switch/);
  const doctor = await runCliToEnd(['doctor', '--data-dir', other.dir], { env: { AIRLOCK_MANAGED_FILE: broken }, timeoutMs: 60_000 });
  assert.match(doctor.stdout, /managed policy .* is broken .*execute is switched off/);
});

test(
  'a policy that arrives while the companion runs applies at once: a live setting fixed, an API it refuses no longer served, a wider grant revoked',
  { timeout: 90_000 },
  async (t) => {
    const other = tempDir('airlock-managed-later-');
    t.after(other.cleanup);
    const later = join(other.dir, 'managed.json');
    const companion = await serve(other.dir, [], { AIRLOCK_MANAGED_FILE: later });
    t.after(() => companion.stop());
    const ctl = controlClient(other.dir, companion.url);
    const mcp = await httpClient(companion.mcpUrl, companion.token, 'before-the-policy');
    t.after(() => mcp.close());
    // Before any policy: the person allows "every client, until revoked".
    const requested = waitForEvent(ctl, 'approval-requested');
    const run = execute(mcp, CREATE);
    await ctl.call('approvals.decide', { id: (await requested).approval.id, decision: 'approve', scope: 'always' });
    assert.equal((await run).text, '201');
    assert.equal((await ctl.call('grants.list', {})).length, 1);
    // The admin's tool places the policy; the companion follows the file.
    const revoked = waitForEvent(ctl, 'grants-changed', () => true, 30_000);
    writeFileSync(
      later,
      JSON.stringify({ settings: { approvalReplyAfterMs: 4321 }, apis: { denyProfiles: ['demo'] }, approvals: { maxGrantScope: 'session' } }),
    );
    await revoked;
    assert.deepEqual(await ctl.call('grants.list', {}), [], 'the grant wider than the policy allows is revoked');
    const settings = await ctl.call('settings.get', {});
    assert.equal(settings.values.approvalReplyAfterMs, 4321);
    assert.equal(settings.sources.approvalReplyAfterMs, 'managed');
    const demo = (await ctl.call('apis.list', {})).find((a) => a.name === 'demo');
    assert.notEqual(demo?.state, 'ready', `demo is no longer served: ${JSON.stringify(demo)}`);
    const refused = await execute(mcp, 'return (await api.events.list()).status');
    assert.equal(refused.isError, true, refused.text);
    // What the new policy undid is in the audit, with its reason.
    const undone = (await ctl.call('audit.query', { tool: 'managed-policy' })).records.map((r) => `${r.outcome} ${r.kind === 'tool' ? r.input : ''}`);
    assert.ok(
      undone.some((line) => /^revoked .*grant .*always/.test(line)),
      undone.join('\n'),
    );
    assert.ok(
      undone.some((line) => /^disabled .*serve API demo/.test(line)),
      undone.join('\n'),
    );
  },
);
