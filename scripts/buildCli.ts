// npm run build:cli — the CLI as JavaScript, for the npm package and the
// .mcpb (Node refuses to strip types from files under node_modules): the
// command, the lean stdio path, the QuickJS worker and the process that
// prepares API documents as entries, bundled
// with rolldown into dist/cli/ (one directory, so paths relative to a module
// hold). The pure-JavaScript dependencies (the MCP SDK, zod, commander, the
// OpenAPI parser, YAML, MiniSearch…) are bundled in too: resolving and
// loading several hundred files from node_modules was most of start-up
// (spawn to an answered initialize went from ~330 ms to ~150 ms). Packages
// that carry a native addon, a wasm file or a program they run, or that
// resolve their own files at run time, stay external and come from npm.
// The desktop app's main is built by electron-vite (npm run build).
import { copyFileSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { build, type Plugin } from 'rolldown';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
/** Loaded from node_modules at run time: native addons, wasm, programs they spawn, files they resolve themselves, Electron-only. */
const EXTERNAL = [
  '@napi-rs/keyring',
  'quickjs-emscripten',
  '@anthropic-ai/sandbox-runtime',
  'an-array-of-english-words',
  'electron-updater',
  ...Object.keys(pkg.optionalDependencies ?? {}),
];
const unknown = EXTERNAL.filter((d) => !(d in pkg.dependencies) && !(d in (pkg.optionalDependencies ?? {})));
if (unknown.length > 0) throw new Error(`buildCli: ${unknown.join(', ')} listed as external but not a dependency`);
const out = join(root, 'dist', 'cli');

/**
 * Bundled packages that `import … from 'node:http'` (the SDK's HTTP transport
 * through @hono/node-server) make Node build that module's ES namespace, whose
 * lazy getters (WebSocket, fetch's classes) load undici: ~20 ms of every
 * `serve` start. They get node:http through require instead, with every
 * export but those lazy ones (bundled CommonJS that requires it gets the same
 * object: undici reads http.maxHeaderSize).
 */
const LAZY_EXPORTS = new Set(['WebSocket', 'CloseEvent', 'MessageEvent']);

function builtinsThroughRequire(ids: string[]): Plugin {
  const require = createRequire(import.meta.url);
  const prefix = '\0required:';
  return {
    name: 'builtins-through-require',
    resolveId(source) {
      return ids.includes(source) ? `${prefix}${source}` : null;
    },
    load(id) {
      if (!id.startsWith(prefix)) return null;
      const name = id.slice(prefix.length);
      // Every export but the lazy ones that load undici (read once here: maxHeaderSize and globalAgent are plain getters).
      const plain = Object.keys(Object.getOwnPropertyDescriptors(require(name))).filter((key) => !LAZY_EXPORTS.has(key) && /^[A-Za-z_$][\w$]*$/.test(key));
      return [
        `import { createRequire } from 'node:module';`,
        `const m = createRequire(import.meta.url)(${JSON.stringify(name)});`,
        `export default m;`,
        ...plain.map((key) => `export const ${key} = m.${key};`),
      ].join('\n');
    },
  };
}

const started = performance.now();
rmSync(out, { recursive: true, force: true });
await build({
  input: {
    main: join(root, 'main', 'cli', 'main.ts'),
    stdioJoin: join(root, 'main', 'cli', 'stdioJoin.ts'),
    quickjsWorker: join(root, 'main', 'core', 'sandbox', 'quickjs', 'quickjsWorker.ts'),
    prepareProcess: join(root, 'main', 'core', 'search', 'prepareProcess.ts'),
  },
  platform: 'node',
  plugins: [builtinsThroughRequire(['node:http', 'node:https', 'node:http2', 'http', 'https', 'http2'])],
  // ES module builds where a package has both (jsonc-parser's UMD build requires its files dynamically).
  resolve: { mainFields: ['module', 'main'] },
  external: [/^node:(?!https?$|http2$)/, ...EXTERNAL.map((d) => new RegExp(`^${d.replace(/[/.]/g, '\\$&')}(/|$)`))],
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: false },
  logLevel: 'warn',
});
copyFileSync(join(root, 'main', 'cli', 'airlock.js'), join(out, 'airlock.js'));
chmodSync(join(out, 'airlock.js'), 0o755);
process.stderr.write(`built ${out} in ${(performance.now() - started).toFixed(0)} ms\n`);
