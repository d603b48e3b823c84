// The npm package as someone outside the checkout gets it: `npm pack`, then
// `npm install` of the tarball into an empty directory (dependencies from
// the registry), then the installed `airlock` runs — built JavaScript only
// (Node does not strip types under node_modules), no test or TypeScript file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NODE, ROOT, tempDir } from '../helpers/paths.ts';

const built = existsSync(join(ROOT, 'dist', 'cli', 'airlock.js')) && existsSync(join(ROOT, 'out', 'renderer', 'index.html'));

test(
  'the packed package installs into an empty directory and runs: doctor, and an execute over stdio',
  { skip: built ? false : 'not built (npm run build)', timeout: 180_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 150_000 });
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], ROOT)) as { filename: string; files: { path: string }[]; size: number }[];
    const files = packed[0]!.files.map((f) => f.path);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') || /(^|\/)test\//.test(f)),
      [],
      'no TypeScript, no tests',
    );
    assert.ok(files.includes('dist/cli/airlock.js') && files.includes('dist/cli/quickjsWorker.js') && files.includes('out/renderer/index.html'));
    assert.ok(files.includes('resources/demo-api/openapi.yaml'));

    const app = join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{ "name": "consumer", "private": true }\n');
    // As a person installs it, but with what npm has cached (after `npm ci`) used without asking the registry again.
    npm(['install', '--no-audit', '--no-fund', '--omit=dev', '--prefer-offline', join(dir, packed[0]!.filename)], app);
    const bin = join(app, 'node_modules', 'airlock-mcp', 'bin', 'airlock.js');
    assert.ok(existsSync(join(app, 'node_modules', '.bin', 'airlock')), 'the command is called airlock');
    assert.equal(existsSync(join(app, 'node_modules', 'airlock-mcp', 'main')), false, 'no sources shipped');

    const doctor = execFileSync(NODE, [bin, 'doctor', '--data-dir', join(dir, 'data')], { encoding: 'utf8', timeout: 60_000 });
    assert.match(doctor, /✓ spec .*node_modules\/airlock-mcp\/resources\/demo-api\/openapi\.yaml: Airlock Demo Events API/);

    const client = new Client({ name: 'package-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: NODE, args: [bin, 'stdio', '--in-process', '--data-dir', join(dir, 'data')], stderr: 'pipe' }));
    t.after(() => client.close());
    const r = await client.callTool({ name: 'execute', arguments: { code: 'return (await api.events.list({ query: { limit: 1 } })).status' } });
    assert.deepEqual(r.content, [{ type: 'text', text: '200' }]);
    assert.equal(JSON.parse(readFileSync(join(app, 'node_modules', 'airlock-mcp', 'package.json'), 'utf8')).name, 'airlock-mcp');
  },
);
