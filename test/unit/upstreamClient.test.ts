// Airlock as the MCP client of a stdio server (issue 20), against a small
// server of our own that misbehaves on request (test/fixtures/upstream/
// testServer.ts): its tools listed and called; its environment only what the
// entry allows; a line over the bound drained and refused with the
// connection still usable; a call timed out, or kept alive by progress; its
// whole process group stopped; a server that cannot start, or dies before
// answering, refused with why and its last stderr lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectStdio, type UpstreamConnection } from '../../main/core/upstream/upstreamClient.ts';
import { childEnvironment } from '../../main/core/upstream/childEnvironment.ts';
import type { StdioServerEntry } from '../../main/core/upstream/serverEntry.ts';
import { ROOT } from '../helpers/paths.ts';
import { clientClock, turn } from '../helpers/clientClock.ts';

const T = { timeout: 30_000 };
const SERVER = join(ROOT, 'test', 'fixtures', 'upstream', 'testServer.ts');

function entry(overrides: Partial<StdioServerEntry> = {}): StdioServerEntry {
  return { transport: 'stdio', command: process.execPath, args: [SERVER], env: [], secrets: [], enabled: true, timeoutMs: 10_000, ...overrides };
}

async function connect(
  t: { after(fn: () => unknown): void },
  overrides: Partial<StdioServerEntry> = {},
  extra: { secrets?: Record<string, string>; maxMessageBytes?: number } = {},
) {
  const e = entry(overrides);
  const logged: string[] = [];
  const parent = { PATH: process.env.PATH, HOME: '/home/test', AIRLOCK_API_KEY: 'sk_live_never_passed' };
  const connection: UpstreamConnection = await connectStdio('misbehaving', e, {
    env: childEnvironment({ pass: e.env, secrets: extra.secrets ?? {}, parent }),
    log: (line) => logged.push(line),
    ...(extra.maxMessageBytes ? { maxMessageBytes: extra.maxMessageBytes } : {}),
  });
  t.after(() => connection.close());
  return { connection, logged };
}

const textOf = (r: { content: unknown }) => (r.content as { text: string }[])[0]!.text;

/** Whether a process runs (a zombie waiting for a parent that does not reap it counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: kill(0) said it runs
  }
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a server of MCP 2026-07-28 is spoken to in that revision (server/discover first), progress and all', T, async (t) => {
  const { connection } = await connect(t, { args: [join(ROOT, 'test', 'fixtures', 'upstream', 'modernServer.ts')] });
  assert.deepEqual((await connection.tools()).map((tool) => tool.name).sort(), ['ask', 'revision', 'slow']);
  assert.equal(textOf(await connection.call('revision', {})), '2026-07-28');
  assert.equal(textOf(await connection.call('slow', {})), 'done');
});

test('its tools are listed and called', T, async (t) => {
  const { connection } = await connect(t);
  const names = (await connection.tools()).map((x) => x.name).sort();
  assert.deepEqual(names, ['big', 'crash', 'delete_notes', 'echo', 'env', 'flood', 'grandchild', 'peek', 'rewrite', 'slow', 'write_note']);
  assert.equal(textOf(await connection.call('echo', { text: 'hello' })), 'hello');
});

test('the server gets PATH, what its entry passes and its secrets, nothing else of Airlock’s environment', T, async (t) => {
  const { connection } = await connect(t, { env: ['HOME'], secrets: ['GITHUB_TOKEN'] }, { secrets: { GITHUB_TOKEN: 'ghp_from_keychain' } });
  const seen = JSON.parse(textOf(await connection.call('env', { show: 'GITHUB_TOKEN' }))) as { names: string[]; value: string };
  // Node may add a variable or two of its own (e.g. on macOS); none of Airlock's leaks.
  assert.deepEqual(
    seen.names.filter((n) => !n.startsWith('__CF') && n !== 'PWD'),
    ['GITHUB_TOKEN', 'HOME', 'PATH'],
  );
  assert.equal(seen.value, 'ghp_from_keychain');
});

test('a line over the bound is drained and refused, and the connection stays usable', T, async (t) => {
  const { connection, logged } = await connect(t, {}, { maxMessageBytes: 64 * 1024 });
  assert.equal(textOf(await connection.call('flood', {})), 'flooded');
  assert.match(logged.join('\n'), /a line of 29\d\.\d KiB is over the 64\.0 KiB limit; it was dropped/);
  assert.equal(textOf(await connection.call('echo', { text: 'still here' })), 'still here');
});

test('a call gets no answer within the timeout and fails; progress keeps a long call alive', T, async (t) => {
  // On from the start: the server's answer to initialize, under the same 1 s timeout, may take longer on a busy machine.
  const clock = clientClock(1000);
  try {
    const { connection } = await connect(t, { timeoutMs: 1000 });
    // A server that does not answer: the call fails when its 1 s deadline passes on the client's clock, not before.
    let settled = false;
    const set = clock.deadlines;
    const silent = connection.call('slow', { ms: 600_000 }).finally(() => (settled = true));
    await clock.deadlineSet(set + 1);
    clock.tick(999);
    await turn();
    assert.equal(settled, false, 'still waiting 1 ms before the timeout');
    clock.tick(1);
    await assert.rejects(silent, /timed out|Request timed out/i);

    // A server that tells progress every 100 ms (real time): each progress sets the deadline again, so the call
    // lives on while the client's clock moves on to 1 ms before each deadline, many timeouts in all.
    const started = clock.now;
    const firstDeadline = clock.deadlines + 1;
    let done = false;
    const kept = connection.call('slow', { ms: 1000, progress: true }).finally(() => (done = true));
    for (let seen = firstDeadline; !done; seen = clock.deadlines + 1) {
      await Promise.race([clock.deadlineSet(seen), kept.catch(() => undefined)]);
      clock.toJustBeforeDeadline();
    }
    assert.equal(textOf(await kept), 'done');
    assert.ok(clock.now - started >= 2 * 1000, `alive after ${clock.now - started} ms of the client's clock, over twice its timeout`);
  } finally {
    clock.off();
  }
});

test('closing stops the whole process group: nothing the server started is left', { timeout: 30_000, skip: process.platform === 'win32' }, async (t) => {
  const { connection } = await connect(t);
  const grandchild = Number(textOf(await connection.call('grandchild', {})));
  assert.ok(alive(grandchild), 'the grandchild runs');
  await connection.close();
  await until(() => !alive(grandchild), 'end of the grandchild');
});

test('a command that does not exist, and a server that dies before answering, are refused with why', T, async () => {
  const log = () => undefined;
  await assert.rejects(
    connectStdio('nope', entry({ command: 'airlock-no-such-server-command', args: [] }), { env: { PATH: process.env.PATH ?? '' }, log }),
    /MCP server nope \(airlock-no-such-server-command\) could not be started: .*ENOENT/,
  );
  await assert.rejects(
    connectStdio('boom', entry(), { env: { PATH: process.env.PATH ?? '', BOOM: '1' }, log }),
    (e: Error) => /exited before it answered \(code 3\)/.test(e.message) && /fatal: cannot open the database/.test(e.message),
    'its last line, written without a newline, is in the reason',
  );
});

test('what the server says of its secrets is scrubbed, in the log and in the reason it failed', T, async () => {
  const token = 'ghp_0123456789abcdefLEAKED';
  const logged: string[] = [];
  const error = await connectStdio('leaky', entry(), {
    env: { PATH: process.env.PATH ?? '', LEAK: '1', GITHUB_TOKEN: token },
    log: (line) => logged.push(line),
    redact: (text) => text.split(token).join('[redacted]'),
  }).catch((e: Error) => e);
  assert.ok(error instanceof Error);
  assert.match(error.message, /auth failed for token \[redacted\]/);
  assert.equal(`${error.message}\n${logged.join('\n')}`.includes(token), false);
});

test('a server that pages its tools forever is cut off', T, async (t) => {
  const e = entry();
  const connection = await connectStdio('pager', e, { env: { PATH: process.env.PATH ?? '', REPEAT_CURSOR: '1' }, log: () => undefined });
  t.after(() => connection.close());
  await assert.rejects(connection.tools(), /gave a tools\/list cursor it had given before/);
});

test('a server that crashes during a call fails that call, at once', T, async (t) => {
  const { connection } = await connect(t);
  await assert.rejects(connection.call('crash', {}), /closed|Connection/i);
  const { code } = await connection.exited;
  assert.equal(code, 1);
});
