// The node engine with egress none (the wrapper mode runs in
// srtWrapper.test.ts), plus the runtime layer on its own: what Node's
// permission model denies, and the fact that it does not bound the network,
// which is why this mode only runs under a banner.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createNodeEngine, nodeRuntimeArgs } from '../../main/core/sandbox/node/nodeEngine.ts';
import { BARE_BASELINE_BYTES, dataBudget, resolveSubprocessLimits } from '../../main/core/sandbox/subprocess/limits.ts';
import { buildGuestScript, clientGlobals, clientRoots, clientTree, PRELUDE_ONE_LINE } from '../../main/core/sandbox/subprocess/guestPrelude.ts';
import { errorFromExit, errorFromReport, makePathScrubber, makeScrubber } from '../../main/core/sandbox/subprocess/outcome.ts';
import { MemoryGuard } from '../../main/core/sandbox/subprocess/memoryGuard.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { spawn } from 'node:child_process';
import { defineEngineSuite } from '../helpers/subprocessSuite.ts';
import { defineMemoryAttacks } from '../helpers/memoryAttacks.ts';
import {
  killHostAndWait,
  MANIFEST,
  LIMITS,
  rawNetworkProbe,
  runCode,
  runRaw,
  startLayer,
  within,
  type Layer,
  type OtherServer,
  type RecordingProxy,
} from '../helpers/subprocessHarness.ts';
import { tempDir } from '../helpers/paths.ts';

defineEngineSuite({
  name: 'node engine (egress none)',
  create: (ctx) => createNodeEngine({ proxy: ctx.proxy, egress: 'none', tmpDir: ctx.tmpDir }),
});

describe('node engine: configuration and the runtime layer', () => {
  let proxy: RecordingProxy;
  let other: OtherServer;
  let tmp: Layer['tmp'];
  let layer: Layer;

  before(async () => {
    ({ proxy, other, tmp } = layer = await startLayer('airlock-node-layer-'));
  });
  after(() => layer.close());

  test('refuses egress executor: Node cannot scope the network itself', () => {
    assert.throws(() => createNodeEngine({ proxy, egress: 'executor' as 'none' }), /cannot run with egress executor/);
  });

  test('describeBoundary says what is enforced, and that the network is not bounded with egress none', async () => {
    const engine = createNodeEngine({ proxy, egress: 'none', tmpDir: tmp.dir });
    const text = engine.describeBoundary();
    assert.match(text, /permission model/);
    assert.match(text, /no file reads or writes, no child processes, no worker threads/);
    assert.match(text, /deadline/);
    assert.match(text, /NOT restricted/);
    await engine.close();
  });

  test('--permission alone denies files, processes and workers but not the network: egress none can reach another host', async () => {
    const args = nodeRuntimeArgs(resolveSubprocessLimits(LIMITS));
    const script = `
const r = {};
try { (await import('node:fs')).readFileSync('/etc/passwd'); r.fs = 'read'; } catch (e) { r.fs = e.code; }
try { (await import('node:fs')).writeFileSync(${JSON.stringify(tmp.dir + '/x')}, 'x'); r.write = 'written'; } catch (e) { r.write = e.code; }
try { (await import('node:child_process')).execSync('id'); r.child = 'ran'; } catch (e) { r.child = e.code; }
try { new (await import('node:worker_threads')).Worker('1', { eval: true }); r.worker = 'started'; } catch (e) { r.worker = e.code; }
r.other = await fetch('http://127.0.0.1:${other.port}/').then((x) => x.status, (e) => e.message);
console.log(JSON.stringify(r));`;
    const result = await runRaw(process.execPath, args, script);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.deepEqual(report, { fs: 'ERR_ACCESS_DENIED', write: 'ERR_ACCESS_DENIED', child: 'ERR_ACCESS_DENIED', worker: 'ERR_ACCESS_DENIED', other: 200 });
    // Documented, not hidden: this is what the egress-none banner is about. The engine's prelude removes fetch
    // and refuses imports (the shared suite checks the guest cannot reach the server), but that is JavaScript-level
    // hiding, not an OS boundary.
    assert.equal(other.hits, 1);
  });

  test('a sandbox dies with its host: SIGKILL the host, and the running child goes too', { timeout: 60_000 }, async () => {
    const dir = tempDir('airlock-node-orphan-');
    try {
      const { before } = await killHostAndWait(['node', 'none', dir.dir], dir.dir);
      assert.ok(before.length > 0, 'the sandbox was running');
    } finally {
      dir.cleanup();
    }
  });

  test('the gate refuses calls without the run token, with a wrong one, and with a token whose run ended', async () => {
    const engine = createNodeEngine({ proxy, egress: 'none', tmpDir: tmp.dir });
    assert.equal((await runCode(engine, 'return (await api.search()).status;')).ok, true);
    const ended = proxy.tokens.at(-1)!;
    await engine.close();
    const live = proxy.openRun(async () => ({ data: 'live', error: null, status: 200 }));
    const script = rawNetworkProbe({
      otherPort: other.port,
      gatePort: proxy.port,
      tokens: [
        { name: 'none', token: '' },
        { name: 'wrong', token: 'f'.repeat(64) },
        { name: 'ended', token: ended },
        { name: 'live', token: live.token },
      ],
    });
    const result = await runRaw(process.execPath, nodeRuntimeArgs(resolveSubprocessLimits(LIMITS)), script);
    live.close();
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(report['gate:none'], 401);
    assert.equal(report['gate:wrong'], 401);
    assert.equal(report['gate:ended'], 401);
    assert.equal(report['gate:live'], 200, 'the positive control reaches the gate');
  });
});

describe('subprocess machinery (shared by node and deno)', () => {
  test('the prelude is one line, and the program stays one line whatever the code holds', () => {
    assert.ok(!PRELUDE_ONE_LINE.includes('\n'));
    const script = buildGuestScript({
      runtime: 'node',
      nonce: 'n',
      code: 'return "\u2028\u2029";\n// last line',
      roots: clientRoots(MANIFEST).map((r) => ({ shape: r.shape.json, idPrefix: r.idPrefix, globals: r.globals })),
      gate: { url: 'http://127.0.0.1:1', port: 1, token: 't', viaProxy: false },
      outputBytes: 10,
    });
    assert.equal(script.split('\n').length, 2);
    assert.ok(script.endsWith(');\n'));
  });

  test('client globals are identifiers that shadow nothing; the tree follows call paths', () => {
    assert.deepEqual(clientGlobals(['api', 'oa', 'api', 'console', 'globalThis', 'not-valid', 'eval', '$x']), ['api', 'oa', '$x']);
    const tree = clientTree([
      { operationId: 'a.b', callPath: ['a', 'b'] },
      { operationId: 'a', callPath: ['a'] },
      { operationId: 'none', callPath: [] },
    ]);
    assert.equal(tree.children.a!.operationId, 'a');
    assert.equal(tree.children.a!.children.b!.operationId, 'a.b');
    assert.equal(Object.keys(tree.children).length, 1);
  });

  test('limits: the heap inside the budget, a stack cap only when asked, a launch-time data cap above both', () => {
    const MB = 1024 * 1024;
    // The heap cap leaves the expected start-up footprint, the uncounted growth and a margin out of the cap + 64 MB.
    const limits = resolveSubprocessLimits({ timeoutMs: 1000, memoryBytes: 64 * MB, outputBytes: 1024 });
    assert.equal(limits.heapMb, 64 + 64 - 24 - BARE_BASELINE_BYTES / MB - 16);
    assert.equal(limits.stackKb, undefined);
    assert.ok(limits.dataCapBytes > 2 * limits.memoryBytes);
    assert.equal(resolveSubprocessLimits({ timeoutMs: 1, memoryBytes: 256 * MB, outputBytes: 1 }, 45 * MB).heapMb, 256 + 40 - 45 - 16);
    assert.equal(resolveSubprocessLimits({ timeoutMs: 1, memoryBytes: 256 * MB, outputBytes: 1 }, 176 * MB).heapMb, 256 + 40 - 176 - 16);
    assert.equal(resolveSubprocessLimits({ timeoutMs: 1, memoryBytes: 64 * MB, outputBytes: 1 }, 176 * MB).heapMb, 16, 'never below 16 MB');
    assert.equal(resolveSubprocessLimits({ timeoutMs: 1, memoryBytes: 4096 * MB, outputBytes: 1 }, 0).heapMb, 4096, 'never above the cap');
    // At start: what the processes hold plus the data budget is the cap + 40 MB (24 MB of the slack for what RLIMIT_DATA does not count).
    // The watchdog acts 8 MB below the cap + 64 MB.
    assert.deepEqual(dataBudget({ memoryBytes: 256 * MB, heapMb: 235 }, 45 * MB), { dataBudgetBytes: 251 * MB, watchBytes: 312 * MB });
    // A runtime that already holds more than the cap leaves gets the floor (heap + 16 MB), and the watchdog line moves up with it.
    assert.deepEqual(dataBudget({ memoryBytes: 64 * MB, heapMb: 16 }, 165 * MB), { dataBudgetBytes: 32 * MB, watchBytes: (165 + 32 + 24 - 8) * MB });
    const small = resolveSubprocessLimits({ timeoutMs: 0, memoryBytes: 1, outputBytes: -1, stackBytes: 64 * 1024 * 1024 });
    assert.equal(small.heapMb, 16);
    assert.equal(small.timeoutMs, 1);
    assert.equal(small.outputBytes, 0);
    assert.equal(small.stackKb, 4096);
    assert.deepEqual(nodeRuntimeArgs(small).slice(0, 3), ['--permission', '--no-addons', '--input-type=module']);
    assert.ok(nodeRuntimeArgs(small).includes('--max-heap-size=16'));
    assert.ok(!nodeRuntimeArgs(small).some((a) => a.startsWith('--allow')), 'nothing is granted');
  });

  test('an allocation the memory cap refused, thrown or fatal, ends the run with the memory error naming the cap', () => {
    const limits = resolveSubprocessLimits({ timeoutMs: 1000, memoryBytes: 256 * 1024 * 1024, outputBytes: 1024 });
    const memory = { kind: 'memory', message: 'Memory limit of 256 MB exceeded' };
    const scrub = (t: string) => t;
    for (const [name, message] of [
      ['RangeError', 'Array buffer allocation failed'],
      ['RangeError', 'Failed to allocate memory'],
      ['RangeError', 'WebAssembly.Memory.grow(): Unable to grow instance memory'],
      ['RangeError', 'WebAssembly.Memory(): could not allocate memory'],
    ]) {
      assert.deepEqual(errorFromReport({ isError: true, name, message, stack: '' }, limits, scrub), memory, message);
    }
    assert.equal(
      errorFromReport({ isError: true, name: 'RangeError', message: 'WebAssembly.Memory.grow(): Maximum memory size exceeded' }, limits, scrub).kind,
      'runtime',
    );
    for (const stderr of [
      'FATAL ERROR: Committing semi space failed. Allocation failed - JavaScript heap out of memory',
      '# Fatal JavaScript out of memory: Reached heap limit',
      'memory allocation of 8000000 bytes failed',
    ]) {
      assert.deepEqual(errorFromExit({ code: null, signal: 'SIGABRT' }, stderr, limits, 'Node'), memory, stderr);
    }
    // A crash with nothing on stderr is the cap's doing only when the runtime was at its data cap.
    assert.equal(errorFromExit({ code: null, signal: 'SIGSEGV' }, '', limits, 'Node').kind, 'internal');
    assert.deepEqual(errorFromExit({ code: null, signal: 'SIGSEGV' }, '', limits, 'Node', true), memory);
  });

  test(
    'the watchdog: a process whose RSS passes its line is killed, even without prlimit',
    { skip: process.platform !== 'linux' && 'Linux only (/proc)' },
    async () => {
      const limits = resolveSubprocessLimits({ timeoutMs: 1000, memoryBytes: 16 * 1024 * 1024, outputBytes: 1024 });
      const argv = [process.execPath, '--input-type=module', '-'];
      const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
      child.stdin.end('const a = []; setInterval(() => a.push(new Uint8Array(4 << 20).fill(1)), 5); console.log("go");');
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      try {
        await within(new Promise((resolve) => child.stdout.once('data', resolve)), "the process's first line");
        const { promise: over, resolve: onOver } = Promise.withResolvers<number>();
        const guard = new MemoryGuard({ rootPid: child.pid!, runtimeArgv: argv, limits, prlimit: undefined, log: silentLogger, onOver });
        const armed = await guard.arm();
        assert.equal(armed.runtimePid, child.pid);
        assert.equal(armed.dataLimitBytes, undefined, 'no prlimit: the watchdog only');
        const rss = await within(over, 'the watchdog firing');
        assert.equal(await within(exited, 'the process exit'), 'SIGKILL');
        assert.ok(rss > armed.watchBytes && rss < armed.watchBytes + 32 * 1024 * 1024, `killed at ${rss} bytes, line ${armed.watchBytes}`);
        guard.stop();
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  test('scrubbing removes host paths and file URLs, in linear time on hostile text', () => {
    const scrub = makeScrubber(['/tmp/airlock-node-abc', '/opt/node/bin']);
    assert.equal(scrub('at file:///tmp/airlock-node-abc/run-1/[eval1]:1:5 and /opt/node/bin/node'), 'at <sandbox> and <sandbox>/node');
    assert.equal(scrub('loading "file:///somewhere/x.js" failed'), 'loading "<sandbox>" failed');
    assert.equal(scrub('at /x/y/$deno$stdin.js:1:2)'), 'at <sandbox>)');
    const paths = makePathScrubber(['/tmp/airlock-node-abc']);
    assert.equal(paths('{"link":"file:///docs/a.pdf","dir":"/tmp/airlock-node-abc/run"}'), '{"link":"file:///docs/a.pdf","dir":"<sandbox>/run"}');
    // 2 MB without a single boundary, ending in a needle: a backtracking regex would take minutes.
    const hostile = 'y'.repeat(2 * 1024 * 1024) + '$deno$stdin';
    assert.equal(scrub(hostile), '<sandbox>');
    assert.equal(paths(hostile), '<sandbox>');
  });
});

defineMemoryAttacks({
  name: 'node engine (egress none): the memory cap under attack',
  runtime: 'node',
  create: (ctx) => createNodeEngine({ proxy: ctx.proxy, egress: 'none', tmpDir: ctx.tmpDir }),
});
