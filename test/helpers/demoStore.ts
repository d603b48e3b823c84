// The demo API's prepared store (search/preparedApi.ts), made once for all
// the tests of a run and copied into a companion's new data dir before it
// starts: otherwise every `airlock serve` of a test prepares the same
// document again, in a child process (about 1 s of CPU each, some fifty
// times a run). The template is made by the `airlock` under test itself (a
// companion started once on a data dir of its own), and kept under a key of
// that code: the sources' code stamp, or the built files' sizes and times.
// The companion checks a copied store as it would a person's (one that does
// not fit the document or the code is prepared again), so a wrong key costs
// time, never a wrong answer. Preparing itself is tested on documents of the
// tests' own (test/unit/preparation.test.ts, largeApi, apiProgress).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { codeStamp } from '../../main/core/search/preparedApi.ts';
import { BUILT_CLI, CLI } from './paths.ts';
import { runCli } from './processes.ts';

let made: Promise<string> | undefined;

/** What the stores of the CLI under test are keyed by. */
async function codeKey(): Promise<string> {
  if (CLI !== BUILT_CLI) return `src-${await codeStamp()}`;
  const dir = dirname(BUILT_CLI);
  const hash = createHash('sha256');
  for (const f of readdirSync(dir).sort()) {
    const s = statSync(join(dir, f));
    hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return `built-${hash.digest('hex').slice(0, 16)}`;
}

/** The template: a spec-cache holding the demo API's store, made by the first test of a run that needs it. */
function template(): Promise<string> {
  return (made ??= (async () => {
    const dir = join(tmpdir(), `airlock-test-demo-store-${await codeKey()}`);
    if (existsSync(dir)) return dir;
    const staging = mkdtempSync(`${dir}-making-`);
    const running = runCli(['serve', '--port', '0', '--data-dir', join(staging, 'data')]);
    try {
      await running.waitFor(/APIs loaded: /, 60_000);
    } finally {
      await running.stop();
    }
    const store = mkdtempSync(`${dir}-store-`);
    cpSync(join(staging, 'data', 'spec-cache'), store, { recursive: true });
    rmSync(staging, { recursive: true, force: true });
    try {
      renameSync(store, dir);
    } catch {
      // Another test process made it first: theirs is as good.
      rmSync(store, { recursive: true, force: true });
    }
    return dir;
  })());
}

/**
 * Puts the demo API's prepared store in a data dir the test made and no companion used yet (no spec-cache), as the
 * companion would have left it (the directory 0700, its files 0600). A data dir that does not exist yet is left for
 * the companion to make.
 */
export async function seedDemoStore(dataDir: string): Promise<void> {
  const cacheDir = join(dataDir, 'spec-cache');
  if (!existsSync(dataDir) || existsSync(cacheDir)) return;
  const from = await template();
  mkdirSync(cacheDir, { mode: 0o700 });
  cpSync(from, cacheDir, { recursive: true });
}
