// The deno engine with egress executor (the wrapper mode runs in
// srtWrapper.test.ts), the runtime layer on its own (Deno's permissions with
// the engine's exact flags, without Airlock's prelude), egress none, and
// finding Deno. Deno comes from its npm package (an optional dependency) or
// PATH; without it the engine suites are one skipped suite that says how to
// get it (a failure under AIRLOCK_REQUIRE_ALL=1).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDenoEngine, denoRuntimeArgs } from '../../main/core/sandbox/deno/denoEngine.ts';
import { denoNpmPackages, findDeno } from '../../main/core/sandbox/deno/findDeno.ts';
import { resolveSubprocessLimits } from '../../main/core/sandbox/subprocess/limits.ts';
import { defineEngineSuite } from '../helpers/subprocessSuite.ts';
import { defineMemoryAttacks } from '../helpers/memoryAttacks.ts';
import {
  fakeDataDir,
  killHostAndWait,
  LIMITS,
  plantCanary,
  rawNetworkProbe,
  runCode,
  runRaw,
  startLayer,
  type Layer,
  type OtherServer,
  type RecordingProxy,
} from '../helpers/subprocessHarness.ts';
import { tempDir } from '../helpers/paths.ts';
import { DENO, DENO_NPM, describeWithTools, requireTools } from '../helpers/systemTools.ts';

const deno = findDeno();
/** Used only where DENO is required. */
const denoPath = deno.found ? deno.path : '';

describeWithTools('deno engine', DENO, () => {
  defineEngineSuite({
    name: 'deno engine (egress executor)',
    create: (ctx) => createDenoEngine({ proxy: ctx.proxy, egress: 'executor', denoPath, denoDir: join(ctx.tmpDir, 'deno-dir'), tmpDir: ctx.tmpDir }),
  });

  describe('deno engine: configuration, the runtime layer, egress none', () => {
    let proxy: RecordingProxy;
    let other: OtherServer;
    let tmp: Layer['tmp'];
    let denoDir: string;
    let layer: Layer;

    before(async () => {
      ({ proxy, other, tmp } = layer = await startLayer('airlock-deno-layer-'));
      denoDir = join(tmp.dir, 'deno-dir');
    });
    after(() => layer.close());

    test('describeBoundary names the one permission and the caps', async () => {
      const engine = createDenoEngine({ proxy, egress: 'executor', denoPath, denoDir, tmpDir: tmp.dir });
      const text = engine.describeBoundary();
      assert.match(text, new RegExp(`only Airlock's gate on 127\\.0\\.0\\.1:${proxy.port}, enforced by Deno's --allow-net`));
      assert.match(text, /no file, environment, subprocess, FFI or system access/);
      assert.match(text, /deadline/);
      await engine.close();
      const open = createDenoEngine({ proxy, egress: 'none', denoPath, denoDir, tmpDir: tmp.dir });
      assert.match(open.describeBoundary(), /NOT restricted/);
      await open.close();
      assert.throws(() => createDenoEngine({ proxy, egress: 'sideways' as 'none', denoPath, denoDir }), /does not know egress sideways/);
    });

    test('the flags grant the gate only, and nothing is prompted, configured, locked or fetched', () => {
      const limits = resolveSubprocessLimits({ ...LIMITS, stackBytes: 512 * 1024 });
      const args = denoRuntimeArgs({ egress: 'executor', gatePort: 4321, limits });
      assert.deepEqual(
        args.filter((a) => a.startsWith('--allow')),
        ['--allow-net=127.0.0.1:4321'],
      );
      for (const flag of ['--no-prompt', '--no-config', '--no-lock', '--no-remote', '--no-npm', '--ext=js']) assert.ok(args.includes(flag), flag);
      assert.ok(args.includes(`--v8-flags=--max-heap-size=${limits.heapMb},--stack-size=512`));
      assert.equal(args.at(-1), '-', 'the program comes from stdin');
      assert.deepEqual(
        denoRuntimeArgs({ egress: 'none', gatePort: 4321, limits }).filter((a) => a.startsWith('--allow')),
        ['--allow-net'],
      );
    });

    test("Deno's permissions with the engine's flags: no other host, no files, env or processes; the gate only with a live token", async () => {
      const engine = createDenoEngine({ proxy, egress: 'executor', denoPath, denoDir, tmpDir: tmp.dir });
      assert.equal((await runCode(engine, 'return (await api.search()).status;')).ok, true);
      const ended = proxy.tokens.at(-1)!;
      await engine.close();
      const live = proxy.openRun(async () => ({ data: 'live', error: null, status: 200 }));
      const canary = plantCanary();
      const data = fakeDataDir(canary.canary);
      try {
        const script = rawNetworkProbe({
          otherPort: other.port,
          gatePort: proxy.port,
          tokens: [
            { name: 'none', token: '' },
            { name: 'wrong', token: 'f'.repeat(64) },
            { name: 'ended', token: ended },
            { name: 'live', token: live.token },
          ],
        }).replace(
          'console.log(JSON.stringify(report));',
          `await probe('read', async () => Deno.readTextFileSync('/etc/passwd'));
await probe('readData', async () => Deno.readTextFileSync(${JSON.stringify(join(data.dir, 'secrets.json'))}));
await probe('env', async () => JSON.stringify(Deno.env.toObject()));
await probe('run', async () => (await new Deno.Command('/bin/sh', { args: ['-c', 'id'] }).output()).code);
await probe('connect', async () => { const c = await Deno.connect({ hostname: '127.0.0.1', port: ${other.port} }); c.close(); return 'connected'; });
await probe('npm', async () => Object.keys(await import('npm:left-pad')).join());
await probe('https', async () => Object.keys(await import('https://deno.land/std@0.224.0/fmt/colors.ts')).join());
await probe('write', async () => { Deno.writeTextFileSync(${JSON.stringify(join(tmp.dir, 'written'))}, 'x'); return 'written'; });
console.log(JSON.stringify(report));`,
        );
        const args = denoRuntimeArgs({ egress: 'executor', gatePort: proxy.port, limits: resolveSubprocessLimits(LIMITS) });
        const result = await runRaw(denoPath, args, script, { env: { DENO_DIR: denoDir, NO_COLOR: '1', AIRLOCK_API_KEY: canary.canary } });
        const report = JSON.parse(result.stdout) as Record<string, string | number>;
        assert.match(String(report.other), /Requires net access to "127\.0\.0\.1:\d+"/);
        assert.equal(report['gate:none'], 401);
        assert.equal(report['gate:wrong'], 401);
        assert.equal(report['gate:ended'], 401);
        assert.equal(report['gate:live'], 200, 'the positive control reaches the gate');
        assert.match(String(report.read), /Requires read access/);
        assert.match(String(report.readData), /Requires read access/);
        assert.match(String(report.env), /Requires env access/);
        assert.match(String(report.run), /Requires run access/);
        assert.match(String(report.connect), /Requires net access/);
        assert.match(String(report.npm), /--no-npm/);
        assert.match(String(report.https), /--no-remote/);
        assert.match(String(report.write), /Requires write access/);
        assert.equal(other.hits, 0);
        assert.ok(!result.stdout.includes(canary.canary));
      } finally {
        live.close();
        canary.restore();
        data.cleanup();
      }
    });

    test('egress none is unrestricted (the caller allows it only with an acknowledgement), and still runs the same prelude', async () => {
      const engine = createDenoEngine({ proxy, egress: 'none', denoPath, denoDir, tmpDir: tmp.dir });
      const outcome = await runCode(engine, 'return [(await api.search()).status, typeof fetch, typeof Deno];');
      assert.deepEqual(outcome.ok && outcome.value, [200, 'undefined', 'undefined']);
      await engine.close();
      const args = denoRuntimeArgs({ egress: 'none', gatePort: proxy.port, limits: resolveSubprocessLimits(LIMITS) });
      const result = await runRaw(denoPath, args, rawNetworkProbe({ otherPort: other.port, gatePort: proxy.port, tokens: [] }), {
        env: { DENO_DIR: denoDir, NO_COLOR: '1' },
      });
      assert.deepEqual(JSON.parse(result.stdout), { other: 200 }, 'documented: with egress none the runtime can reach any host');
    });

    test('a sandbox dies with its host: SIGKILL the host, and the running child goes too', { timeout: 60_000 }, async () => {
      const dir = tempDir('airlock-deno-orphan-');
      try {
        const { before } = await killHostAndWait(['deno', 'executor', dir.dir, denoPath], dir.dir);
        assert.ok(before.length > 0, 'the sandbox was running');
      } finally {
        dir.cleanup();
      }
    });

    test('DENO_DIR is the private dir given, warmed by the first run', async () => {
      const dir = join(tmp.dir, 'warm-deno-dir');
      const engine = createDenoEngine({ proxy, egress: 'executor', denoPath, denoDir: dir, tmpDir: tmp.dir });
      assert.equal((await runCode(engine, 'return 1;')).ok, true);
      await engine.close();
      assert.ok(existsSync(dir));
      assert.ok(readdirSync(dir).length > 0, 'Deno keeps its caches there');
    });
  });
});

defineMemoryAttacks({
  name: 'deno engine (egress executor): the memory cap under attack',
  runtime: 'deno',
  needs: [DENO],
  create: (ctx) => createDenoEngine({ proxy: ctx.proxy, egress: 'executor', denoPath, denoDir: join(ctx.tmpDir, 'deno-dir'), tmpDir: ctx.tmpDir }),
});

describe('findDeno', () => {
  let tmp: ReturnType<typeof tempDir>;
  before(() => {
    tmp = tempDir('airlock-find-deno-');
  });
  after(() => tmp.cleanup());

  test('finds the npm package binary when deno is not on PATH', (t) => {
    if (!requireTools(t, DENO_NPM)) return;
    const found = findDeno({ path: join(tmp.dir, 'empty') });
    assert.equal(found.found, true);
    if (found.found) {
      assert.equal(found.source, 'npm');
      assert.match(found.version, /^\d+\.\d+\.\d+/);
      assert.ok(found.path.includes(`${denoNpmPackages()[0]}`));
    }
  });

  test('prefers deno on PATH', () => {
    const bin = join(tmp.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'deno'), '#!/bin/sh\necho "deno 9.8.7 (stable, release, test)"\n');
    chmodSync(join(bin, 'deno'), 0o755);
    assert.deepEqual(findDeno({ path: bin }), { found: true, path: join(bin, 'deno'), version: '9.8.7', source: 'PATH' });
  });

  test('says exactly where it looked when there is none', () => {
    const broken = join(tmp.dir, 'broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'deno'), '#!/bin/sh\nexit 3\n');
    chmodSync(join(broken, 'deno'), 0o755);
    const found = findDeno({ path: broken, npmPackages: ['@deno/nowhere-x64'] });
    assert.equal(found.found, false);
    if (!found.found) {
      assert.match(found.reason, /^Deno was not found; looked at: /);
      assert.match(found.reason, new RegExp(`${join(broken, 'deno').replace(/[/.]/g, '\\$&')} \\(on PATH, but it does not run: exit code 3\\)`));
      assert.match(found.reason, /npm package @deno\/nowhere-x64 \(not installed\)/);
    }
    const none = findDeno({ path: join(tmp.dir, 'nothing-here'), npmPackages: [] });
    assert.equal(none.found, false);
    if (!none.found) assert.match(none.reason, /deno on PATH \(.*nothing-here\)/);
  });

  test('knows the npm package names per platform', () => {
    assert.deepEqual(denoNpmPackages('linux', 'x64'), ['@deno/linux-x64-glibc', '@deno/linux-x64-musl']);
    assert.deepEqual(denoNpmPackages('linux', 'arm64'), ['@deno/linux-arm64-glibc', '@deno/linux-arm64-musl']);
    assert.deepEqual(denoNpmPackages('darwin', 'arm64'), ['@deno/darwin-arm64']);
    assert.deepEqual(denoNpmPackages('win32', 'x64'), ['@deno/win32-x64']);
  });
});
