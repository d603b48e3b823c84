// Which sandbox engines and wrappers this machine has: found or not, their
// versions, why a missing one is missing and how to install it. `doctor`
// prints it; the Engine screen draws its needs-install cells from it.
import { createRequire } from 'node:module';
import { findDeno } from '../sandbox/deno/findDeno.ts';
import { findSrt } from '../sandbox/srt/srtWrapper.ts';
import { messageOf } from '../../../contract/values.ts';

export interface ComponentState {
  found: boolean;
  version?: string;
  /** Where it was found, or why not. */
  detail: string;
  /** How to get it, when it is missing. */
  installHint?: string;
}

export interface EngineInventory {
  quickjs: ComponentState;
  node: ComponentState;
  deno: ComponentState;
  srt: ComponentState;
}

const require = createRequire(import.meta.url);

export async function engineInventory(): Promise<EngineInventory> {
  let quickjs: ComponentState;
  try {
    const version = (require('quickjs-emscripten/package.json') as { version: string }).version;
    quickjs = { found: true, version, detail: `quickjs-emscripten ${version} (bundled, wasm)` };
  } catch (error) {
    quickjs = { found: false, detail: `quickjs-emscripten is missing: ${messageOf(error)}`, installHint: 'reinstall Airlock (npm ci)' };
  }
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const permission = major > 22 || (major === 22 && minor >= 13);
  const node: ComponentState = permission
    ? {
        found: true,
        version: process.versions.node,
        detail: `Node ${process.versions.node} (${process.execPath}), --permission available; network not scoped by Node (wrapper, or bannered none)`,
      }
    : {
        found: false,
        version: process.versions.node,
        detail: `Node ${process.versions.node} has no stable --permission`,
        installHint: 'run Airlock on Node 22.13 or later',
      };
  const d = findDeno();
  const deno: ComponentState = d.found
    ? { found: true, version: d.version, detail: `Deno ${d.version} (${d.source}: ${d.path})` }
    : { found: false, detail: `not found: ${d.reason}`, installHint: 'install Deno (https://deno.land), or `npm i @deno/linux-x64-glibc` beside Airlock' };
  const s = await findSrt();
  const srt: ComponentState = s.found
    ? { found: true, version: s.version, detail: `sandbox-runtime ${s.version}, usable (${s.cliPath})` }
    : {
        found: false,
        detail: `unavailable: ${s.reason}`,
        installHint:
          process.platform === 'linux'
            ? 'apt-get install bubblewrap socat ripgrep'
            : process.platform === 'darwin'
              ? 'brew install ripgrep'
              : 'srt has no Windows mode',
      };
  return { quickjs, node, deno, srt };
}
