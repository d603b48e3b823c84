// The demo API's prepared store (search/preparedApi.ts), made once for all
// the tests of a run and copied into a companion's new data dir before it
// starts: otherwise every `airlock serve` of a test prepares the same
// document again, in a child process (about 1.5 s of CPU each, some fifty
// times a run). The copy is keyed by the code stamp that stores carry, so a
// change to the code that makes them makes a new one; the companion checks
// the store as it would a person's (a store that does not fit the document
// or the code is prepared again). Preparing itself is tested on documents of
// the tests' own (test/unit/preparation.test.ts, largeApi, apiProgress).
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPreparation } from '../../main/core/search/preparation.ts';
import { codeStamp } from '../../main/core/search/preparedApi.ts';
import { DEMO_SPEC } from './paths.ts';

let made: Promise<string> | undefined;

/** The template: a spec-cache holding the demo API's store, made by the first test of a run that needs it. */
function template(): Promise<string> {
  return (made ??= (async () => {
    const dir = join(tmpdir(), `airlock-test-demo-store-${await codeStamp()}`);
    if (existsSync(dir)) return dir;
    const staging = mkdtempSync(`${dir}-making-`);
    const preparation = createPreparation({ memoryMb: () => 512 });
    try {
      (await preparation.prepare({ spec: DEMO_SPEC, cacheDir: staging })).close();
    } finally {
      preparation.close();
    }
    try {
      renameSync(staging, dir);
    } catch {
      // Another test process made it first: theirs is as good.
      rmSync(staging, { recursive: true, force: true });
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
