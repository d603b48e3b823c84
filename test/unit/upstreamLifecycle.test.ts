// The servers behind Airlock while the companion runs (issue 20), with fake
// connections: a server starts on first use, not before; its state is what
// the screens show (configured, starting, connected with its tool count,
// failed with why, stopped after a crash loop); a crash starts it again after
// the backoff, a loop stops it until a person restarts it; a disabled server
// is refused with how to enable it; a changed entry stops the old process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamServers } from '../../main/core/upstream/upstreamServers.ts';
import type { ServerEntry } from '../../main/core/upstream/serverEntry.ts';
import type { ChildExit } from '../../main/core/upstream/childProcess.ts';
import type { UpstreamConnection } from '../../main/core/upstream/upstreamClient.ts';
import type { Accepted } from '../../main/core/upstream/toolPins.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

const T = { timeout: 10_000 };
const TOOLS: Tool[] = [{ name: 'echo', inputSchema: { type: 'object' } }];

function entry(extra: Partial<ServerEntry> = {}): ServerEntry {
  return { transport: 'stdio', command: 'srv', args: [], env: [], secrets: [], enabled: true, timeoutMs: 60_000, ...extra } as ServerEntry;
}

/** A fake process per launch: `crash()` ends the latest one as a crash would. */
function harness(options: { failLaunch?: () => boolean; failTools?: () => boolean; baseDelayMs?: number } = {}) {
  const toolsChanged: (() => void)[] = [];
  const lines: string[] = [];
  const authorizers: (((url: URL) => Promise<URLSearchParams>) | undefined)[] = [];
  let entries: { name: string; entry: ServerEntry }[] = [{ name: 'fs', entry: entry() }];
  const launched: { closed: boolean; exit: (e: ChildExit) => void }[] = [];
  const accepted = new Map<string, Accepted>();
  const changes: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const check of [...waiters]) check();
  };
  const log = (line: string) => {
    lines.push(line);
    notify();
  };
  const servers = new UpstreamServers({
    entries: () => entries,
    pins: {
      get: (n) => accepted.get(n),
      accept: async (n, tools) => (
        accepted.set(n, { acceptedAt: 'now', tools: tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })) }),
        accepted.get(n)!
      ),
    },
    launch: async (_name, _entry, onToolsChanged, authorize) => {
      if (options.failLaunch?.()) throw new Error('spawn srv ENOENT');
      toolsChanged.push(onToolsChanged);
      authorizers.push(authorize);
      let exit!: (e: ChildExit) => void;
      const exited = new Promise<ChildExit>((r) => (exit = r));
      const proc = { closed: false, exit };
      launched.push(proc);
      notify();
      const connection: UpstreamConnection = {
        tools: async () => {
          if (options.failTools?.()) throw new Error('tools/list timed out');
          return TOOLS;
        },
        call: async (tool) => ({ content: [{ type: 'text', text: `ran ${tool}` }] }),
        stderrTail: () => ['panic: out of cheese'],
        exited,
        close: async () => {
          proc.closed = true;
          notify();
          exit({ code: 0, signal: null });
        },
      };
      return connection;
    },
    logger: { ...silentLogger, info: log, warn: log, error: log, child: () => silentLogger } as typeof silentLogger,
    restart: { baseDelayMs: options.baseDelayMs ?? 30, maxCrashes: 3, windowMs: 60_000 },
    onChange: () => {
      changes.push(servers.status()[0]?.state ?? 'none');
      notify();
    },
  });
  /**
   * Waits for `ready()` to hold, checked again at every change the fake sees (a state, a log line, a start, a
   * stop): no timer, so a wait that never ends fails on the test's deadline and keeps nothing running after it.
   */
  const until = (ready: () => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!ready()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  /** Waits for the first server to reach a state. */
  const reach = (state: string) => until(() => servers.status()[0]?.state === state);
  /** Waits for the n-th process to have been started and its server connected. */
  const started = async (n: number) => {
    await until(() => launched.length >= n);
    await reach('connected');
  };
  /** Waits for a process to be stopped. */
  const closed = (i: number) => until(() => launched[i]?.closed === true);
  /** Waits for a line of the log. */
  const logged = (line: RegExp) => until(() => lines.some((l) => line.test(l)));
  /** Marks a server's tools accepted without starting it (as a review done before). */
  const accept = (name: string) => accepted.set(name, { acceptedAt: 'before', tools: TOOLS.map((t) => ({ name: t.name, inputSchema: t.inputSchema })) });
  return {
    servers,
    launched,
    changes,
    lines,
    reach,
    started,
    closed,
    toolsChanged,
    logged,
    authorizers,
    accept,
    setEntries: (e: typeof entries) => (entries = e),
  };
}

test('a server starts on first use, not before, and then shows its tool count and review', T, async () => {
  const h = harness();
  assert.deepEqual(h.servers.status(), [{ name: 'fs', transport: 'stdio', enabled: true, state: 'configured', review: 'unreviewed', stderr: [] }]);
  assert.equal(h.launched.length, 0, 'listing starts nothing');
  const { tools, review } = await h.servers.tools('fs');
  assert.equal(tools.length, 1);
  assert.equal(review.state, 'unreviewed');
  await h.reach('connected');
  assert.equal(h.launched.length, 1);
  assert.deepEqual(h.changes.slice(0, 2), ['starting', 'connected']);
  const status = h.servers.status()[0]!;
  assert.equal(status.toolCount, 1);
  assert.equal(status.review, 'unreviewed');
  await h.servers.accept('fs');
  assert.equal(h.servers.status()[0]!.review, 'accepted');
  assert.deepEqual(h.servers.acceptedTools(), [{ name: 'fs', tools: ['echo'] }]);
  await h.servers.tools('fs');
  assert.equal(h.launched.length, 1, 'one process, reused');
  await h.servers.close();
  assert.equal(h.launched[0]!.closed, true, 'stopped with the companion');
});

test('while a server waits to start again after a crash, a call is told so at once, with when, not left to time out (issue 36 §5)', T, async () => {
  const h = harness({ baseDelayMs: 45_000 });
  await h.servers.accept('fs');
  await h.reach('connected');
  h.launched[0]!.exit({ code: 1, signal: null });
  await h.reach('failed');
  await assert.rejects(h.servers.call('fs', 'echo', {}), (error: unknown) => {
    const message = (error as Error).message;
    return /MCP server fs is restarting \(exited \(code 1\).*\): retry in 4[45] s/.test(message);
  });
  assert.equal(h.launched.length, 1, 'the call started nothing');
  // A person may start it now.
  await h.servers.restart('fs');
  await h.reach('connected');
  assert.equal((await h.servers.call('fs', 'echo', {})).content[0]?.type, 'text');
  await h.servers.close();
});

test('a crash starts it again after the backoff; a crash loop stops it, with the reason, until a person restarts it', T, async () => {
  const h = harness();
  await h.servers.accept('fs');
  await h.reach('connected');
  h.launched[0]!.exit({ code: 1, signal: null });
  await h.reach('failed');
  assert.match(h.servers.status()[0]!.reason!, /exited \(code 1\): panic: out of cheese/);
  assert.deepEqual(h.servers.status()[0]!.stderr, ['panic: out of cheese'], 'its last stderr lines');
  await h.started(2);
  assert.equal(h.launched.length, 2, 'started again by itself');
  h.launched[1]!.exit({ code: 1, signal: null });
  await h.started(3);
  h.launched[2]!.exit({ code: null, signal: 'SIGSEGV' });
  await h.reach('stopped');
  assert.match(h.servers.status()[0]!.reason!, /crashed 3 times in 1 min \(last: exited \(SIGSEGV\)/);
  await assert.rejects(h.servers.tools('fs'), /crashed 3 times/);
  assert.equal(h.launched.length, 3, 'a stopped server is not started by a call');
  await h.servers.restart('fs');
  await h.reach('connected');
  assert.equal(h.launched.length, 4, 'a person starts it again');
  await h.servers.close();
});

test('a server that cannot start fails with why; a call during its backoff is told so at once, and starts nothing', T, async () => {
  let fail = true;
  // A backoff longer than the test: what is checked happens during it, whatever the speed of the machine.
  const h = harness({ failLaunch: () => fail, baseDelayMs: 60_000 });
  h.accept('fs');
  await assert.rejects(h.servers.tools('fs'), /ENOENT/);
  await h.reach('failed');
  assert.match(h.servers.status()[0]!.reason!, /spawn srv ENOENT/);
  fail = false;
  await assert.rejects(h.servers.tools('fs'), /MCP server fs is restarting \(spawn srv ENOENT\): retry in (59|60) s/);
  assert.equal(h.launched.length, 0, 'no second start');
  await h.servers.restart('fs');
  await h.reach('connected');
  const { tools } = await h.servers.tools('fs');
  assert.equal(tools.length, 1);
  assert.equal(h.launched.length, 1);
  await h.servers.close();
});

test('disabled, removed or changed: refused with how to enable it, or stopped and started anew', T, async () => {
  const h = harness();
  await h.servers.tools('fs');
  h.setEntries([{ name: 'fs', entry: entry({ args: ['--other'] }) }]);
  await h.servers.tools('fs');
  assert.equal(h.launched.length, 2);
  await h.closed(0);
  h.setEntries([{ name: 'fs', entry: entry({ args: ['--other'], enabled: false }) }]);
  assert.equal(h.servers.status()[0]!.state, 'disabled');
  await h.closed(1);
  assert.deepEqual(h.servers.acceptedTools(), []);
  await assert.rejects(h.servers.tools('fs'), /MCP server fs is disabled/);
  h.setEntries([]);
  await assert.rejects(h.servers.tools('fs'), /no MCP server named 'fs'/);
  await h.servers.close();
});

test(
  'tools that cannot be listed again after a change stop the server (never left on the old list); a server disabled during its backoff is not started again',
  T,
  async () => {
    let failTools = false;
    const h = harness({ failTools: () => failTools });
    await h.servers.accept('fs');
    await h.reach('connected');
    failTools = true;
    h.toolsChanged[0]!();
    await h.reach('failed');
    assert.match(h.servers.status()[0]!.reason!, /listing them again failed: tools\/list timed out/);
    await h.closed(0);
    // Disabled while it waits to start again: the timer does not start it.
    failTools = false;
    h.setEntries([{ name: 'fs', entry: entry({ enabled: false }) }]);
    await h.logged(/was disabled or changed while it waited to start again: not started/);
    assert.equal(h.launched.length, 1, 'not started again');
    assert.equal(h.servers.status()[0]!.state, 'disabled');
    await h.servers.close();
  },
);

test(
  'a server whose tools no person accepted is never started by itself: not after it stops or fails to start, not with the companion (issue 36 §12)',
  T,
  async () => {
    let fail = false;
    // A backoff longer than the test: a restart scheduled by mistake would hold every look for a minute.
    const h = harness({ failLaunch: () => fail, baseDelayMs: 60_000 });
    // A person looks at it (servers show): it starts, and lists its tools.
    await h.servers.tools('fs');
    await h.reach('connected');
    h.launched[0]!.exit({ code: 1, signal: null });
    await h.reach('failed');
    assert.match(h.servers.status()[0]!.reason!, /exited \(code 1\)/);
    await h.logged(/its tools were never accepted, so it is not started again by itself \(airlock servers show fs\)/);
    // No restart is pending: a person looking again starts it at once.
    await h.servers.tools('fs');
    assert.equal(h.launched.length, 2, 'started again when a person looked again, and only then');
    // A command that is not there: it fails each time a person looks, with why, and nothing waits to start it.
    fail = true;
    h.launched[1]!.exit({ code: 127, signal: null });
    await h.reach('failed');
    await assert.rejects(h.servers.tools('fs'), /spawn srv ENOENT/);
    await assert.rejects(h.servers.tools('fs'), /spawn srv ENOENT/, 'not "restarting": no start was scheduled');
    assert.equal(h.servers.status()[0]!.state, 'failed');
    await h.servers.close();

    const auto = harness();
    auto.setEntries([{ name: 'fs', entry: entry({ autostart: true }) }]);
    auto.servers.startAutostart();
    assert.equal(auto.servers.status()[0]!.state, 'configured', 'not started with the companion before its tools are accepted');
    assert.ok(auto.lines.some((l) => /MCP server fs starts with Airlock once its tools are accepted/.test(l)));
    auto.accept('fs');
    auto.servers.startAutostart();
    await auto.started(1);
    await auto.servers.close();
  },
);

test('a server whose entry says so starts with the companion; the others wait for their first use', T, async () => {
  const h = harness();
  h.accept('fs');
  h.accept('lazy');
  h.setEntries([
    { name: 'fs', entry: entry({ autostart: true }) },
    { name: 'lazy', entry: entry({ args: ['lazy'] }) },
  ]);
  h.servers.startAutostart();
  await h.started(1);
  assert.deepEqual(
    h.servers.status().map((v) => [v.name, v.state]),
    [
      ['fs', 'connected'],
      ['lazy', 'configured'],
    ],
  );
  await h.servers.close();
});

test('a sign-in starts the server with the person at hand, then starts it again for the companion, signed in', T, async () => {
  const h = harness();
  const authorize = async () => new URLSearchParams({ code: 'code' });
  await h.servers.login('fs', authorize);
  assert.equal(h.authorizers[0], authorize, 'the sign-in launch may ask the person');
  await h.closed(0);
  await h.started(2);
  assert.equal(h.authorizers[1], undefined, 'the companion never asks by itself');
  await h.servers.close();
});
