// The memory cap under attack, for every subprocess engine configuration
// (node and deno, bare and under the srt wrapper): typed arrays, Buffers,
// wasm memory and the V8 heap allocated in a loop each end the run with the
// memory error naming the cap, well before a long deadline, while a sampler
// reading /proc every 10 ms never sees the run's processes hold more than
// the cap + 64 MB; and a run that stays well inside the cap still works.
// Linux only: elsewhere there is no OS memory cap to test (the suite is
// skipped, saying so).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunOutcome } from '../../main/core/sandbox/engine.ts';
import type { SubprocessEngine } from '../../main/core/sandbox/subprocess/subprocessEngine.ts';
import { fakeApi, processesUnder, runCode, startRecordingProxy, until, type RecordingProxy } from './subprocessHarness.ts';
import { sampleTreeMemory, type TreeMemory } from './memorySampler.ts';
import { tempDir } from './paths.ts';
import { describeWithTools, type SystemNeed } from './systemTools.ts';

const MB = 1024 * 1024;
/** The default `--memory-mb`. */
export const ATTACK_CAP = 256 * MB;
/** What the run's processes may hold over the cap at any sample. */
export const ATTACK_SLACK = 64 * MB;
/** Long enough that the deadline cannot be what stops an attack, even on a loaded machine (a heap bomb of objects
 * takes 7 s on a quiet 2-core machine, over 20 s on a busy one). */
export const ATTACK_DEADLINE_MS = 60_000;

export interface MemoryAttackOptions {
  name: string;
  runtime: 'node' | 'deno';
  create(ctx: { proxy: RecordingProxy; tmpDir: string; dataDir: string }): SubprocessEngine;
  /** System tools the engine needs (SRT, DENO). */
  needs?: SystemNeed[];
}

/** The attacks, as the code a caller would send. */
export function memoryAttacks(runtime: 'node' | 'deno'): { name: string; code: string }[] {
  return [
    { name: 'typed arrays in a loop', code: 'const a = []; for (;;) a.push(new Float64Array(1e6).fill(1));' },
    {
      name: 'Buffer.alloc in a loop',
      code:
        runtime === 'node'
          ? 'const a = []; for (;;) a.push(Buffer.alloc(8e6, 1));'
          : 'const { Buffer } = await import("node:buffer"); const a = []; for (;;) a.push(Buffer.alloc(8e6, 1));',
    },
    {
      name: 'WebAssembly.Memory grown in a loop',
      code: 'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (;;) { m.grow(128); new Uint8Array(m.buffer).fill(1); }',
    },
    {
      name: 'new wasm memories in a loop',
      code: 'const a = []; for (;;) { const m = new WebAssembly.Memory({ initial: 128 }); new Uint8Array(m.buffer).fill(1); a.push(m); }',
    },
    { name: 'a heap bomb of arrays', code: 'const keep = []; for (let i = 0; ; i++) keep.push(new Array(100000).fill(i));' },
    { name: 'a heap bomb of objects', code: 'const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "v" + i, o: { i } });' },
  ];
}

function mb(bytes: number): string {
  return `${Math.round(bytes / MB)} MB`;
}

/** One line per run for the test log: what the sampler saw, and how long the run took. */
function report(what: string, outcome: RunOutcome, seen: TreeMemory): string {
  const end = outcome.ok ? 'ok' : `${outcome.error.kind}: ${outcome.error.message}`;
  return `${what}: ${end} after ${Math.round(outcome.durationMs)} ms; max RSS of the run's processes ${mb(seen.maxBytes)} (${seen.samples} samples, longest gap ${Math.round(seen.longestGapMs)} ms, up to ${seen.maxProcesses} processes)`;
}

/** The soft RLIMIT_DATA and VmData of a process, from /proc. */
function dataOf(pid: number): { limit: number; vmData: number } {
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  const soft = /^Max data size\s+(\S+)/m.exec(limits)?.[1];
  const vmData = Number(/^VmData:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  return { limit: soft === undefined || soft === 'unlimited' ? Infinity : Number(soft), vmData };
}

export function defineMemoryAttacks(options: MemoryAttackOptions): void {
  const linux: SystemNeed = {
    why: 'the OS memory cap',
    check: () => (process.platform === 'linux' ? [] : [`Linux (this is ${process.platform})`]),
    packages: 'Linux with util-linux (prlimit)',
    install: 'run on Linux',
  };
  const prlimit: SystemNeed = { why: 'the OS memory cap', tools: ['prlimit'], packages: 'util-linux' };
  describeWithTools(options.name, [linux, prlimit, ...(options.needs ?? [])], () => {
    let proxy: RecordingProxy;
    let engine: SubprocessEngine;
    const tmp = tempDir('airlock-memory-attack-');
    const data = tempDir('airlock-memory-data-');

    before(async () => {
      proxy = await startRecordingProxy();
      engine = options.create({ proxy, tmpDir: tmp.dir, dataDir: data.dir });
    });
    after(async () => {
      await engine?.close();
      await proxy?.close();
      tmp.cleanup();
      data.cleanup();
    });

    async function attack(code: string): Promise<{ outcome: RunOutcome; seen: TreeMemory }> {
      // The run is the runtime: the srt wrapper's own processes (~120 MB, fixed) are not charged to its cap.
      const sampler = sampleTreeMemory({ runtimeOnly: true });
      await sampler.watching();
      let outcome: RunOutcome;
      try {
        outcome = await runCode(engine, code, { limits: { memoryBytes: ATTACK_CAP, timeoutMs: ATTACK_DEADLINE_MS, outputBytes: 64 * 1024 } });
      } finally {
        // The processes are gone once the outcome is in (the engine waits for their exit); the sampler stops after.
        await until(() => processesUnder(tmp.dir).length === 0, 30_000, 'the run processes gone');
      }
      return { outcome, seen: await sampler.stop() };
    }

    for (const { name, code } of memoryAttacks(options.runtime)) {
      test(`${name}: ends with the memory error naming the cap; the run's processes never hold more than the cap + 64 MB`, { timeout: 120_000 }, async (t) => {
        const { outcome, seen } = await attack(code);
        t.diagnostic(report(name, outcome, seen));
        assert.equal(outcome.ok, false, `the attack ended without an error: ${JSON.stringify(outcome).slice(0, 300)}`);
        if (!outcome.ok) {
          assert.equal(outcome.error.kind, 'memory', `${outcome.error.kind}: ${outcome.error.message}`);
          assert.equal(outcome.error.message, 'Memory limit of 256 MB exceeded');
        }
        assert.ok(outcome.durationMs < ATTACK_DEADLINE_MS, 'the memory cap, not the deadline, ended the run');
        assert.ok(seen.samples >= 10, `the sampler watched the run (${seen.samples} samples)`);
        assert.ok(seen.maxProcesses >= 1, "the sampler saw the run's runtime (a cap checked on no process proves nothing)");
        assert.ok(seen.maxBytes <= ATTACK_CAP + ATTACK_SLACK, `the run's processes held ${mb(seen.maxBytes)}, over ${mb(ATTACK_CAP + ATTACK_SLACK)}`);
        const next = await runCode(engine, 'return 6 * 7;');
        assert.equal(next.ok && next.value, 42, 'the next run works');
      });
    }

    test('a run that allocates half the cap in typed arrays still succeeds', { timeout: 120_000 }, async (t) => {
      const count = ATTACK_CAP / 2 / (8 * MB);
      const { outcome, seen } = await attack(`const a = []; for (let i = 0; i < ${count}; i++) a.push(new Float64Array(${MB}).fill(i)); return a.length;`);
      t.diagnostic(report('half the cap', outcome, seen));
      assert.equal(outcome.ok, true, JSON.stringify(outcome).slice(0, 300));
      assert.equal(outcome.ok && outcome.value, count);
      assert.ok(seen.maxProcesses >= 1, "the sampler saw the run's runtime");
      assert.ok(seen.maxBytes <= ATTACK_CAP + ATTACK_SLACK, `the run's processes held ${mb(seen.maxBytes)}`);
    });

    test("the runtime's data cap is lowered before the code's first line, to what the cap leaves", { timeout: 120_000 }, async () => {
      let during: { limit: number; vmData: number; rss: number } | undefined;
      const api = fakeApi(() => {
        // The runtime: `node --permission …` or `deno run …` (srt's own Node and the shells carry its command line as arguments).
        const pids = processesUnder(tmp.dir);
        const pid = pids.find((p) => ['--permission', 'run'].includes(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[1] ?? ''));
        assert.ok(pid !== undefined, 'the runtime is running');
        const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
        during = { ...dataOf(pid), rss };
        return { data: null, error: null, status: 200 };
      });
      const outcome = await runCode(engine, 'return (await api.search()).status;', { api, limits: { memoryBytes: ATTACK_CAP } });
      assert.equal(outcome.ok && outcome.value, 200, JSON.stringify(outcome));
      assert.ok(during, 'the API call was seen');
      // What is left under the limit, plus what the processes hold, stays within the cap + 64 MB.
      // Not the launch-time backstop (768 MB + 2 × the cap above nothing): the room left is what the cap allows.
      assert.ok(during.limit - during.vmData < ATTACK_CAP + ATTACK_SLACK, `RLIMIT_DATA ${mb(during.limit)}, VmData ${mb(during.vmData)}`);
      assert.ok(during.limit - during.vmData + during.rss <= ATTACK_CAP + ATTACK_SLACK, `room ${mb(during.limit - during.vmData)} + RSS ${mb(during.rss)}`);
    });
  });
}
