// doctor's engine lines: which sandbox engines this machine has, their
// versions, and why a missing one is missing.
import { createRequire } from 'node:module';
import type { CliContext } from '../context.ts';
import { findDeno } from '../../core/sandbox/deno/findDeno.ts';
import { findSrt } from '../../core/sandbox/srt/srtWrapper.ts';
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
    detail: permission
      ? `Node ${process.versions.node} (${process.execPath}), --permission available; network not scoped by Node (wrapper or bannered none)`
      : `Node ${process.versions.node} has no stable --permission (needs 22.13+)`,
    data: { found: permission, version: process.versions.node },
  });
  const deno = findDeno();
  checks.push(
    deno.found
      ? {
          name: 'engine deno',
          ok: true,
          detail: `Deno ${deno.version} (${deno.source}: ${deno.path})`,
          data: { found: true, version: deno.version, path: deno.path },
        }
      : { name: 'engine deno', ok: true, detail: `not found: ${deno.reason}`, data: { found: false } },
  );
  const srt = await findSrt();
  checks.push(
    srt.found
      ? { name: 'srt wrapper', ok: true, detail: `sandbox-runtime ${srt.version}, usable (${srt.cliPath})`, data: { found: true, version: srt.version } }
      : { name: 'srt wrapper', ok: true, detail: `unavailable: ${srt.reason}`, data: { found: false } },
  );
  return checks;
}
