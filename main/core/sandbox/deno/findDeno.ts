// Finding a Deno binary for the deno engine: `deno` on PATH first, then the
// npm distribution package for this platform (`@deno/<os>-<arch>[-libc]`,
// e.g. @deno/linux-x64-glibc), resolved from Airlock's own node_modules.
// When there is none, the reason names every place that was looked at.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { childEnv, hostPath, pathDirs, which } from '../subprocess/hostTools.ts';

export type DenoLocation = { found: true; path: string; version: string; source: 'PATH' | 'npm' } | { found: false; reason: string };

/** The npm packages that carry a Deno binary for this platform, best first. */
export function denoNpmPackages(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string[] {
  switch (platform) {
    case 'linux':
      return [`@deno/linux-${arch}-glibc`, `@deno/linux-${arch}-musl`];
    case 'darwin':
      return [`@deno/darwin-${arch}`];
    case 'win32':
      return [`@deno/win32-${arch}`];
    default:
      return [];
  }
}

/** `deno --version`'s version, or why it could not be run. */
export function denoVersion(path: string): { version: string } | { error: string } {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', env: childEnv(tmpdir(), { DENO_NO_UPDATE_CHECK: '1' }), timeout: 15_000 });
  if (result.error) return { error: result.error.message };
  if (result.status !== 0) return { error: `exit code ${result.status ?? 'none'}` };
  const version = /deno (\d+\.\d+\.\d+\S*)/.exec(result.stdout)?.[1];
  return version ? { version } : { error: 'unrecognised --version output' };
}

export interface FindDenoOptions {
  /** The PATH to search (default: this process's). */
  path?: string;
  /** The npm packages to try (default: this platform's, see denoNpmPackages). */
  npmPackages?: string[];
}

export function findDeno(options: FindDenoOptions = {}): DenoLocation {
  const looked: string[] = [];
  const searchPath = options.path ?? hostPath();
  const onPath = which('deno', searchPath);
  if (onPath) {
    const v = denoVersion(onPath);
    if ('version' in v) return { found: true, path: onPath, version: v.version, source: 'PATH' };
    looked.push(`${onPath} (on PATH, but it does not run: ${v.error})`);
  } else {
    looked.push(`deno on PATH (${pathDirs(searchPath).join(', ') || 'PATH is empty'})`);
  }
  const require = createRequire(import.meta.url);
  const binary = process.platform === 'win32' ? 'deno.exe' : 'deno';
  const packages = options.npmPackages ?? denoNpmPackages();
  if (packages.length === 0) looked.push(`no npm package of Deno exists for ${process.platform}`);
  for (const name of packages) {
    let manifest: string;
    try {
      manifest = require.resolve(`${name}/package.json`);
    } catch {
      looked.push(`npm package ${name} (not installed)`);
      continue;
    }
    const path = join(dirname(manifest), binary);
    if (!existsSync(path)) {
      looked.push(`npm package ${name} (installed, but ${binary} is missing)`);
      continue;
    }
    const v = denoVersion(path);
    if ('version' in v) return { found: true, path, version: v.version, source: 'npm' };
    looked.push(`${path} (from ${name}, but it does not run: ${v.error})`);
  }
  return { found: false, reason: `Deno was not found; looked at: ${looked.join('; ')}` };
}
