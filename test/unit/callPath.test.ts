import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callPathFromOperationId, callPathFromRoute, resolveCallPathCollisions, toIdentifier } from '../../main/core/openapi/callPath.ts';

test('operationIds split on . and / and fold other separators to camelCase', () => {
  assert.deepEqual(callPathFromOperationId('agendas.events.list'), ['agendas', 'events', 'list']);
  assert.deepEqual(callPathFromOperationId('issues/list-for-repo'), ['issues', 'listForRepo']);
  assert.deepEqual(callPathFromOperationId('get_user by-id'), ['getUserById']);
  assert.deepEqual(callPathFromOperationId('getPetById'), ['getPetById']);
});

test('identifiers are valid JavaScript property names', () => {
  assert.equal(toIdentifier('2fa-enable'), '_2faEnable');
  assert.equal(toIdentifier('---'), '_');
});

test('without an operationId, the call path comes from tag, method and path', () => {
  assert.deepEqual(callPathFromRoute('GET', '/pets/{petId}', 'pets'), ['pets', 'getPetsByPetId']);
  assert.deepEqual(callPathFromRoute('POST', '/stores/{storeId}/orders', undefined), ['stores', 'postStoresOrdersByStoreId']);
});

test('collisions are resolved deterministically, first come keeps its name', () => {
  const resolved = resolveCallPathCollisions([
    ['a', 'list'],
    ['a', 'list'],
    ['a', 'list'],
  ]);
  assert.deepEqual(resolved, [
    ['a', 'list'],
    ['a', 'list2'],
    ['a', 'list3'],
  ]);
  assert.deepEqual(
    resolveCallPathCollisions([
      ['a', 'list'],
      ['a', 'list'],
    ]),
    resolveCallPathCollisions([
      ['a', 'list'],
      ['a', 'list'],
    ]),
  );
});

test('a leaf never shadows a namespace', () => {
  const resolved = resolveCallPathCollisions([['events'], ['events', 'list']]);
  assert.deepEqual(resolved, [['events2'], ['events', 'list']]);
});
