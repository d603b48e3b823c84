// A per-operation policy set while the companion runs applies to the next
// call and is saved with the profile; clearing it restores the profile's.
// The Rules view (rules.list) shows the same policy, what is in effect and
// the calls each rule counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execute } from '../helpers/mcpClients.ts';
import { ControlError } from '../../contract/controlApi.ts';
import { companionFixture } from '../helpers/companion.ts';
import { waitForEvent } from '../helpers/control.ts';

test('deny one read operation live, then give it back to the profile', async (t) => {
  const { dir, client, control } = await companionFixture(t);
  const list = 'const r = await api.events.list({ query: { limit: 1 } }); return r.error ? { error: r.error.message } : { status: r.status };';
  assert.deepEqual(JSON.parse((await execute(client, list)).text), { status: 200 });

  // Every screen that shows the rules hears of the change.
  const told = waitForEvent(control, 'rules-changed');
  const set = await control.call('profiles.setOperationPolicy', { operationId: 'events.list', policy: 'deny' });
  await told;
  assert.equal(set.saved, true);
  assert.equal(set.operation.policy, 'deny');
  assert.equal(set.operation.policySource, 'operation');
  const denied = JSON.parse((await execute(client, list)).text) as { error?: string };
  assert.match(denied.error ?? '', /denied|refused|policy/i);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'profiles', 'demo.json'), 'utf8')).operationPolicies, { 'events.list': 'deny' });

  const ops = await control.call('profiles.operations', { query: 'events.list' });
  assert.equal(ops.find((o) => o.operationId === 'events.list')!.policy, 'deny');
  // Rules says the same, with what is in effect and the calls counted from the audit: one allowed, one refused.
  const rule = (await control.call('rules.list', {})).operations.find((o) => o.operationId === 'events.list')!;
  assert.equal(rule.policy, 'deny');
  assert.deepEqual(rule.effective, { kind: 'deny', text: 'Refused by the policy' });
  assert.equal(rule.hits.allowed, 1);
  assert.equal(rule.hits.refused, 1);
  assert.ok(rule.hits.lastAt);

  const cleared = await control.call('profiles.setOperationPolicy', { operationId: 'events.list', policy: null });
  assert.equal(cleared.operation.policySource, 'read');
  assert.deepEqual(JSON.parse((await execute(client, list)).text), { status: 200 });

  await assert.rejects(
    control.call('profiles.setOperationPolicy', { operationId: 'no.such', policy: 'deny' }),
    (e: unknown) => e instanceof ControlError && e.code === 'not_found',
  );
});
