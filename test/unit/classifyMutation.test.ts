// One isMutation: the gate's answer for an operation (rules and profile
// screens) and the classifier's for a request of it come from the same place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyRequest, isMutation } from '../../main/core/egress/classify.ts';
import { createEgressGate } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { Profile } from '../../main/core/profiles/profile.ts';
import { echoCatalogue } from '../helpers/echoApi.ts';

test('an operation is a mutation by its method, its document mark or the profile list; the gate and the classifier agree', () => {
  const catalogue = echoCatalogue();
  const profile: Profile = { name: 'p', spec: 'x', policy: 'allow', readOnly: false, allowPrivateNetwork: false, mutations: ['search.run'], origin: 'adhoc' };
  const gate = createEgressGate({
    api: { profile, baseUrl: 'https://api.example.test/v1', auth: { type: 'none' }, catalogue },
    getCredential: () => undefined,
    redactor: () => createRedactor([]),
  });
  const mutations = catalogue.operations.filter((op) => isMutation(op, profile)).map((op) => op.id);
  assert.ok(mutations.includes('items.create') && mutations.includes('items.delete') && mutations.includes('search.run'));
  assert.ok(!mutations.includes('items.list') && !mutations.includes('items.get'));
  for (const op of catalogue.operations) {
    assert.equal(gate.isMutation(op), isMutation(op, profile), op.id);
    // Called as the document describes it (no override), a request is a read exactly when its operation is not a mutation.
    const cls = classifyRequest({ op, method: op.method, profile });
    assert.equal(cls.kind !== 'read', isMutation(op, profile), op.id);
  }
  // The profile list is read live: a mark added while the gate runs counts at once.
  profile.mutations = [...profile.mutations, 'items.list'];
  assert.equal(gate.isMutation(catalogue.byId('items.list')!), true);
});
