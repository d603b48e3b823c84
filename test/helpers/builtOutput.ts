// Whether `npm run build`'s output (out/) can be tested: there, and no older
// than the sources it is built from. A test of a stale bundle would pass or
// fail on code that is no longer the checkout's, so a stale build is refused
// (the test fails saying to build), and a missing one is skipped with that
// line, or fails under AIRLOCK_REQUIRE_ALL=1 (CI builds before testing).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './paths.ts';

/** The source folders every bundle in out/ is built from. */
const SOURCES = ['main', 'contract', 'preload', 'renderer'].map((d) => join(ROOT, d));

function newestSource(dir: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|tsx|js|css|html)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(file);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

/**
 * For `{ skip }`: false when `file` (under out/) is built, else the line that says how to build it (a failure under
 * AIRLOCK_REQUIRE_ALL=1: the test then runs and `assertFresh` fails it).
 */
export function notBuilt(file: string): string | false {
  if (existsSync(file) || process.env.AIRLOCK_REQUIRE_ALL === '1') return false;
  return `${relative(ROOT, file)} is not built (npm run build)`;
}

/** Fails, saying what to run, when `file` is missing or older than a source it is built from. */
export function assertFresh(file: string): void {
  if (!existsSync(file)) throw new Error(`${relative(ROOT, file)} is not built: run npm run build`);
  const builtMs = statSync(file).mtimeMs;
  for (const dir of SOURCES) {
    const newest = existsSync(dir) ? newestSource(dir) : undefined;
    if (newest && newest.mtimeMs > builtMs)
      throw new Error(`${relative(ROOT, file)} is older than ${relative(ROOT, newest.file)}: the build is stale, run npm run build`);
  }
}
