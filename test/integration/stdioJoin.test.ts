// `airlock stdio` joins the companion for its data dir: the client's calls
// land in the running companion (its sessions, audit and approval queue),
// a companion is started in the background when none runs and exits when
// idle, a restarted companion is found again, and a client that goes away
// leaves its pending approvals marked "stopped waiting" for the person to
// decide — at once, even when it is killed without a goodbye, since its
// session lives exactly as long as its pipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { serve } from '../helpers/processes.ts';
import { controlClient } from '../helpers/control.ts';
import { execute } from '../helpers/mcpClients.ts';
import { CLI, NODE, ROOT, tempDir } from '../helpers/paths.ts';

async function stdioClient(dir: string, name: string, env: Record<string, string> = {}): Promise<Client & { shimPid: number }> {
  const client = new Client({ name, version: '1.2.3' });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, 'stdio', '--data-dir', dir],
    cwd: ROOT,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...env },
  });
  await client.connect(transport);
  return Object.assign(client, { shimPid: transport.pid! });
}

const CREATE_EVENT = `return (await api.events.create({ body: { title: 'left', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;

/** Polls `check` every 50 ms until it holds; fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a stdio client's calls land in the running companion, which shows it by name", { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const client = await stdioClient(dir, 'joined-client');
  t.after(() => client.close());
  assert.equal((await execute(client, 'return 40 + 2')).text, '42');
  const control = controlClient(dir, server.url);
  const sessions = await control.call('sessions.list', {});
  assert.ok(
    sessions.some((s) => s.clientName === 'joined-client' && s.transport === 'stdio'),
    JSON.stringify(sessions),
  );
  const audit = await control.call('audit.query', { tool: 'execute', limit: 5 });
  assert.ok(
    audit.records.some((r) => r.kind === 'tool' && r.clientName === 'joined-client'),
    'the companion audited the call',
  );
  assert.equal(readFileSync(join(dir, 'server.json'), 'utf8').includes(String(server.child.pid)), true, 'no second companion');
});

test('with no companion running, stdio starts one in the background, which exits when idle', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const client = await stdioClient(dir, 'first-client', { AIRLOCK_EXIT_WHEN_IDLE: '2' });
  assert.equal((await execute(client, 'return "hello"')).text, 'hello');
  const info = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { pid: number };
  assert.notEqual(info.pid, undefined);
  await client.close();
  await until(() => !existsSync(join(dir, 'server.json')), 'the background companion exits after 2 s without clients');
  assert.match(readFileSync(join(dir, 'companion.log'), 'utf8'), /exiting \(--exit-when-idle\)/);
});

test('a companion that restarts is found again: the next call goes through', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  let server = await serve(dir);
  const client = await stdioClient(dir, 'survivor');
  t.after(async () => {
    await client.close();
    await server.stop();
  });
  assert.equal((await execute(client, 'return 1')).text, '1');
  await server.stop();
  server = await serve(dir);
  assert.equal((await execute(client, 'return 2')).text, '2', 'a new session on the new companion, the client none the wiser');
});

test(
  'a 2026-07-28 client finds a restarted companion too: its next call, with the envelope, opens the new pipe in that revision',
  { timeout: 90_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    let server = await serve(dir);
    const client = new ModernClient({ name: 'modern-survivor', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new ModernStdioTransport({ command: NODE, args: [CLI, 'stdio', '--data-dir', dir], cwd: ROOT, stderr: 'pipe' }));
    t.after(async () => {
      await client.close();
      await server.stop();
    });
    assert.equal(client.getNegotiatedProtocolVersion?.(), '2026-07-28');
    const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';
    assert.equal(text(await client.callTool({ name: 'execute', arguments: { code: 'return 1' } })), '1');
    await server.stop();
    server = await serve(dir);
    assert.equal(text(await client.callTool({ name: 'execute', arguments: { code: 'return 2' } })), '2', 'the new companion answers, in the same revision');
    const { sessions } = await controlClient(dir, server.url).call('status', {});
    assert.equal(sessions.find((c) => c.clientName === 'modern-survivor')?.protocolVersion, '2026-07-28', JSON.stringify(sessions));
  },
);

test('a client that goes away leaves its pending approval marked in the companion, for the person to decide', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const control = controlClient(dir, server.url);
  const client = await stdioClient(dir, 'leaver');
  const run = execute(client, CREATE_EVENT).catch(() => undefined);
  await until(async () => (await control.call('approvals.list', {})).length === 1, 'the mutation waits for a person');
  await client.close();
  await run;
  await until(async () => (await control.call('approvals.list', {}))[0]?.clientStoppedWaitingAt !== undefined, 'the approval says the client stopped waiting');
  const [pending] = await control.call('approvals.list', {});
  await control.call('approvals.decide', { id: pending!.id, decision: 'deny', reason: 'the client stopped waiting' });
  assert.deepEqual(await control.call('approvals.list', {}), []);
});

test('when the desktop app is installed, stdio starts it in the background (tray only) rather than a headless serve', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  // A stand-in for the installed app: records how it was started, then serves as the app would.
  const app = join(dir, 'Airlock');
  const marker = join(dir, 'app-started-with');
  writeFileSync(app, `#!/bin/sh\necho "$@" > '${marker}'\nshift\nexec '${NODE}' '${CLI}' serve --port 0 --exit-when-idle 2 "$@"\n`, { mode: 0o755 });
  const data = join(dir, 'data');
  const client = await stdioClient(data, 'app-starter', { AIRLOCK_DESKTOP_APP: app });
  assert.equal((await execute(client, 'return 5')).text, '5');
  assert.equal(readFileSync(marker, 'utf8').trim(), `--background --data-dir ${data}`);
  await client.close();
  await until(() => !existsSync(join(data, 'server.json')), 'the stand-in exits once idle');
});

test(
  'a client killed without a goodbye releases its session within 5 s: its call in flight counted until then, its approval marked for the person',
  { timeout: 90_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const server = await serve(dir);
    t.after(() => server.stop());
    const control = controlClient(dir, server.url);
    const client = await stdioClient(dir, 'killed-client');
    const run = execute(client, CREATE_EVENT).catch(() => undefined);
    await until(async () => (await control.call('approvals.list', {})).length === 1, 'the mutation waits for a person');
    const mine = async () => (await control.call('sessions.list', {})).find((s) => s.clientName === 'killed-client');
    assert.equal((await mine())?.inFlight, 1, 'the Overview counts the call in flight');
    process.kill(client.shimPid, 'SIGKILL');
    await until(
      async () => (await control.call('approvals.list', {}))[0]?.clientStoppedWaitingAt !== undefined && (await mine()) === undefined,
      'session released, approval marked',
      5_000,
    );
    const audit = await control.call('audit.query', { tool: 'execute', limit: 5 });
    assert.ok(
      audit.records.some((r) => r.kind === 'tool' && r.clientName === 'killed-client' && r.outcome === 'held'),
      'the call its client gave up on is audited as held',
    );
    const [pending] = await control.call('approvals.list', {});
    await control.call('approvals.decide', { id: pending!.id, decision: 'deny', reason: 'the client is gone' });
    await client.close().catch(() => undefined);
    await run;
  },
);

test('a background companion started for a client that is then killed exits once idle', { timeout: 90_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const client = await stdioClient(dir, 'short-lived', { AIRLOCK_EXIT_WHEN_IDLE: '2' });
  assert.equal((await execute(client, 'return 7')).text, '7');
  process.kill(client.shimPid, 'SIGKILL');
  await until(() => !existsSync(join(dir, 'server.json')), 'the background companion exits 2 s after its only client died');
  await client.close().catch(() => undefined);
});

test('the joined pipe passes the same doors as /mcp: token, Host and Origin', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const upgrade = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/mcp/pipe`, { headers: { connection: 'Upgrade', upgrade: 'airlock-mcp-lines', ...headers }, timeout: 10_000 });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy(new Error('no answer')));
      req.on('error', reject);
      req.end();
    });
  const bearer = { authorization: `Bearer ${server.token}` };
  assert.equal(await upgrade({}), 401, 'no token');
  assert.equal(await upgrade({ authorization: 'Bearer wrong' }), 401, 'wrong token');
  assert.equal(await upgrade({ ...bearer, host: 'evil.example' }), 403, 'foreign Host');
  assert.equal(await upgrade({ ...bearer, origin: 'https://evil.example' }), 403, 'foreign Origin');
  assert.equal(await upgrade({ ...bearer, upgrade: 'websocket' }), 404, 'another protocol');
  assert.equal(await upgrade(bearer), 101, 'the right token, Host and protocol');
});
