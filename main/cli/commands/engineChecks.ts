// doctor's engine lines: which sandbox engines this machine has, their
// versions, and why a missing one is missing.
import { createRequire } from 'node:module';
import type { CliContext } from '../context.ts';
import type { Check } from './doctor.ts';

const require = createRequire(import.meta.url);

export async function engineChecks(_ctx: CliContext): Promise<Check[]> {
  const checks: Check[] = [];
  try {
    const version = (require('quickjs-emscripten/package.json') as { version: string }).version;
    checks.push({ name: 'engine quickjs', ok: true, detail: `quickjs-emscripten ${version} (bundled, wasm)`, data: { found: true, version } });
  } catch (error) {
    checks.push({ name: 'engine quickjs', ok: false, detail: `quickjs-emscripten is missing: ${(error as Error).message} (run npm ci)` });
  }
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const permission = major > 22 || (major === 22 && minor >= 13);
  checks.push({
    name: 'engine node',
    ok: true,
    detail: permission ? `Node ${process.versions.node} (${process.execPath}), --permission available; network not scoped by Node (wrapper or bannered none)` : `Node ${process.versions.node} has no stable --permission (needs 22.13+)`,
    data: { found: permission, version: process.versions.node },
  });
  return checks;
}
