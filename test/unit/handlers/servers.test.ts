// The servers' control methods that need no running server, built from info,
// upstream, keys, logs and the hub only: a server added from a form's entry
// or from JSON pasted in a client's format (its inline values into the key
// store, never into servers.json), refused with why when it cannot be; a
// removal that takes its secrets, sign-in and review with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServerHandlers } from '../../../main/core/runtime/serverHandlers.ts';
import { UpstreamServers } from '../../../main/core/upstream/upstreamServers.ts';
import { ServerStore } from '../../../main/core/upstream/serverStore.ts';
import { PinStore } from '../../../main/core/upstream/toolPins.ts';
import { createMemoryStore } from '../../../main/core/secrets/memoryStore.ts';
import { EventHub } from '../../../main/core/control/eventHub.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { pastedEntry } from '../../../main/core/upstream/serverAdmin.ts';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { GrantStore } from '../../../main/core/approvals/grantStore.ts';
import { tempDir } from '../../helpers/paths.ts';
import { airlockError, companionInfo, fakeKeys, invoke, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 15_000 };
const TOKEN = 'ghp_PASTED0123456789abcdefSECRET';

function setup(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-server-handlers-');
  t.after(cleanup);
  const info = companionInfo(dir);
  const store = new ServerStore(info.paths.servers);
  const keyStore = createMemoryStore();
  const hub = new EventHub();
  // The screens hear of a change (the hub sends its events in batches, a moment later).
  let heard!: () => void;
  const changed = new Promise<void>((resolve) => (heard = resolve));
  hub.subscribe({ send: (batch) => batch.some((e) => e.type === 'servers-changed') && heard() });
  const reviews = new PinStore(info.paths.serverReviews);
  const upstream = new UpstreamServers({
    entries: () => store.list(),
    pins: reviews,
    launch: () => Promise.reject(new Error('not started in this test')),
    logger: silentLogger,
  });
  const broker = new ApprovalBroker({ timeoutMs: 60_000, approversAvailable: () => true, noApproverMessage: 'nobody', grants: new GrantStore() });
  const handlers = createServerHandlers({
    info,
    upstream,
    serverEntries: store,
    serverReviews: reviews,
    keys: fakeKeys(keyStore),
    logs: testLogs(),
    hub,
    broker,
  });
  return { info, store, keyStore, handlers, changed };
}

test('a server pasted as a client writes it: its inline value goes to the key store, its name to the entry', T, async (t) => {
  const { info, keyStore, handlers, changed } = setup(t);
  const json = JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: TOKEN } } } });
  const view = await invoke(handlers, 'servers.add', { name: 'github', json });
  assert.equal(view.state, 'configured');
  assert.equal(view.review, 'unreviewed');
  assert.deepEqual(view.secrets, [{ name: 'GITHUB_TOKEN', set: true }]);
  assert.equal(await keyStore.get('mcp-server:github:GITHUB_TOKEN'), TOKEN);
  assert.doesNotMatch(readFileSync(info.paths.servers, 'utf8'), /ghp_/);
  await changed;

  const formed = await invoke(handlers, 'servers.add', { name: 'remote', entry: { transport: 'http', url: 'https://mcp.example.com/mcp' } });
  assert.equal(formed.target, 'https://mcp.example.com/mcp');
  await assert.rejects(
    invoke(handlers, 'servers.add', { name: 'bad', entry: { transport: 'stdio', command: './x.sh' } }),
    airlockError('usage', /relative path/),
  );
  await assert.rejects(invoke(handlers, 'servers.add', { name: 'both', json: '{}', entry: {} }), airlockError('usage', /one of the two/));
  await assert.rejects(invoke(handlers, 'servers.add', { name: 'github', json }), airlockError('usage', /exists already/));

  const removed = await invoke(handlers, 'servers.remove', { name: 'github' });
  assert.deepEqual(removed, { removed: true });
  assert.equal(await keyStore.get('mcp-server:github:GITHUB_TOKEN'), undefined, 'its secret went with it');
  assert.deepEqual(
    (await invoke(handlers, 'servers.list', {})).map((v) => v.name),
    ['remote'],
  );
  assert.deepEqual(await invoke(handlers, 'servers.remove', { name: 'github' }), { removed: false });
  assert.ok(existsSync(info.paths.servers));
});

test('pasted JSON: one entry, a name over one, or a client config with one server; more or none is refused with what to do', T, () => {
  assert.deepEqual(pastedEntry('{"command":"npx"}'), { raw: { command: 'npx' } });
  assert.deepEqual(pastedEntry('{"fs":{"command":"npx"}}'), { from: 'fs', raw: { command: 'npx' } });
  assert.deepEqual(pastedEntry('{"servers":{"fs":{"type":"stdio","command":"npx"}}}').from, 'fs');
  assert.throws(() => pastedEntry('{"mcpServers":{"a":{},"b":{}}}'), /holds 2 servers \(a, b\): paste one/);
  assert.throws(() => pastedEntry('not json'), /not JSON/);
  assert.throws(() => pastedEntry('[1]'), /not an object/);
});

test('removing a server never needs the key store: with none to reach, the entry goes and the secrets left in it are named (issue 36 §7)', T, async (t) => {
  const { keyStore, handlers } = setup(t);
  await invoke(handlers, 'servers.add', { name: 'plain', entry: { transport: 'stdio', command: '/usr/bin/true' } });
  const json = JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: TOKEN } } } });
  await invoke(handlers, 'servers.add', { name: 'github', json });
  // The keychain goes away (a machine with no Secret Service).
  keyStore.delete = () => Promise.reject(new Error('keychain unavailable: no Secret Service'));
  assert.deepEqual(await invoke(handlers, 'servers.remove', { name: 'plain' }), { removed: true }, 'a server with no secret: nothing to say');
  assert.deepEqual(await invoke(handlers, 'servers.remove', { name: 'github' }), { removed: true, leftBehind: ['mcp-server:github:GITHUB_TOKEN'] });
  assert.deepEqual(await invoke(handlers, 'servers.list', {}), []);
});

test('a server whose command is not there is added, and its view says so (issue 36 §12)', T, async (t) => {
  const { handlers } = setup(t);
  const ghost = await invoke(handlers, 'servers.add', { name: 'ghost', entry: { transport: 'stdio', command: 'airlock-no-such-command-xyz' } });
  assert.match(ghost.commandMissing ?? '', /'airlock-no-such-command-xyz' is not found on the PATH a server is started with/);
  const real = await invoke(handlers, 'servers.add', { name: 'real', entry: { transport: 'stdio', command: process.execPath } });
  assert.equal(real.commandMissing, undefined);
  assert.deepEqual(
    (await invoke(handlers, 'servers.list', {})).map((v) => [v.name, v.commandMissing !== undefined]),
    [
      ['ghost', true],
      ['real', false],
    ],
  );
});
