// The behaviour every subprocess engine configuration must show, written
// once and run against node (egress none), deno (executor), and both under
// the srt wrapper. Each test file adds what is specific to its engine (the
// runtime layer without Airlock's prelude, the srt policy). A suite that needs
// system tools (srt's, Deno) names them: where they are missing it is one
// skipped suite saying what to install (see systemTools.ts).
import { readFileSync } from 'node:fs';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as humanDecision } from 'node:timers/promises';
import type { ConsoleEntry, RunOutcome } from '../../main/core/sandbox/engine.ts';
import type { SubprocessEngine } from '../../main/core/sandbox/subprocess/subprocessEngine.ts';
import {
  canaryForms,
  cmdlineOf,
  environOf,
  escapeProgram,
  fakeApi,
  fakeDataDir,
  groupAlive,
  MUST_FAIL,
  plantCanary,
  processesUnder,
  runCode,
  startOtherServer,
  TWO_APIS,
  TWO_APIS_ANSWER,
  TWO_APIS_CODE,
  startRecordingProxy,
  until,
  within,
  type OtherServer,
  type RecordingProxy,
} from './subprocessHarness.ts';
import { tempDir } from './paths.ts';
import { describeWithTools, type SystemNeed } from './systemTools.ts';

export interface SuiteContext {
  proxy: RecordingProxy;
  /** Airlock's (fake) data dir, holding a secret. */
  dataDir: string;
  /** The engine's parent of run directories. */
  tmpDir: string;
}

export interface SuiteOptions {
  name: string;
  create(ctx: SuiteContext): SubprocessEngine;
  /** System tools the engine needs (SRT, DENO): without them the suite is skipped, or fails under AIRLOCK_REQUIRE_ALL=1. */
  needs?: SystemNeed[];
}

/** Environment variables a sandbox child may carry (srt adds its proxy settings inside its own sandbox only). */
const ALLOWED_ENV = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'NO_COLOR', 'DENO_DIR', 'DENO_NO_UPDATE_CHECK', 'DENO_NO_PROMPT', 'ELECTRON_RUN_AS_NODE']);

const HOST_PATH_MARKERS = ['/work', '/tmp', 'file://', 'node_modules', '$deno$stdin', '[eval'];

export function assertNoHostPaths(text: string): void {
  for (const marker of HOST_PATH_MARKERS) assert.ok(!text.includes(marker), `host path marker ${marker} leaked into: ${text}`);
}

function consoleBytes(entries: ConsoleEntry[]): number {
  return entries.reduce((sum, e) => sum + Buffer.byteLength(e.text, 'utf8') + 1, 0);
}

function expectError(outcome: RunOutcome, kind: string): asserts outcome is Extract<RunOutcome, { ok: false }> {
  assert.equal(outcome.ok, false, `expected a ${kind} error, got ${JSON.stringify(outcome).slice(0, 500)}`);
  assert.equal(outcome.error.kind, kind, `expected kind ${kind}: ${JSON.stringify(outcome.error)}`);
}

function expectValue(outcome: RunOutcome): unknown {
  assert.equal(outcome.ok, true, `expected success, got ${JSON.stringify(outcome).slice(0, 1500)}`);
  return outcome.ok ? outcome.value : undefined;
}

/** Every test waits on conditions, never the clock; this bounds a wait that would never end. */
const TIMEOUT = { timeout: 120_000 };

export function defineEngineSuite(options: SuiteOptions): void {
  const suite = options.needs?.length ? (name: string, fn: () => void) => describeWithTools(name, options.needs!, fn) : describe;
  suite(options.name, () => {
    let ctx: SuiteContext;
    let engine: SubprocessEngine;
    let other: OtherServer;
    let canary: ReturnType<typeof plantCanary>;
    let data: ReturnType<typeof fakeDataDir>;
    // Undone in reverse order, each one even if an earlier one (or the setup itself) failed: a server
    // left listening would keep this file's process alive after its tests.
    const undo: (() => unknown)[] = [];
    before(async () => {
      // Planted before the engine exists: nothing the engine builds may carry it.
      canary = plantCanary();
      undo.push(() => canary.restore());
      data = fakeDataDir(canary.canary);
      undo.push(() => data.cleanup());
      const tmp = tempDir('airlock-engine-test-');
      undo.push(() => tmp.cleanup());
      other = await startOtherServer();
      undo.push(() => other.close());
      const proxy = await startRecordingProxy();
      undo.push(() => proxy.close());
      ctx = { proxy, dataDir: data.dir, tmpDir: tmp.dir };
      engine = options.create(ctx);
      undo.push(() => engine.close());
    });

    after(async () => {
      const errors: unknown[] = [];
      for (const step of undo.reverse()) {
        try {
          await step();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw errors[0];
    });

    test('returns JSON values, strings as they are, and undefined', TIMEOUT, async () => {
      assert.deepEqual(expectValue(await runCode(engine, 'return { a: [1, "x", null], b: { c: true } };')), { a: [1, 'x', null], b: { c: true } });
      assert.equal(expectValue(await runCode(engine, 'return "plain text, not JSON";')), 'plain text, not JSON');
      assert.equal(expectValue(await runCode(engine, 'const x = 1;')), undefined);
      assert.equal(expectValue(await runCode(engine, 'return 1 + 1;')), 2);
      assert.equal(expectValue(await runCode(engine, 'return await Promise.resolve("awaited");')), 'awaited');
      const outcome = await runCode(engine, 'return 10n;');
      expectError(outcome, 'runtime');
      assert.match(outcome.error.message, /not JSON-serialisable/);
    });

    test('several APIs: each is a global of its own name, its calls tagged with it; no `api`', TIMEOUT, async () => {
      assert.deepEqual(expectValue(await runCode(engine, TWO_APIS_CODE, { client: TWO_APIS })), TWO_APIS_ANSWER);
    });

    test('console entries arrive in order, with their levels, live and in the outcome', TIMEOUT, async () => {
      const live: ConsoleEntry[] = [];
      const outcome = await runCode(
        engine,
        'console.log("one", { n: 1 }); console.warn("two"); console.error(new TypeError("bad")); console.debug(5n); console.info(undefined, null); return "done";',
        {
          onConsole: (entry) => live.push(entry),
        },
      );
      assert.equal(expectValue(outcome), 'done');
      assert.deepEqual(
        outcome.console.map((e) => e.level),
        ['log', 'warn', 'error', 'debug', 'info'],
      );
      assert.equal(outcome.console[0]!.text, 'one {"n":1}');
      assert.match(outcome.console[2]!.text, /^TypeError: bad\n\s+at execute\.js:1:\d+/);
      assert.equal(outcome.console[3]!.text, '5n');
      assert.equal(outcome.console[4]!.text, 'undefined null');
      assert.deepEqual(live, outcome.console);
      assert.equal(outcome.consoleTruncated, false);
    });

    test('API round trip: callApi receives exactly what the guest sent, the guest gets the result', TIMEOUT, async () => {
      const api = fakeApi();
      const outcome = await runCode(
        engine,
        `const created = await api.items.create({ path: { id: "7" }, query: { q: "x", tags: ["a", "b"] }, body: { a: [1, 2], s: "é" }, headers: { "x-trace": "t1" }, ignored: 1 });
         const viaAlias = await oa.search();
         const again = await api.items.list({ query: { page: 2 } });
         return { created, viaAlias: viaAlias.status, again: again.data.echo.query };`,
        { api },
      );
      const value = expectValue(outcome) as {
        created: { data: { echo: unknown }; error: unknown; status: number; headers: Record<string, string> };
        viaAlias: number;
        again: unknown;
      };
      assert.deepEqual(api.calls, [
        { operationId: 'items.create', path: { id: '7' }, query: { q: 'x', tags: ['a', 'b'] }, body: { a: [1, 2], s: 'é' }, headers: { 'x-trace': 't1' } },
        { operationId: 'search.run' },
        { operationId: 'items.list', query: { page: 2 } },
      ]);
      assert.deepEqual(value.created.data.echo, api.calls[0]);
      assert.equal(value.created.error, null);
      assert.equal(value.created.status, 200);
      assert.deepEqual(value.created.headers, { 'x-ratelimit-remaining': '41' });
      assert.equal(value.viaAlias, 200);
      assert.deepEqual(value.again, { page: 2 });

      // An HTTP error is a result, never a throw; a bad argument is a TypeError in the guest.
      const failing = fakeApi(() => ({ data: null, error: { message: 'nope' }, status: 422 }));
      assert.deepEqual(expectValue(await runCode(engine, 'return await api.items.list();', { api: failing })), {
        data: null,
        error: { message: 'nope' },
        status: 422,
      });
      const bad = await runCode(engine, 'await api.items.list([1, 2]);');
      expectError(bad, 'runtime');
      assert.match(bad.error.message, /^TypeError: api\.items\.list\(\) takes one argument/);
    });

    test('escape attempts all fail: files, data dir, env, processes, workers, imports, other hosts, the gate without a live token', TIMEOUT, async () => {
      // A token that was valid once: its run has ended by now.
      assert.equal(expectValue(await runCode(engine, 'return 1;')), 1);
      const endedToken = ctx.proxy.tokens.at(-1)!;
      const outcome = await runCode(engine, escapeProgram({ dataDir: ctx.dataDir, otherPort: other.port, gatePort: ctx.proxy.port, endedToken }));
      const report = expectValue(outcome) as Record<string, { ok: boolean; value?: string; error?: string }>;
      for (const name of MUST_FAIL) {
        const result = report[name];
        assert.ok(result, `attempt ${name} did not run`);
        const gateRefused = name.startsWith('gate') || name === 'fetchGate' ? result.ok && result.value !== '200' : false;
        assert.ok(!result.ok || gateRefused, `escape attempt ${name} succeeded: ${JSON.stringify(result)}`);
      }
      const names = report.globalNames!.value ?? '';
      for (const removed of ['process', 'Deno', 'fetch', 'require', 'WebSocket', 'Worker'])
        assert.ok(!names.split(',').includes(removed), `global ${removed} is still there`);
      assert.ok(names.split(',').includes('api') && names.split(',').includes('oa'), 'the client globals are installed');
      const text = JSON.stringify(outcome);
      for (const form of canaryForms(canary.canary)) assert.ok(!text.includes(form), 'the host API key reached the sandbox');
      assert.ok(!text.includes('root:x:0:0'), '/etc/passwd was read');
      assert.ok(!text.includes(data.marker), 'the data dir was listed');
      assert.equal(other.hits, 0, 'the other server was reached');
      assert.equal(other.connections, 0, 'a connection reached the other server');
    });

    test("the child's environment and command line hold no secret, no code and no token", TIMEOUT, async () => {
      const marker = `code-marker-${Date.now()}`;
      const seen: { pid: number; ppid: number; env: string[]; cmdline: string; token: string }[] = [];
      const api = fakeApi(() => {
        for (const pid of processesUnder(ctx.tmpDir)) {
          try {
            const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
            seen.push({ pid, ppid, env: environOf(pid), cmdline: cmdlineOf(pid), token: ctx.proxy.tokens.at(-1)! });
          } catch {
            // exited meanwhile
          }
        }
        return { data: 1, error: null, status: 200 };
      });
      assert.deepEqual(expectValue(await runCode(engine, `const m = "${marker}"; return (await api.search()).data;`, { api })), 1);
      assert.ok(seen.length > 0, 'the sandbox processes were found');
      // The process the engine started: the one whose parent is none of them (pids wrap, so not the lowest pid).
      const pids = new Set(seen.map((s) => s.pid));
      const direct = seen.find((s) => !pids.has(s.ppid)) ?? seen[0]!;
      for (const entry of direct.env)
        assert.ok(ALLOWED_ENV.has(entry.split('=')[0]!), `unexpected variable in the child's environment: ${entry.split('=')[0]}`);
      for (const s of seen) {
        const all = s.env.join('\n') + s.cmdline;
        for (const form of canaryForms(canary.canary)) assert.ok(!all.includes(form), 'the API key is in a sandbox process environment or argv');
        assert.ok(!all.includes('AIRLOCK_API_KEY'), 'AIRLOCK_API_KEY is set in a sandbox process');
        assert.ok(!s.cmdline.includes(marker), 'the code is in argv');
        assert.ok(!all.includes(s.token), 'the run token is in argv or env');
      }
    });

    test('an infinite loop times out and its whole process group is gone', TIMEOUT, async () => {
      const outcome = await runCode(engine, 'while (true) {}', { limits: { timeoutMs: 500 } });
      expectError(outcome, 'timeout');
      assert.equal(outcome.error.message, 'Execution timed out after 500 ms');
      const pid = engine.stats().lastPid!;
      await until(() => !groupAlive(pid));

      let during: number[] = [];
      const api = fakeApi(() => {
        during = processesUnder(ctx.tmpDir);
        return { data: null, error: null, status: 200 };
      });
      const looping = await runCode(engine, 'await api.search(); for (;;) {}', { api, limits: { timeoutMs: 500 } });
      expectError(looping, 'timeout');
      assert.ok(during.length > 0, 'the sandbox processes were running during the call');
      await until(() => !groupAlive(engine.stats().lastPid!));
      await until(() => processesUnder(ctx.tmpDir).length === 0);
      assert.equal(engine.stats().liveChildren, 0);
    });

    test('deep recursion ends with a clean stack error', TIMEOUT, async () => {
      const outcome = await runCode(engine, 'function down(n) {\n  return down(n + 1) + 1;\n}\nreturn down(0);');
      expectError(outcome, 'stack');
      assert.equal(outcome.error.message, 'Maximum call stack size exceeded');
      assert.match(outcome.error.stack ?? '', /at down \(execute\.js:2:\d+\)/);
      assertNoHostPaths(JSON.stringify(outcome));
      assert.equal(expectValue(await runCode(engine, 'return "fine";', { limits: { stackBytes: 256 * 1024 } })), 'fine');
    });

    test('memory bombs hit the memory cap, and the next run works', TIMEOUT, async () => {
      const heap = await runCode(engine, 'const keep = []; for (let i = 0; ; i++) keep.push(new Array(100000).fill(i));', {
        limits: { memoryBytes: 64 * 1024 * 1024 },
      });
      expectError(heap, 'memory');
      assert.equal(heap.error.message, 'Memory limit of 64 MB exceeded');
      const strings = await runCode(engine, 'const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(100000) + i);', {
        limits: { memoryBytes: 64 * 1024 * 1024 },
      });
      expectError(strings, 'memory');
      // Off-heap: array buffers are outside V8's heap limit; the OS cap (or V8's external-memory accounting) stops them.
      const buffers = await runCode(engine, 'const keep = []; for (let i = 0; ; i++) keep.push(new Uint8Array(4 * 1024 * 1024).fill(i & 255));', {
        limits: { memoryBytes: 64 * 1024 * 1024 },
      });
      expectError(buffers, 'memory');
      assert.equal(expectValue(await runCode(engine, 'return 1 + 1;')), 2);
    });

    test('100 MB of console output ends with kind output, not a buffered flood', TIMEOUT, async () => {
      const outputBytes = 64 * 1024;
      const outcome = await runCode(engine, 'const line = "x".repeat(1000); for (let i = 0; i < 100000; i++) console.log(line); return "never";', {
        limits: { outputBytes },
      });
      expectError(outcome, 'output');
      assert.equal(outcome.error.message, 'Output limit of 64 KB exceeded (console output plus the return value)');
      assert.equal(outcome.consoleTruncated, true);
      assert.ok(consoleBytes(outcome.console) <= outputBytes);
      assert.ok(outcome.console.length > 0);
      // One huge line, and a return value over what is left.
      expectError(await runCode(engine, 'console.log("y".repeat(10 * 1024 * 1024));', { limits: { outputBytes } }), 'output');
      expectError(await runCode(engine, 'return "z".repeat(1024 * 1024);', { limits: { outputBytes } }), 'output');
      assert.equal(expectValue(await runCode(engine, 'console.log("a"); return "b".repeat(100);', { limits: { outputBytes: 200 } })), 'b'.repeat(100));
    });

    test("errors point at the caller's lines, with no host paths", TIMEOUT, async () => {
      const runtime = await runCode(engine, 'const a = 1;\nfunction inner() {\n  return null.field;\n}\nreturn inner();');
      expectError(runtime, 'runtime');
      assert.equal(runtime.error.message, "TypeError: Cannot read properties of null (reading 'field')");
      assert.match(runtime.error.stack ?? '', /^TypeError: .*\n\s+at inner \(execute\.js:3:\d+\)\n\s+at execute\.js:5:\d+/);
      assertNoHostPaths(JSON.stringify(runtime));

      const syntax = await runCode(engine, 'const ok = 1;\nconst broken = (;\nreturn ok;');
      expectError(syntax, 'syntax');
      assert.match(syntax.error.message, /^SyntaxError: .+ \(at execute\.js:2:\d+\)$/);
      assertNoHostPaths(JSON.stringify(syntax));

      // Code that tries to close the function wrapper early is a syntax error, never top-level code.
      const breakout = await runCode(engine, '});\nglobalThis.escaped = true;\n(async function () {');
      expectError(breakout, 'syntax');

      const thrown = await runCode(engine, 'throw { reason: "custom" };');
      expectError(thrown, 'runtime');
      assert.equal(thrown.error.message, 'Uncaught {"reason":"custom"}');

      const later = await runCode(engine, 'await null;\nawait null;\nthrow new RangeError("late " + "failure");');
      expectError(later, 'runtime');
      assert.match(later.error.stack ?? '', /execute\.js:3:\d+/);
      assertNoHostPaths(JSON.stringify(later));

      // Stacks the code reads itself are rewritten too.
      const own = await runCode(engine, 'try {\n  null.x;\n} catch (e) {\n  return [e.stack, new Error("here").stack];\n}');
      const stacks = expectValue(own) as string[];
      assert.match(stacks[0]!, /^TypeError: .*\n\s+at execute\.js:2:\d+$/);
      assert.match(stacks[1]!, /^Error: here\n\s+at execute\.js:4:\d+$/);
      assertNoHostPaths(JSON.stringify(own));

      const stuck = await runCode(engine, 'await new Promise(() => {});');
      expectError(stuck, 'runtime');
      assert.match(stuck.error.message, /awaits a promise that nothing can settle/);
    });

    test('time inside whilePaused does not count against the deadline; time outside it does', TIMEOUT, async () => {
      // The scenario itself: a person who takes twice the run's whole budget to decide. The budget leaves the code
      // room for its own part (a call through the gate, and the answer) on a loaded machine.
      const BUDGET_MS = 1500;
      const approval = (ms: number) => humanDecision(ms, true);
      const paused = fakeApi(async (_request, control) => {
        const approved = await control.whilePaused(() => approval(2 * BUDGET_MS));
        return { data: { approved }, error: null, status: 200 };
      });
      const outcome = await runCode(engine, 'const r = await api.items.create({ body: {} }); return r.data;', {
        api: paused,
        limits: { timeoutMs: BUDGET_MS },
      });
      assert.deepEqual(expectValue(outcome), { approved: true });

      const unpaused = fakeApi(async () => {
        await approval(2 * BUDGET_MS);
        return { data: null, error: null, status: 200 };
      });
      expectError(await runCode(engine, 'await api.items.create({ body: {} }); return 1;', { api: unpaused, limits: { timeoutMs: BUDGET_MS } }), 'timeout');
    });

    test('an abort signal ends the run with kind aborted and kills it', TIMEOUT, async () => {
      const controller = new AbortController();
      const api = fakeApi(() => {
        controller.abort();
        return { data: null, error: null, status: 200 };
      });
      const outcome = await runCode(engine, 'await api.search(); while (true) {}', { api, signal: controller.signal });
      expectError(outcome, 'aborted');
      await until(() => !groupAlive(engine.stats().lastPid!));
      const already = new AbortController();
      already.abort();
      expectError(await runCode(engine, 'return 1;', { signal: already.signal }), 'aborted');
    });

    test('concurrent runs are isolated, each with its own token', TIMEOUT, async () => {
      const before = ctx.proxy.tokens.length;
      const outcomes = await Promise.all(
        [0, 1, 2].map((i) => runCode(engine, `globalThis.shared = (globalThis.shared ?? 0) + ${i}; return [(await api.search()).status, globalThis.shared];`)),
      );
      assert.deepEqual(outcomes.map(expectValue), [
        [200, 0],
        [200, 1],
        [200, 2],
      ]);
      const tokens = ctx.proxy.tokens.slice(before);
      assert.equal(new Set(tokens).size, 3);
      assert.equal(ctx.proxy.liveRuns(), 0, 'every run token was closed');
    });

    test('close() kills live children and settles their runs', TIMEOUT, async (t) => {
      const own = options.create(ctx);
      t.after(() => own.close());
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const api = fakeApi(() => {
        entered();
        return { data: null, error: null, status: 200 };
      });
      const pending = runCode(own, 'await api.search(); while (true) {}', { api, limits: { timeoutMs: 60_000 } });
      await within(inside, 'API call from the sandbox');
      const pid = own.stats().lastPid!;
      await own.close();
      const outcome = await pending;
      expectError(outcome, 'aborted');
      assert.equal(own.stats().liveChildren, 0);
      await until(() => !groupAlive(pid));
      expectError(await runCode(own, 'return 1;'), 'internal');
    });
  });
}
