// The app's own origin, app://airlock: the built renderer served from disk
// with a strict Content-Security-Policy on every response, and nothing
// outside the renderer folder reachable (no `..`, no symlinks out).
import { UI_CSP, contentType, readUiFile } from '../core/http/uiFiles.ts';
import { APP_SCHEME, type ElectronApi } from './electronApi.ts';

/** The CSP every app:// response carries (the same as the web mode's). */
export const APP_CSP = UI_CSP;

/** Must run before the app is ready: app:// is a standard, secure origin for the renderer. */
export function registerAppScheme(protocol: ElectronApi['protocol']): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** The response for one app:// request. */
export async function appResponse(rendererDir: string, requestUrl: string): Promise<Response> {
  let relative: string;
  try {
    relative = decodeURIComponent(new URL(requestUrl).pathname);
  } catch {
    return new Response('bad path', { status: 400 });
  }
  const found = await readUiFile(rendererDir, relative);
  if (!found) return new Response('not found', { status: 404 });
  return new Response(found.body, {
    status: 200,
    headers: { 'content-type': contentType(found.file), 'content-security-policy': APP_CSP, 'x-content-type-options': 'nosniff' },
  });
}

export function serveAppProtocol(protocol: ElectronApi['protocol'], rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appResponse(rendererDir, request.url));
}
