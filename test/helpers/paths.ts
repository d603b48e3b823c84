// Paths tests share: the project root, the shared OpenAgenda fixture (read in
// place, never copied) and GitHub's document from npm.
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const OPENAGENDA_SPEC = resolve(ROOT, '..', 'shared', 'fixtures', 'openagenda-v3', 'openapi.yaml');
export const GITHUB_SPEC = join(ROOT, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
export const CLI = join(ROOT, 'main', 'cli', 'airlock.js');
export const NODE = process.execPath;

/** A fresh temp dir, removed when the test's `after` hook runs `cleanup`. */
export function tempDir(prefix = 'airlock-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
