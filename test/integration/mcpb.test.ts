// The .mcpb bundle: `npm run pack:mcpb` builds and validates it (mcpb
// validate, mcpb pack); unpacked into a temporary directory, an outside
// client (the MCP Inspector CLI) lists the tools through the manifest's own
// command, with ${__dirname} as Claude Desktop substitutes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NODE, ROOT, tempDir } from '../helpers/paths.ts';
import { dataPaths, defaultDataDir } from '../../main/core/config/dataDir.ts';
import { lockHolder } from '../../main/core/config/serverInfo.ts';

/** Resolves once `file` is gone (its directory watched), or after `ms`. */
function removed(file: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(file), (_event, name) => {
      if ((name === null || name === basename(file)) && !existsSync(file)) done();
    });
    const timer = setTimeout(() => done(), ms);
    function done() {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
    if (!existsSync(file)) done();
  });
}

const built = existsSync(join(ROOT, 'dist', 'cli', 'airlock.js'));

function inspector(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'mcp-inspector'), ['--cli', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test(
  'pack:mcpb builds a valid bundle whose manifest command serves the tools',
  { skip: built ? false : 'not built (npm run build)', timeout: 240_000 },
  async (t) => {
    execFileSync(NODE, [join(ROOT, 'scripts', 'packMcpb.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 });
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const bundle = join(ROOT, 'build', `airlock-${version}.mcpb`);
    assert.ok(existsSync(bundle));
    const { dir, cleanup } = tempDir();
    // The companion the manifest's command started in that HOME exits once idle (AIRLOCK_EXIT_WHEN_IDLE=2); it is
    // waited for before its directory is removed (it writes there until it exits).
    const home = join(dir, 'home');
    t.after(async () => {
      const lock = dataPaths(defaultDataDir({ platform: process.platform, env: { ...process.env, HOME: home }, home })).lock;
      // A companion that exits removes its lock: watched, not polled.
      if (lockHolder(lock)) await removed(lock, 30_000);
      assert.equal(lockHolder(lock), undefined, `the companion in ${home} still runs 30 s after the last client left`);
      cleanup();
    });
    const unpacked = join(dir, 'ext');
    execFileSync(join(ROOT, 'node_modules', '.bin', 'mcpb'), ['unpack', bundle, unpacked], { stdio: 'ignore', timeout: 60_000 });
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as {
      manifest_version: string;
      server: { type: string; mcp_config: { command: string; args: string[] } };
      tools: { name: string }[];
      icon: string;
    };
    assert.equal(manifest.manifest_version, '0.3');
    assert.equal(manifest.server.type, 'node');
    assert.ok(existsSync(join(unpacked, manifest.icon)));
    assert.equal(readdirSync(unpacked).includes('test'), false);
    const args = manifest.server.mcp_config.args.map((a) => a.replace('${__dirname}', unpacked));
    // The manifest's command joins (or starts) the companion of the default data dir: HOME is a temporary one here.
    const list = await inspector(['-e', 'AIRLOCK_EXIT_WHEN_IDLE=2', NODE, ...args, '--method', 'tools/list'], home);
    assert.equal(list.code, 0, list.stderr);
    const tools = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((x) => x.name);
    assert.deepEqual(
      tools,
      manifest.tools.map((x) => x.name),
      'the manifest lists what the server serves',
    );
    assert.deepEqual(tools.slice(0, 2), ['search_docs', 'execute']);
  },
);
