// A call held for a person is in the audit from the moment it is held (issue
// 36 §14): a `pending` record at once, its outcome later under the same
// approval id; and after `kill -9` with a call held, the next start records
// it as `interrupted` — the log never shows it waiting forever, nor loses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../helpers/processes.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { tempDir } from '../helpers/paths.ts';
import type { AuditRecord } from '../../contract/audit.ts';

type ApiRecord = Extract<AuditRecord, { kind: 'api' }>;

const CREATE = `return (await api.events.create({ body: { title: 'held', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;

test(
  'a held call is recorded as pending when held, its outcome follows under the same approval id; killed while held, it is interrupted at the next start',
  { timeout: 180_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    let server = await serve(dir);
    t.after(() => server.stop('SIGKILL'));
    let control = controlClient(dir, server.url);
    const client = await httpClient(server.mcpUrl, server.token, 'held-audit');
    const apiRecords = async () => (await control.call('audit.query', { kind: 'api', order: 'oldest', limit: 500 })).records as ApiRecord[];

    // Held, then approved: two records, one approval id.
    const requested = waitForEvent(control, 'approval-requested');
    const running = execute(client, CREATE);
    const { approval } = await requested;
    const pending = (await apiRecords()).filter((r) => r.decision === 'pending');
    assert.equal(pending.length, 1, 'in the audit while it is held');
    assert.equal(pending[0]!.approval?.id, approval.id);
    assert.equal(pending[0]!.operationId, 'events.create');
    assert.equal(pending[0]!.outcome, 'pending');
    await control.call('approvals.decide', { id: approval.id, decision: 'approve' });
    assert.equal((await running).text, '201');
    const outcome = (await apiRecords()).filter((r) => r.approval?.id === approval.id);
    assert.deepEqual(
      outcome.map((r) => r.decision),
      ['pending', 'approved'],
    );
    await client.close();

    // Held, and the companion killed: nothing answers it.
    const second = await httpClient(server.mcpUrl, server.token, 'held-audit-2');
    const heldAgain = waitForEvent(control, 'approval-requested');
    const lost = execute(second, CREATE).catch(() => undefined);
    const { approval: killed } = await heldAgain;
    assert.ok((await apiRecords()).some((r) => r.decision === 'pending' && r.approval?.id === killed.id));
    await server.stop('SIGKILL');
    // The client is told nothing by a killed companion; closing it ends its call.
    await second.close().catch(() => undefined);
    await lost;

    server = await serve(dir);
    control = controlClient(dir, server.url);
    const after = (await apiRecords()).filter((r) => r.approval?.id === killed.id);
    assert.deepEqual(
      after.map((r) => r.decision),
      ['pending', 'interrupted'],
    );
    assert.match(after[1]!.approval!.reason!, /ended before anyone answered; nothing was sent/);
    assert.equal(after[1]!.outcome, 'interrupted');
    // Once settled, a later start records nothing more for it.
    await server.stop();
    server = await serve(dir);
    control = controlClient(dir, server.url);
    assert.equal((await apiRecords()).filter((r) => r.approval?.id === killed.id).length, 2);
    const verify = await control.call('audit.verify', {});
    assert.equal(verify.ok, true, `the chain holds: ${JSON.stringify(verify)}`);
  },
);
