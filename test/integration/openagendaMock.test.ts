// execute end to end against the OpenAgenda v3 contract served by a mock
// (Prism): the openagenda preset, its `oa` alias, bearer auth, a read, and a
// mutation that reaches the mock only once approved. The contract is not in
// the repository: without it (AIRLOCK_OPENAGENDA_SPEC, or the shared
// fixture beside the checkout: test/helpers/paths.ts) the suite skips with
// one line (test/helpers/openAgenda.ts). The same paths on a document the repository
// has are tested in approvals.test.ts and execute.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serve, type Served } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { startPrism, type PrismMock } from '../helpers/prism.ts';
import { tempDir } from '../helpers/paths.ts';
import { describeWithOpenAgenda } from '../helpers/openAgenda.ts';

describeWithOpenAgenda('the openagenda preset against a mock of its contract', (spec) => {
  let prism: PrismMock;
  let server: Served;
  let client: Client;
  let dataDir: string;
  let cleanup: () => void;

  before(async () => {
    ({ dir: dataDir, cleanup } = tempDir());
    prism = await startPrism(spec);
    server = await serve(dataDir, ['--profile', 'openagenda', '--spec', spec, '--base-url', prism.url], {
      AIRLOCK_API_KEY: 'oa_sk_test_0123456789abcdef',
    });
    client = await httpClient(server.mcpUrl, server.token);
  });

  after(async () => {
    await client.close();
    await server.stop();
    await prism.stop();
    cleanup();
  });

  test('reads through the oa alias reach the mock and come back as data', async () => {
    const r = await execute(
      client,
      `const { data, error, status } = await oa.agendas.list({ query: { limit: 2, official: true } });
       if (error) throw new Error(JSON.stringify(error));
       const one = await api.agendas.get({ path: { agendaUid: 12345 } });
       return { status, isArray: Array.isArray(data.data), hasPagination: 'pagination' in data, getStatus: one.status };`,
    );
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(JSON.parse(r.text), { status: 200, isArray: true, hasPagination: true, getStatus: 200 });
    await prism.waitForRequest(/^GET \/agendas$/);
    await prism.waitForRequest(/^GET \/agendas\/12345$/);
  });

  test('an event creation waits for approval, then reaches the mock once', async () => {
    const control = controlClient(dataDir, server.url);
    const requested = waitForEvent(control, 'approval-requested');
    const run = execute(
      client,
      `const { status, error } = await oa.agendas.events.create({
         path: { agendaUid: 12345 },
         body: {
           title: { fr: 'Concert de jazz', en: 'Jazz concert' },
           description: { fr: 'Une soirée jazz.', en: 'A jazz evening.' },
           timings: [{ begin: '2025-06-20T18:00:00+02:00', end: '2025-06-20T22:00:00+02:00' }],
           location: { uid: 55512 },
         },
       });
       return { status, error };`,
    );
    const { approval } = await requested;
    assert.equal(approval.request.operationId, 'agendas.events.create');
    assert.equal(approval.request.profile, 'openagenda');
    assert.equal(prism.requests.filter((x) => x.startsWith('POST')).length, 0);
    await control.call('approvals.decide', { id: approval.id, decision: 'approve' });
    assert.deepEqual(JSON.parse((await run).text), { status: 201, error: null });
    await prism.waitForRequest(/^POST /);
    assert.deepEqual(
      prism.requests.filter((x) => x.startsWith('POST')),
      ['POST /agendas/12345/events'],
    );
  });
});
