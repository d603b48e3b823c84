// OpenTelemetry from a running companion (issue 40 §2), received by an in-test collector over OTLP/HTTP: a run
// with a mutation held for a person and approved makes the span tree of the MCP semantic conventions — the request
// (`tools/call execute`), the API call under it (`POST /events`, with its operation, host, status, the gate's
// decision and who decided), and the wait for the person under that — and the metrics count it; every other MCP
// request has its span too, over HTTP and over a joined stdio pipe. The red team's
// canary key, in every encoding, appears in nothing exported. A collector that is down fails no call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve } from '../helpers/processes.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { echoFixture } from '../helpers/echoApi.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { startOtlpReceiver } from '../helpers/otlpReceiver.ts';
import { CANARY, holdsCanary } from '../helpers/canary.ts';

const CREATE = `return (await api.events.create({ body: { title: 'traced', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;
/** Exports within a fraction of a second, so the test waits for what it checks rather than for a timer. */
const FAST = { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_METRIC_EXPORT_INTERVAL: '300' };
const SERVER = 2;
const CLIENT = 3;

test('a held and approved mutation makes the span tree of the MCP conventions, and the metrics count it', { timeout: 120_000 }, async (t) => {
  const collector = await startOtlpReceiver();
  t.after(() => collector.close());
  const { dir, cleanup } = tempDir('airlock-telemetry-');
  t.after(cleanup);
  const companion = await serve(dir, [], { AIRLOCK_TELEMETRY: 'otlp', AIRLOCK_TELEMETRY_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'airlock-test', ...FAST });
  t.after(() => companion.stop());
  const control = controlClient(dir, companion.url);
  const client = await httpClient(companion.mcpUrl, companion.token, 'traced-client');
  t.after(() => client.close());

  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, CREATE);
  await control.call('approvals.decide', { id: (await requested).approval.id, decision: 'approve', scope: 'once' });
  assert.equal((await run).text, '201');

  const byName = (name: string) => collector.spans().find((s) => s.name === name);
  await collector.waitFor(() => byName('tools/call execute') !== undefined && byName('POST /events') !== undefined && byName('approval wait') !== undefined);
  const request = byName('tools/call execute')!;
  assert.equal(request.kind, SERVER);
  assert.equal(request.attributes['mcp.method.name'], 'tools/call');
  assert.equal(request.attributes['gen_ai.tool.name'], 'execute');
  assert.equal(request.attributes['network.transport'], 'tcp');
  assert.match(String(request.attributes['mcp.session.id']), /^[0-9a-f]{16}$/, 'the session, as a hash');
  const call = byName('POST /events')!;
  assert.equal(call.kind, CLIENT);
  assert.equal(call.parentSpanId, request.spanId, 'the API call hangs under the request that ran it');
  assert.equal(call.traceId, request.traceId);
  assert.equal(call.attributes['http.request.method'], 'POST');
  assert.equal(call.attributes['url.template'], '/events');
  assert.equal(call.attributes['airlock.operation.id'], 'events.create');
  assert.equal(call.attributes['airlock.gate.decision'], 'approved');
  assert.equal(call.attributes['http.response.status_code'], 201);
  assert.ok(call.attributes['server.address'], 'the host');
  assert.ok(call.attributes['airlock.gate.decided_by'], 'who decided');
  const wait = byName('approval wait')!;
  assert.equal(wait.parentSpanId, call.spanId, 'the wait for the person is its own span, under the call');
  assert.equal(wait.attributes['airlock.approval.outcome'], 'granted');

  const point = (metric: string, attributes: Record<string, string> = {}) =>
    collector.points().find((p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v) && p.value > 0);
  await collector.waitFor(
    () =>
      point('mcp.server.operation.duration', { 'gen_ai.tool.name': 'execute' }) !== undefined &&
      point('airlock.approvals', { 'airlock.approval.outcome': 'granted' }) !== undefined &&
      point('airlock.runs', { 'airlock.run.outcome': 'ok' }) !== undefined &&
      point('airlock.calls', { 'airlock.call.source': 'api', 'airlock.gate.decision': 'approved' }) !== undefined,
  );
  assert.ok(point('airlock.approvals', { 'airlock.approval.outcome': 'asked' }), 'asked, then granted');
  assert.ok(
    collector.raw().some((body) => body.includes('airlock-test')),
    'OTEL_SERVICE_NAME names the service',
  );

  // Every MCP request has its span, whichever way it comes: over HTTP, and over a joined stdio pipe (the default path).
  await client.listTools();
  const joined = new Client({ name: 'joined-client', version: '1.0.0' });
  await joined.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'stdio', '--data-dir', dir], cwd: ROOT, stderr: 'pipe' }));
  t.after(() => joined.close());
  await joined.listTools();
  const listed = (transport: string) =>
    collector.spans().find((s) => s.name === 'tools/list' && s.kind === SERVER && s.attributes['network.transport'] === transport);
  await collector.waitFor(() => listed('tcp') !== undefined && listed('pipe') !== undefined && byName('initialize') !== undefined);
  assert.equal(listed('tcp')!.attributes['mcp.method.name'], 'tools/list');
  assert.match(String(listed('pipe')!.attributes['mcp.session.id']), /^[0-9a-f]{16}$/);
});

test('the canary key appears in nothing exported, in any encoding', { timeout: 120_000 }, async (t) => {
  const collector = await startOtlpReceiver();
  t.after(() => collector.close());
  const { dir, spec } = await echoFixture(t);
  const companion = await serve(dir, ['--spec', spec, '--auth', 'bearer'], {
    AIRLOCK_API_KEY: CANARY,
    AIRLOCK_TELEMETRY: 'otlp',
    AIRLOCK_TELEMETRY_ENDPOINT: collector.url,
    ...FAST,
  });
  t.after(() => companion.stop());
  // A client that names itself with the key: its name is an attribute, redacted as the audit redacts it.
  const client = await httpClient(companion.mcpUrl, companion.token, CANARY);
  t.after(() => client.close());
  const attempts = [
    `return await api.items.list({ query: { tag: ['x'] } });`,
    `const r = await api.items.list(); return JSON.stringify(r);`,
    `return await api.fail.get();`,
    `throw new Error(${JSON.stringify(CANARY)} + JSON.stringify(await api.items.list()));`,
  ];
  for (const code of attempts) await execute(client, code);
  await collector.waitFor(() => collector.spans().filter((s) => s.name === 'tools/call execute').length >= attempts.length);
  await collector.waitFor(() => collector.points().some((p) => p.metric === 'airlock.calls'));
  const exported = collector.raw().join('\n');
  assert.ok(exported.length > 0);
  assert.equal(holdsCanary(exported), false, 'the key, in clear, URL-encoded, hex or base64, is in no export');
});

test('a collector that is down fails no call', { timeout: 120_000 }, async (t) => {
  const collector = await startOtlpReceiver();
  const down = collector.url;
  await collector.close();
  const { dir, cleanup } = tempDir('airlock-telemetry-down-');
  t.after(cleanup);
  const companion = await serve(dir, [], { AIRLOCK_TELEMETRY: 'otlp', AIRLOCK_TELEMETRY_ENDPOINT: down, ...FAST });
  t.after(() => companion.stop());
  const client = await httpClient(companion.mcpUrl, companion.token, 'no-collector');
  t.after(() => client.close());
  for (let i = 0; i < 5; i++) {
    const r = await execute(client, 'return (await api.events.list()).status');
    assert.equal(r.text, '200', r.text);
  }
  assert.match(companion.stderr(), /telemetry: OpenTelemetry over OTLP\/HTTP to http:\/\/127\.0\.0\.1:\d+/);
});
