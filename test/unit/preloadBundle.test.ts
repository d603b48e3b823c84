// The preload must be one self-contained CommonJS file: a sandboxed preload
// can require nothing but electron. This checks the built file, when there is
// one (npm run build), and that it exposes named methods only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.ts';
import { CONTROL_METHOD_NAMES } from '../../contract/methods.ts';
import { controlContract } from '../../contract/control.ts';

const built = join(ROOT, 'out', 'preload', 'index.cjs');

test('the method list the preload exposes is the contract table', { timeout: 10_000 }, () => {
  assert.deepEqual([...CONTROL_METHOD_NAMES].sort(), Object.keys(controlContract).sort());
});

test(
  'the built preload requires only electron and has no generic invoke',
  { skip: existsSync(built) ? false : 'not built (npm run build)', timeout: 10_000 },
  () => {
    const text = readFileSync(built, 'utf8');
    const required = [...text.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(required)], ['electron']);
    assert.doesNotMatch(text, /^\s*import /m);
    assert.doesNotMatch(text, /exposeInMainWorld\([^)]*invoke\s*:/);
  },
);
