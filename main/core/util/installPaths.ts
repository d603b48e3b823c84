// Where Airlock's own files are, in each way it is installed: a checkout
// (TypeScript run directly: this module is main/core/runtime/installPaths.ts)
// or a build (every module bundled into dist/cli/*.js for the npm package and
// the .mcpb, or out/main/*.js in the desktop app). The root holds resources/
// (the demo API), out/renderer/ (the web UI) and the CLI entry.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const fromSource = import.meta.url.endsWith('.ts');

/** The directory that holds resources/ and out/. */
export const APP_ROOT = fileURLToPath(new URL(fromSource ? '../../../' : '../../', import.meta.url));

/** The `airlock` command's entry (what a client registration runs with Node). */
export const CLI_ENTRY = fromSource ? join(APP_ROOT, 'main', 'cli', 'airlock.js') : join(APP_ROOT, 'dist', 'cli', 'airlock.js');

/** The built renderer that `serve --ui` serves. */
export const UI_DIR = join(APP_ROOT, 'out', 'renderer');

export function resourcePath(...parts: string[]): string {
  return join(APP_ROOT, 'resources', ...parts);
}
