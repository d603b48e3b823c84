// Evidence through the real gate and the demo API: before a person is asked
// about a PATCH or a DELETE, the gate reads the event as it is now, with the
// profile's key and only from the profile's origin, and the person sees what
// changes or what is deleted. The read is logged (source gate) and audited
// (decision "evidence", before the prompt shows it), is not one of the run's
// calls, and nothing of it reaches the script.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDemoServer, demoSpecPath, type DemoServer } from '../../main/core/demo/demoServer.ts';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { createEgressGate } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import type { ApprovalHook, ApiCallApprovalRequest } from '../../main/core/approvals/types.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { LogBuffer } from '../../main/core/log/logBuffer.ts';
import { tempDir } from '../helpers/paths.ts';
import { ofKind } from '../helpers/approvalKinds.ts';

const KEY = 'demo_key_EVIDENCE_0123456789';
let demo: DemoServer;
let catalogue: Catalogue;
const cleanups: (() => unknown)[] = [];

before(async () => {
  const data = tempDir();
  cleanups.push(data.cleanup);
  demo = await startDemoServer({ dataDir: data.dir, expectedKey: KEY });
  const cache = tempDir();
  cleanups.push(cache.cleanup);
  const loaded = await loadApiDocument(demoSpecPath(), { cacheDir: cache.dir });
  catalogue = buildCatalogue(loaded.document, loaded.refNames);
});
after(async () => {
  await demo.close();
  for (const c of cleanups) await c();
});

const run = (): RunContext => ({
  runId: 'run-evidence-1',
  caller: { key: 'http:s1', transport: 'http', clientName: 'claude-code' },
  scriptSha256: 'abc',
  script: 'await api.events.update(...)',
  calls: [],
  control: { whilePaused: (wait) => wait() },
});

function setup(baseUrl = demo.url) {
  const asked: ApiCallApprovalRequest[] = [];
  const records: ApiCallRecord[] = [];
  const buffer = new LogBuffer();
  const approvals: ApprovalHook = {
    request: async (req) => {
      asked.push(ofKind(req, 'api-call'));
      return { approved: false, by: 'tester', reason: 'no thanks', at: new Date().toISOString(), code: 'denied' };
    },
  };
  const gate = createEgressGate({
    api: {
      profile: { name: 'demo', spec: 'x', policy: 'ask', readOnly: false, allowPrivateNetwork: true, mutations: [], origin: 'adhoc' },
      baseUrl,
      auth: { type: 'bearer' },
      catalogue,
    },
    getCredential: () => KEY,
    redactor: () => createRedactor([KEY]),
    approvals,
    onApiCall: (r) => void records.push(r),
    logger: createLogger({ buffer, sink: () => {} }).child('gate'),
  });
  return { gate, asked, records, buffer };
}

async function firstEvent(): Promise<{ id: string; title: string; price: number | null; city: string }> {
  const { gate } = setup();
  const list = await gate.call({ operationId: 'events.list', query: { limit: 1 } }, run());
  return (list.data as { data: { id: string; title: string; price: number | null; city: string }[] }).data[0]!;
}

test('a PATCH is shown with the event as it is now: the fields it changes, before and after; the script gets none of it', async () => {
  const event = await firstEvent();
  const { gate, asked, records, buffer } = setup();
  const result = await gate.call(
    { operationId: 'events.update', path: { eventId: event.id }, body: { title: 'Renamed by the model', city: event.city } },
    run(),
  );
  assert.equal((result.error as { code: string }).code, 'airlock_mutation_denied');
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0]!.evidence, {
    kind: 'change',
    source: 'GET /events/{eventId}',
    changes: [{ field: 'title', before: JSON.stringify(event.title), after: '"Renamed by the model"' }],
  });
  assert.ok(!JSON.stringify(result).includes(event.title), 'the current state never reaches the script');
  // The read is the gate's own: audited as "evidence" before the prompt, logged, and not one of the run's calls.
  assert.deepEqual(
    records.map((r) => `${r.method} ${r.decision} ${r.operationId} ${r.status} ${r.clientName} ${r.profile}`),
    ['GET evidence events.get 200 claude-code demo', 'PATCH denied events.update 0 claude-code demo'],
  );
  const lines = buffer.entries().filter((e) => e.source === 'gate' && e.message.startsWith('evidence read'));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!.message, /GET \/events\/\{eventId\} for PATCH \/events\/\{eventId\}: 200/);
  assert.equal(lines[0]!.runId, 'run-evidence-1');
});

test('a DELETE is shown with the title of the event it deletes; a missing one says so', async () => {
  const event = await firstEvent();
  const { gate, asked } = setup();
  await gate.call({ operationId: 'events.delete', path: { eventId: event.id } }, run());
  assert.deepEqual(asked[0]!.evidence, { kind: 'delete', source: 'GET /events/{eventId}', title: event.title });
  await gate.call({ operationId: 'events.delete', path: { eventId: 'evt_does_not_exist' } }, run());
  assert.equal(asked[1]!.evidence?.kind, 'none');
  assert.match(asked[1]!.evidence?.note ?? '', /answered 404/);
});

test('the read follows no redirect: an API that points it elsewhere gets nothing sent there, and the prompt says so', async () => {
  const elsewhere: string[] = [];
  const other = createServer((req, res) => {
    elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('{}');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const api: Server = createServer((req, res) => {
    res.writeHead(302, { location: `${otherUrl}/steal` });
    res.end();
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  try {
    const { gate, asked } = setup(`http://127.0.0.1:${(api.address() as AddressInfo).port}`);
    await gate.call({ operationId: 'events.update', path: { eventId: 'e1' }, body: { title: 'x' } }, run());
    assert.equal(asked[0]!.evidence?.kind, 'none');
    assert.match(asked[0]!.evidence?.note ?? '', /redirect \(302\), which Airlock does not follow/);
    assert.deepEqual(elsewhere, []);
  } finally {
    await new Promise<void>((r) => api.close(() => r()));
    await new Promise<void>((r) => other.close(() => r()));
  }
});

test('nothing is read when no person will see it: a grant answers, or nobody can be asked in Airlock', async () => {
  const reads: string[] = [];
  const api = createServer((req, res) => {
    reads.push(`${req.method} ${req.url}`);
    res.writeHead(req.method === 'GET' ? 200 : 204, { 'content-type': 'application/json' });
    res.end(req.method === 'GET' ? '{"title":"x"}' : '');
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  try {
    const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const seen: ApiCallApprovalRequest[] = [];
    const granted: ApprovalHook = {
      asksPerson: () => false,
      request: async (req) => {
        seen.push(ofKind(req, 'api-call'));
        return { approved: true, by: 'grant g_1 (always)', scope: 'always', at: new Date().toISOString(), grantId: 'g_1' };
      },
    };
    const gate = createEgressGate({
      api: {
        profile: { name: 'demo', spec: 'x', policy: 'ask', readOnly: false, allowPrivateNetwork: true, mutations: [], origin: 'adhoc' },
        baseUrl,
        auth: { type: 'none' },
        catalogue,
      },
      getCredential: () => undefined,
      redactor: () => createRedactor([]),
      approvals: granted,
    });
    await gate.call({ operationId: 'events.delete', path: { eventId: 'e1' } }, run());
    assert.deepEqual(reads, ['DELETE /events/e1']);
    assert.equal(seen[0]!.evidence, undefined);

    // The real broker: no approver in Airlock (stdio without the app) asks nobody there, so reads nothing.
    const { ApprovalBroker } = await import('../../main/core/approvals/approvalBroker.ts');
    const broker = new ApprovalBroker({ timeoutMs: 1000, approversAvailable: () => false, noApproverMessage: 'no approver here' });
    assert.equal(broker.asksPerson({ runId: 'r', profile: 'demo', operationId: 'events.delete', callerKey: 'k' }), false);
    const withApp = new ApprovalBroker({ timeoutMs: 1000, approversAvailable: () => true, noApproverMessage: '' });
    assert.equal(withApp.asksPerson({ runId: 'r', profile: 'demo', operationId: 'events.delete', callerKey: 'k' }), true);
  } finally {
    await new Promise<void>((r) => api.close(() => r()));
  }
});
