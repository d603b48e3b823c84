// The built renderer as both shells serve it — the web mode under /ui/ and
// the desktop app's app:// protocol: one Content-Security-Policy, one table
// of content types, and one rule for reading a file: inside the renderer
// folder after resolving `..` and symlinks, or not at all.
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { AirlockError } from '../util/errors.ts';
import { UI_DIR } from '../util/installPaths.ts';

export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // React sets style properties, xterm.js injects its own stylesheet.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export function contentType(file: string): string {
  return TYPES[extname(file)] ?? 'application/octet-stream';
}

/** A file of the renderer folder by its (already decoded) relative path; undefined when it is missing or would leave the folder. */
export async function readUiFile(rendererDir: string, relative: string): Promise<{ body: Buffer; file: string } | undefined> {
  const root = resolve(rendererDir);
  const file = resolve(root, relative.replace(/^\/+/, '') || 'index.html');
  if (!file.startsWith(root + sep)) return undefined;
  try {
    const real = await realpath(file);
    if (!real.startsWith(root + sep)) return undefined;
    return { body: await readFile(real), file: real };
  } catch {
    return undefined;
  }
}

/** Refuses to serve a web UI that `npm run build` has not built. */
export function assertUiBuilt(dir = UI_DIR): void {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new AirlockError('usage', `the web UI is not built (no ${join(dir, 'index.html')})`, { hint: 'run `npm run build` first' });
  }
}
