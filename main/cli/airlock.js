#!/usr/bin/env node
// The `airlock` command. In a checkout it runs the TypeScript CLI directly:
// Node 22.18+ and 24 strip types natively; older 22.x lines need the flag, so
// re-run with it. The build copies this file beside the bundled JavaScript
// (dist/cli/airlock.js, what the npm package and the .mcpb run), where it
// loads the .js modules instead. Compiled code is cached in a per-user
// directory (0700) to start faster.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `airlock: Node ${process.versions.node} is too old; Airlock needs Node 22.13 or later (in a checkout, npm ci installs Node 24 for the project's scripts: use npx airlock)\n`,
  );
  process.exit(1);
}
// Built: dist/cli/*.js beside this file; in a checkout: the .ts sources.
const ext = fileURLToPath(import.meta.url).endsWith(join('dist', 'cli', 'airlock.js')) ? '.js' : '.ts';
if (ext === '.ts' && !process.features.typescript) {
  const result = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
if (module.enableCompileCache && !process.env.NODE_COMPILE_CACHE) {
  try {
    const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'airlock', 'compile-cache');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    module.enableCompileCache(dir);
  } catch {
    // A read-only home: start without the cache.
  }
}
// `airlock stdio` as client registrations write it goes the lean way (stdioJoin.ts).
const args = process.argv.slice(3);
if (process.argv[2] === 'stdio') {
  const { leanArgs, stdioJoin } = await import(`./stdioJoin${ext}`);
  // Clients stop their servers with a signal, which skips the cache flush at exit: write it now.
  module.flushCompileCache?.();
  const flags = leanArgs(args);
  if (flags) {
    await stdioJoin(args, flags);
  } else {
    await import(`./main${ext}`);
  }
} else {
  await import(`./main${ext}`);
}
