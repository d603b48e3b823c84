// npm run build:cli — the CLI as JavaScript, for the npm package and the
// .mcpb (Node refuses to strip types from files under node_modules): the
// command, the lean stdio path and the QuickJS worker as entries, bundled
// with rolldown into dist/cli/ (one directory, so paths relative to a module
// hold), dependencies left to npm. The desktop app's main is built by
// electron-vite (npm run build).
import { copyFileSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const deps = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})];
const out = join(root, 'dist', 'cli');

const started = performance.now();
rmSync(out, { recursive: true, force: true });
await build({
  input: {
    main: join(root, 'main', 'cli', 'main.ts'),
    stdioJoin: join(root, 'main', 'cli', 'stdioJoin.ts'),
    quickjsWorker: join(root, 'main', 'core', 'sandbox', 'quickjs', 'quickjsWorker.ts'),
  },
  platform: 'node',
  external: [/^node:/, ...deps.map((d) => new RegExp(`^${d.replace(/[/.]/g, '\\$&')}(/|$)`))],
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: false },
  logLevel: 'warn',
});
copyFileSync(join(root, 'main', 'cli', 'airlock.js'), join(out, 'airlock.js'));
chmodSync(join(out, 'airlock.js'), 0o755);
process.stderr.write(`built ${out} in ${(performance.now() - started).toFixed(0)} ms\n`);
