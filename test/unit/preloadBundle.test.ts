// The preload must be one self-contained CommonJS file: a sandboxed preload
// can require nothing but electron. This checks the built file, when there is
// one (npm run build), and that it exposes named methods only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertFresh, notBuilt } from '../helpers/builtOutput.ts';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { ROOT } from '../helpers/paths.ts';
import { CONTROL_METHOD_NAMES } from '../../contract/methods.ts';
import { controlContract } from '../../contract/control.ts';
import { channelOf, EVENTS_CHANNEL, NAVIGATE_CHANNEL } from '../../contract/ipc.ts';

const built = join(ROOT, 'out', 'preload', 'index.cjs');

test('the method list the preload exposes is the contract table', { timeout: 10_000 }, () => {
  assert.deepEqual([...CONTROL_METHOD_NAMES].sort(), Object.keys(controlContract).sort());
});

test('the built preload requires only electron and has no generic invoke', { skip: notBuilt(built), timeout: 10_000 }, () => {
  assertFresh(built);
  const text = readFileSync(built, 'utf8');
  const required = [...text.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(required)], ['electron']);
  assert.doesNotMatch(text, /^\s*import /m);
  assert.doesNotMatch(text, /exposeInMainWorld\([^)]*invoke\s*:/);
});

test('the built preload uses the channel names of contract/ipc.ts', { skip: notBuilt(built), timeout: 10_000 }, async () => {
  assertFresh(built);
  const invoked: string[] = [];
  const listened: string[] = [];
  let exposed: Record<string, (...args: unknown[]) => unknown> = {};
  const electron = {
    contextBridge: { exposeInMainWorld: (_key: string, api: typeof exposed) => void (exposed = api) },
    ipcRenderer: {
      invoke: async (channel: string) => void invoked.push(channel),
      on: (channel: string) => void listened.push(channel),
      removeListener() {},
    },
  };
  const module = { exports: {} };
  const require = (id: string) => {
    assert.equal(id, 'electron');
    return electron;
  };
  runInNewContext(readFileSync(built, 'utf8'), { require, module, exports: module.exports });
  for (const method of CONTROL_METHOD_NAMES) await exposed[method]!({});
  assert.deepEqual(invoked, CONTROL_METHOD_NAMES.map(channelOf));
  exposed.onEvents!(() => undefined);
  exposed.onNavigate!(() => undefined);
  assert.deepEqual(listened, [EVENTS_CHANNEL, NAVIGATE_CHANNEL]);
});
