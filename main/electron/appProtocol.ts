// The app's own origin, app://airlock: the built renderer served from disk
// with a strict Content-Security-Policy on every response, and nothing
// outside the renderer folder reachable (no `..`, no symlinks out).
import { readFile, realpath } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { APP_SCHEME, type ElectronApi } from './electronApi.ts';

export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
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
  '.woff2': 'font/woff2',
};

/** Must run before the app is ready: app:// is a standard, secure origin for the renderer. */
export function registerAppScheme(protocol: ElectronApi['protocol']): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** The response for one app:// request. */
export async function appResponse(rendererDir: string, requestUrl: string): Promise<Response> {
  const root = resolve(rendererDir);
  const url = new URL(requestUrl);
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html';
  } catch {
    return new Response('bad path', { status: 400 });
  }
  const file = resolve(root, relative);
  if (!file.startsWith(root + sep)) return new Response('not found', { status: 404 });
  try {
    const real = await realpath(file);
    if (!real.startsWith(root + sep)) return new Response('not found', { status: 404 });
    const body = await readFile(real);
    return new Response(body, {
      status: 200,
      headers: { 'content-type': TYPES[extname(real)] ?? 'application/octet-stream', 'content-security-policy': APP_CSP, 'x-content-type-options': 'nosniff' },
    });
  } catch {
    return new Response('not found', { status: 404 });
  }
}

export function serveAppProtocol(protocol: ElectronApi['protocol'], rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appResponse(rendererDir, request.url));
}
