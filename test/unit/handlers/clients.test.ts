// The Clients screen's methods, built from info and logs only, against a
// home directory of the test's own (HOME and XDG_CONFIG_HOME point into a temp
// dir for this test process): a client's state, a dry run that writes
// nothing, a removal that is backed up and logged, and undo. Adding for real
// ends with a handshake that starts a companion, so it is left to the e2e
// tests; Cursor is used because it has no CLI of its own. HTTP clients' own
// tokens: made, listed, revoked, and seen by the server's own store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClientHandlers, type ClientHandlerServices } from '../../../main/core/runtime/clientHandlers.ts';
import { CLIENT_IDS } from '../../../contract/clients.ts';
import { tempDir } from '../../helpers/paths.ts';
import { openClientTokens } from '../../../main/core/http/clientTokens.ts';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { airlockError, companionInfo, invoke, logged, testLogs } from '../../helpers/handlerServices.ts';

const T = { timeout: 20_000, skip: process.platform === 'win32' ? 'the home directory is redirected with HOME (POSIX)' : false };

function setup(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-client-handlers-');
  const home = join(dir, 'home');
  mkdirSync(home);
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  t.after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    cleanup();
  });
  const services: ClientHandlerServices = { info: companionInfo(join(dir, 'data')), logs: testLogs() };
  const cursorFile = join(home, '.cursor', 'mcp.json');
  return { home, cursorFile, services, handlers: createClientHandlers(services) };
}

const cursorOf = async (handlers: ReturnType<typeof setup>['handlers']) => (await invoke(handlers, 'clients.list', {})).find((c) => c.id === 'cursor')!;

test('clients.list has every client once; Cursor is not installed until its directory exists, then not registered', T, async (t) => {
  const s = setup(t);
  const list = await invoke(s.handlers, 'clients.list', {});
  assert.deepEqual(list.map((c) => c.id).sort(), [...CLIENT_IDS].sort());
  assert.equal((await cursorOf(s.handlers)).state, 'not-installed');
  mkdirSync(join(s.home, '.cursor'));
  const cursor = await cursorOf(s.handlers);
  assert.equal(cursor.state, 'not-registered');
  assert.equal(cursor.file, s.cursorFile);
  assert.equal(cursor.via, 'file');
  assert.equal(cursor.lastChangeAt, undefined);
});

test('a dry run shows the change and writes nothing', T, async (t) => {
  const s = setup(t);
  mkdirSync(join(s.home, '.cursor'));
  const result = await invoke(s.handlers, 'clients.change', { id: 'cursor', action: 'add', dryRun: true });
  assert.equal(result.changed, true);
  assert.equal(result.dryRun, true);
  assert.equal(result.file, s.cursorFile);
  assert.match(result.diff, /\+.*"airlock"/);
  assert.equal(result.handshake, undefined, 'no handshake for a dry run');
  assert.equal(existsSync(s.cursorFile), false);
  assert.deepEqual(logged(s.services.logs), []);
});

test('a client that is not installed cannot be changed', T, async (t) => {
  const s = setup(t);
  await assert.rejects(
    invoke(s.handlers, 'clients.change', { id: 'cursor', action: 'add', dryRun: true }),
    airlockError('unavailable', /Cursor does not seem to be installed/),
  );
});

test('removing Airlock from a client backs the file up and logs who did it; undo restores it, once', T, async (t) => {
  const s = setup(t);
  mkdirSync(join(s.home, '.cursor'));
  const original =
    JSON.stringify({ mcpServers: { airlock: { command: '/old/airlock', args: ['stdio'] }, other: { command: 'other-server' } } }, null, 2) + '\n';
  writeFileSync(s.cursorFile, original);

  const removed = await invoke(s.handlers, 'clients.change', { id: 'cursor', action: 'remove' }, { by: 'frank via desktop', channel: 'ipc' });
  assert.equal(removed.changed, true);
  assert.equal(removed.dryRun, false);
  assert.ok(removed.backup && existsSync(removed.backup));
  assert.equal(removed.handshake, undefined, 'only an add is checked with a handshake');
  assert.deepEqual(JSON.parse(readFileSync(s.cursorFile, 'utf8')), { mcpServers: { other: { command: 'other-server' } } });
  assert.deepEqual(logged(s.services.logs), [`removed from cursor (${s.cursorFile}) by frank via desktop`]);
  assert.ok((await cursorOf(s.handlers)).lastChangeAt, 'the list says there is a change to undo');

  // Removing it again changes nothing and logs nothing.
  const again = await invoke(s.handlers, 'clients.change', { id: 'cursor', action: 'remove' });
  assert.equal(again.changed, false);
  assert.equal(logged(s.services.logs).length, 1);

  const undone = await invoke(s.handlers, 'clients.undo', { id: 'cursor' });
  assert.deepEqual(undone, { id: 'cursor', file: s.cursorFile, backup: removed.backup, restored: 'previous' });
  assert.equal(readFileSync(s.cursorFile, 'utf8'), original);
  assert.equal(logged(s.services.logs).at(-1), `client cursor: ${s.cursorFile} restored by alice via test`);
  await assert.rejects(invoke(s.handlers, 'clients.undo', { id: 'cursor' }), airlockError('not_found', /no change to undo for Cursor/));
});

test("clientTokens: a token is in create's answer only; the companion's own store knows it at once; a revoke counts at once", T, async (t) => {
  const s = setup(t);
  mkdirSync(s.services.info.paths.root, { recursive: true }); // as the companion's start makes it
  const made = await invoke(s.handlers, 'clientTokens.create', { name: 'ci-bot', apis: ['demo', 'demo'] });
  assert.match(made.token, /^alc_[\w-]{43}$/);
  assert.deepEqual(made.view.scope, ['demo'], 'a repeated API once');
  const listed = await invoke(s.handlers, 'clientTokens.list', {});
  assert.deepEqual(listed, [made.view]);
  assert.equal(JSON.stringify(listed).includes(made.token), false, 'the list never holds the token');
  const file = readFileSync(join(s.services.info.paths.root, 'client-tokens.json'), 'utf8');
  assert.equal(file.includes(made.token), false, 'the file keeps a hash, not the token');
  // The server opens the same file on its own (companionServer.ts): what the screen made, it lets in.
  const server = openClientTokens(s.services.info.paths.clientTokens);
  assert.equal(server.match(made.token)?.name, 'ci-bot');
  assert.match(logged(s.services.logs).join('\n'), /client token made for ci-bot \(sha256:[0-9a-f]{12}\) by /);

  await assert.rejects(invoke(s.handlers, 'clientTokens.create', { name: 'ci-bot' }), airlockError('conflict', /a token for 'ci-bot' exists already/));
  await assert.rejects(invoke(s.handlers, 'clientTokens.create', { name: 'no/slash' }), airlockError('usage', /client name "no\/slash"/));

  // A grant "this client, until revoked" given to this token goes with it.
  const broker = new ApprovalBroker({ timeoutMs: 60_000, approversAvailable: () => true, noApproverMessage: 'needs a person' });
  broker.grants.add({
    scope: 'client-always',
    profile: 'demo',
    operationId: 'events.create',
    clientName: 'ci-bot',
    clientTokenId: made.view.id,
    grantedBy: 'alice',
  });
  broker.grants.add({ scope: 'always', profile: 'demo', operationId: 'events.list', grantedBy: 'alice' });
  const withBroker = createClientHandlers({ ...s.services, broker });
  const revoked = await invoke(withBroker, 'clientTokens.revoke', { id: made.view.id });
  assert.deepEqual(
    broker.grants.list().map((g) => g.operationId),
    ['events.list'],
    'its grant went with it, and no other',
  );
  assert.equal(revoked.revoked.name, 'ci-bot');
  assert.equal(server.match(made.token), undefined, 'refused at its next request');
  assert.deepEqual(await invoke(s.handlers, 'clientTokens.list', {}), []);
  await assert.rejects(invoke(s.handlers, 'clientTokens.revoke', { id: made.view.id }), airlockError('not_found', /no client token/));
});
