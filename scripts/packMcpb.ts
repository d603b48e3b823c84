// npm run pack:mcpb — airlock-<version>.mcpb for Claude Desktop (double-click
// to install): manifest 0.3 with the stdio entry, the tools listed, the icon;
// the built CLI (npm run build first), the demo API and the production
// dependencies, pruned. Keys are not user_config: the companion owns them.
// Validated with `mcpb validate`, packed with `mcpb pack` (@anthropic-ai/mcpb).
// Native parts (the keychain binding) are this platform's: build it on each
// platform it ships for (the release workflow does).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  description: string;
  license: string;
  dependencies: Record<string, string>;
};
const stage = join(root, 'build', 'mcpb');
const output = join(root, 'build', `airlock-${pkg.version}.mcpb`);
const mcpb = join(root, 'node_modules', '.bin', 'mcpb');
const run = (cmd: string, args: string[], cwd = root) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

if (!existsSync(join(root, 'dist', 'cli', 'airlock.js'))) {
  process.stderr.write('pack:mcpb: dist/cli is missing; run `npm run build` first\n');
  process.exit(2);
}
const started = performance.now();
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(join(root, 'dist'), join(stage, 'dist'), { recursive: true });
cpSync(join(root, 'resources', 'demo-api'), join(stage, 'resources', 'demo-api'), { recursive: true });
cpSync(join(root, 'resources', 'icon.png'), join(stage, 'icon.png'));
// The runtime dependencies only (Deno, an optional engine, stays out: it is large and found on PATH when installed).
writeFileSync(
  join(stage, 'package.json'),
  JSON.stringify(
    {
      name: 'airlock-mcpb',
      version: pkg.version,
      private: true,
      type: 'module',
      // The desktop app's updater has no use in a bundle.
      dependencies: Object.fromEntries(Object.entries(pkg.dependencies).filter(([name]) => name !== 'electron-updater')),
    },
    null,
    2,
  ) + '\n',
);
// --prefer-offline: what npm has cached (every dependency, after `npm ci` here) is used without asking the registry
// again whether it changed (~10 s of round trips); anything not cached is fetched as usual.
run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--prefer-offline'], stage);
// Prune what a running server never reads.
writeFileSync(
  join(stage, '.mcpbignore'),
  [
    '**/*.md',
    '**/*.d.ts',
    '**/*.d.mts',
    '**/*.d.cts',
    '**/*.map',
    '**/test/**',
    '**/tests/**',
    '**/docs/**',
    '**/examples/**',
    '**/.github/**',
    '**/CHANGELOG*',
    '**/*.tsbuildinfo',
    'package-lock.json',
  ].join('\n') + '\n',
);

// The tools, as the server lists them (mcpb pack checks they match).
const client = new Client({ name: 'pack-mcpb', version: pkg.version });
const dataDir = join(root, 'build', 'mcpb-data');
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(stage, 'dist', 'cli', 'airlock.js'), 'stdio', '--in-process', '--data-dir', dataDir],
    stderr: 'ignore',
  }),
);
const { tools } = await client.listTools();
await client.close();
rmSync(dataDir, { recursive: true, force: true });

const manifest = {
  manifest_version: '0.3',
  name: 'airlock',
  display_name: 'Airlock',
  version: pkg.version,
  description: pkg.description,
  long_description:
    'Two tools instead of one per endpoint: search_docs finds the operations of an OpenAPI 3.x API, execute runs JavaScript against a generated client in a sandbox. Keys stay in the OS keychain, every call is audited, and changes wait for your yes in the Airlock app. Joins the Airlock companion running on this machine, or starts a headless one.',
  author: { name: 'Airlock' },
  icon: 'icon.png',
  license: pkg.license,
  keywords: ['openapi', 'api', 'code-mode', 'sandbox', 'approvals', 'audit'],
  server: {
    type: 'node',
    entry_point: 'dist/cli/airlock.js',
    mcp_config: { command: 'node', args: ['${__dirname}/dist/cli/airlock.js', 'stdio'], env: {} },
  },
  tools: tools.map((t) => ({ name: t.name, description: (t.description ?? '').split(/(?<=\.)\s/)[0]!.slice(0, 300) })),
  compatibility: { claude_desktop: '>=0.10.0', platforms: [process.platform === 'win32' ? 'win32' : process.platform], runtimes: { node: '>=22.13.0' } },
};
writeFileSync(join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
run(mcpb, ['validate', join(stage, 'manifest.json')]);
rmSync(output, { force: true });
run(mcpb, ['pack', stage, output]);
const mb = (statSync(output).size / (1024 * 1024)).toFixed(1);
process.stderr.write(`packed ${output}: ${mb} MB, ${tools.length} tools, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
