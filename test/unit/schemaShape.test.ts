import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaShape } from '../../main/core/openapi/schemaShape.ts';

test('a shortened body shape never drops a required field', () => {
  const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: 'string' }]));
  const schema = { type: 'object', required: ['f17', 'f19'], properties };
  const shape = schemaShape(schema, { maxProps: 5 });
  assert.equal(shape, '{ f0?: string; f1?: string; f2?: string; f17: string; f19: string; …15 more }');
  const allRequired = schemaShape({ type: 'object', required: Object.keys(properties), properties }, { maxProps: 3 });
  assert.ok(
    Object.keys(properties).every((k) => allRequired.includes(`${k}: string`)),
    'every required field, whatever the limit',
  );
});
