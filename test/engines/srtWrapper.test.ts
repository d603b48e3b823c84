// The srt wrapper: its policy (the settings file), what srt actually enforces
// on this machine (a plain Node script under srt, with no permission model
// and no Airlock prelude, so only srt is being tested), the memory cap of the
// node and deno engines running under it, and a wrapped sandbox's death with
// its host. The shared engine suite under srt is in srtNodeEngine.test.ts and
// srtDenoEngine.test.ts (files of their own, so the engines tier runs them
// beside this one).
//
// Everything but the policy needs srt's tools (on Linux: bubblewrap, socat,
// ripgrep — .ci/run installs them). Where they are missing, that part is one
// skipped suite naming the apt packages; under AIRLOCK_REQUIRE_ALL=1 (which
// .ci/run sets) it is a failure instead: the wrapper is a security boundary,
// and CI never skips it. Where the tools are there but srt cannot sandbox
// (bubblewrap unable to create namespaces), the tests fail with srt's own
// words.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createNodeEngine } from '../../main/core/sandbox/node/nodeEngine.ts';
import { createDenoEngine } from '../../main/core/sandbox/deno/denoEngine.ts';
import { findSrt, locateSrt, renderSrtSettings, srtEnv, srtInvocation, srtSettingsFor, type SrtAvailability } from '../../main/core/sandbox/srt/srtWrapper.ts';
import { defineMemoryAttacks } from '../helpers/memoryAttacks.ts';
import {
  fakeDataDir,
  killHostAndWait,
  plantCanary,
  canaryForms,
  runCode,
  runRaw,
  startLayer,
  startRecordingProxy,
  type Layer,
  type OtherServer,
  type RecordingProxy,
} from '../helpers/subprocessHarness.ts';
import { tempDir } from '../helpers/paths.ts';
import { DENO, describeWithTools, requireTools, SRT } from '../helpers/systemTools.ts';
import { denoPath, denoUnderSrt, nodeUnderSrt } from '../helpers/srtEngines.ts';

describe('srt: the policy', () => {
  test('srtSettingsFor allows the gate and nothing else, writes only to the temp dir, hides home and data dir', () => {
    const settings = srtSettingsFor({
      gatePort: 43123,
      tmpDir: '/tmp/airlock-run-x',
      dataDir: '/home/u/.config/Airlock',
      homeDir: '/home/u',
      readablePaths: ['/opt/node/bin'],
      platform: 'linux',
    });
    assert.deepEqual(settings, {
      network: { allowedDomains: ['127.0.0.1:43123'], deniedDomains: [], strictAllowlist: true, allowLocalBinding: false, allowAllUnixSockets: false },
      filesystem: {
        denyRead: ['/home/u', '/home', '/root', '/home/u/.config/Airlock'],
        allowRead: ['/tmp/airlock-run-x', '/opt/node/bin'],
        allowWrite: ['/tmp/airlock-run-x'],
        denyWrite: [],
      },
    });
    assert.deepEqual(srtSettingsFor({ gatePort: 1, tmpDir: '/t', homeDir: '/Users/u', platform: 'darwin' }).filesystem.denyRead, ['/Users/u', '/Users']);
  });

  test('renderSrtSettings prints exactly the file srt reads, or a JSON description', () => {
    const settings = srtSettingsFor({ gatePort: '<gate port, chosen at start>', tmpDir: '/t', homeDir: '/home/u', platform: 'linux' });
    const file = renderSrtSettings(settings);
    assert.ok(file.endsWith('\n'));
    assert.deepEqual(JSON.parse(file), settings);
    assert.equal(renderSrtSettings(settings, 'srt'), file);
    const described = JSON.parse(renderSrtSettings(settings, 'json')) as { wrapper: string; settings: unknown; enforcedBy: string };
    assert.equal(described.wrapper, 'srt');
    assert.deepEqual(described.settings, settings);
    assert.match(described.enforcedBy, /bubblewrap/);
  });

  test('locateSrt explains what is missing', () => {
    const missing = locateSrt({ cliPath: '/nonexistent/srt/dist/cli.js' });
    assert.equal(missing.found, false);
    if (!missing.found) assert.match(missing.reason, /\/nonexistent\/srt\/dist\/cli\.js does not exist/);
  });
});

describeWithTools('srt on this machine', SRT, () => {
  const availability: Promise<SrtAvailability> = findSrt();

  test('locateSrt finds srt and its tools here', () => {
    const here = locateSrt();
    assert.equal(here.found, true, here.found ? '' : here.reason);
  });

  test('findSrt says whether srt can sandbox here', async () => {
    const srt = await availability;
    assert.equal(srt.found, true, srt.found ? '' : srt.reason);
    if (srt.found) {
      assert.match(srt.version, /^\d+\.\d+\.\d+/);
      assert.ok(srt.cliPath.endsWith(join('dist', 'cli.js')));
    }
    assert.equal(await findSrt(), srt, 'the probe runs once');
  });

  describe('srt: what it enforces on this machine (plain Node under srt, no permission model, no prelude)', () => {
    let proxy: RecordingProxy;
    let other: OtherServer;
    let tmp: Layer['tmp'];
    let layer: Layer;

    before(async () => {
      ({ proxy, other, tmp } = layer = await startLayer('airlock-srt-layer-'));
    });
    after(() => layer.close());

    test("network: only the gate, through srt's proxy; files: home and data dir hidden, writes only in the run dir", async () => {
      const srt = await availability;
      assert.ok(srt.found);
      const canary = plantCanary();
      const data = fakeDataDir(canary.canary);
      const live = proxy.openRun(async () => ({ data: 'live', error: null, status: 200 }));
      const ended = proxy.openRun(async () => ({ data: 'ended', error: null, status: 200 }));
      ended.close();
      try {
        const runDir = mkdtempSync(join(tmp.dir, 'run-'));
        const nodeDir = dirname(realpathSync(process.execPath));
        const settings = srtSettingsFor({ gatePort: proxy.port, tmpDir: runDir, dataDir: data.dir, readablePaths: [nodeDir, srt.packageDir] });
        const settingsFile = join(runDir, 'srt-settings.json');
        writeFileSync(settingsFile, renderSrtSettings(settings));
        const script = `
const http = process.getBuiltinModule('node:http');
const net = process.getBuiltinModule('node:net');
const fs = process.getBuiltinModule('node:fs');
const report = {};
const probe = async (name, fn) => { try { report[name] = await fn(); } catch (e) { report[name] = 'error: ' + (e.code || e.message); } };
const proxy = new URL(process.env.HTTP_PROXY);
const proxyAuth = 'Basic ' + Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64');
const viaProxy = (url, headers = {}, method = 'GET') => new Promise((resolve, reject) => {
  const target = new URL(url);
  const req = http.request({ host: proxy.hostname, port: Number(proxy.port), path: url, method, headers: { host: target.host, 'proxy-authorization': proxyAuth, ...headers } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
  req.on('error', reject);
  req.end(method === 'POST' ? '{"operationId":"items.list"}' : undefined);
});
const connect = (port) => new Promise((resolve, reject) => { const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve('connected'); }); s.on('error', (e) => reject(e)); });
const GATE = 'http://127.0.0.1:${proxy.port}/call';
await probe('directGate', () => connect(${proxy.port}));
await probe('directOther', () => connect(${other.port}));
await probe('proxyOther', () => viaProxy('http://127.0.0.1:${other.port}/'));
await probe('proxyOtherLocalhost', () => viaProxy('http://localhost:${other.port}/'));
await probe('proxyInternet', () => viaProxy('http://example.com/'));
await probe('gateNoToken', () => viaProxy(GATE, {}, 'POST'));
await probe('gateWrongToken', () => viaProxy(GATE, { authorization: 'Bearer ${'e'.repeat(64)}' }, 'POST'));
await probe('gateEndedToken', () => viaProxy(GATE, { authorization: 'Bearer ${ended.token}' }, 'POST'));
await probe('gateLiveToken', () => viaProxy(GATE, { authorization: 'Bearer ${live.token}' }, 'POST'));
await probe('readDataDir', () => fs.readdirSync(${JSON.stringify(data.dir)}).join(','));
await probe('readSecrets', () => fs.readFileSync(${JSON.stringify(join(data.dir, 'secrets.json'))}, 'utf8'));
await probe('readHome', () => fs.readdirSync(${JSON.stringify(homedir())}).length);
await probe('readPasswd', () => fs.readFileSync('/etc/passwd', 'utf8').length > 0);
await probe('writeRunDir', () => { fs.writeFileSync(${JSON.stringify(join(runDir, 'ok.txt'))}, 'x'); return 'written'; });
await probe('writeTmp', () => { fs.writeFileSync(${JSON.stringify(join(tmp.dir, 'escaped.txt'))}, 'x'); return 'written'; });
await probe('writeData', () => { fs.writeFileSync(${JSON.stringify(join(data.dir, 'planted.txt'))}, 'x'); return 'written'; });
report.env = JSON.stringify(process.env);
console.log(JSON.stringify(report));`;
        const { command, args } = srtInvocation(srt, settingsFile, [process.execPath, '--input-type=module', '-']);
        const result = await runRaw(command, args, script, { env: srtEnv(srt, runDir), cwd: runDir });
        assert.equal(result.code, 0, result.stderr);
        const report = JSON.parse(result.stdout) as Record<string, unknown>;
        // Its own network namespace: the host's loopback is not there at all.
        assert.equal(report.directGate, 'error: ECONNREFUSED');
        assert.equal(report.directOther, 'error: ECONNREFUSED');
        // Through the filtering proxy: the gate's ip:port only.
        assert.equal(report.proxyOther, 403);
        assert.equal(report.proxyOtherLocalhost, 403);
        assert.equal(report.proxyInternet, 403);
        assert.equal(report.gateNoToken, 401);
        assert.equal(report.gateWrongToken, 401);
        assert.equal(report.gateEndedToken, 401);
        assert.equal(report.gateLiveToken, 200);
        assert.equal(other.hits, 0);
        assert.equal(other.connections, 0);
        // Files: the data dir and home are hidden (srt mounts empty directories over them); writes land only in the run dir.
        assert.ok(report.readDataDir === '' || String(report.readDataDir).startsWith('error:'), `data dir listed: ${String(report.readDataDir)}`);
        assert.match(String(report.readSecrets), /^error: (ENOENT|EACCES)/);
        assert.ok(report.readHome === 0 || String(report.readHome).startsWith('error:'), `home listed: ${String(report.readHome)}`);
        assert.equal(report.writeRunDir, 'written');
        assert.match(String(report.writeTmp), /^error: (EROFS|EACCES|EPERM)/);
        // A hidden directory is an empty tmpfs inside the sandbox: a write there may succeed, but never reaches the host.
        assert.equal(existsSync(join(data.dir, 'planted.txt')), false, 'a write reached the real data dir');
        assert.equal(existsSync(join(tmp.dir, 'escaped.txt')), false);
        // srt does not hide system files: that is Node's --permission and Deno's permissions' job.
        assert.equal(report.readPasswd, true);
        for (const form of canaryForms(canary.canary)) assert.ok(!String(report.env).includes(form), 'the API key reached the sandbox environment');
      } finally {
        live.close();
        canary.restore();
        data.cleanup();
      }
    });
  });

  // The wrapper's own processes (srt's Node, socat, bubblewrap: ~120 MB of RSS) are the run's processes too, and count against the cap.
  defineMemoryAttacks({
    name: 'node engine under srt (egress wrapper): the memory cap under attack',
    runtime: 'node',
    create: nodeUnderSrt,
  });

  defineMemoryAttacks({
    name: 'deno engine under srt (egress wrapper): the memory cap under attack',
    runtime: 'deno',
    needs: [DENO],
    create: denoUnderSrt,
  });

  describe('srt engines: boundary text, host death', () => {
    test('a wrapped sandbox dies with its host: SIGKILL the host, and srt, bubblewrap and the runtime go too', { timeout: 60_000 }, async () => {
      const dir = tempDir('airlock-srt-orphan-');
      try {
        const { before } = await killHostAndWait(['node', 'wrapper', dir.dir], dir.dir);
        assert.ok(before.length >= 3, `srt, bwrap and the runtime were running (${before.length} processes)`);
      } finally {
        dir.cleanup();
      }
    });

    test('describeBoundary says srt confines the network to the gate', async (t) => {
      if (!requireTools(t, DENO)) return;
      const proxy = await startRecordingProxy();
      const tmp = tempDir('airlock-srt-describe-');
      try {
        const node = createNodeEngine({ proxy, egress: 'wrapper', tmpDir: tmp.dir });
        assert.match(node.describeBoundary(), new RegExp(`confined by srt to Airlock's gate on 127\\.0\\.0\\.1:${proxy.port}`));
        assert.equal((await runCode(node, 'return 40 + 2;')).ok, true);
        await node.close();
        const denoEngine = createDenoEngine({ proxy, egress: 'wrapper', denoPath, denoDir: join(tmp.dir, 'dd'), tmpDir: tmp.dir });
        assert.match(denoEngine.describeBoundary(), /enforced by Deno's --allow-net and again by srt/);
        await denoEngine.close();
      } finally {
        await proxy.close();
        tmp.cleanup();
      }
    });
  });
});
