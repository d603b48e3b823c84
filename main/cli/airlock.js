#!/usr/bin/env node
// The `airlock` command. Runs the TypeScript CLI directly: Node 22.18+ and 24
// strip types natively; older 22.x lines need the flag, so re-run with it.
// Compiled code is cached in a per-user directory (0700) to start faster.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `airlock: Node ${process.versions.node} is too old; Airlock needs Node 22.13 or later (npm ci installs Node 24 for the project's scripts: use npx airlock)\n`,
  );
  process.exit(1);
}
if (!process.features.typescript) {
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
  const { leanArgs, stdioJoin } = await import('./stdioJoin.ts');
  // Clients stop their servers with a signal, which skips the cache flush at exit: write it now.
  module.flushCompileCache?.();
  const flags = leanArgs(args);
  if (flags) {
    await stdioJoin(args, flags);
  } else {
    await import('./main.ts');
  }
} else {
  await import('./main.ts');
}
