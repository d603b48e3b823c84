// The headless web mode: the same renderer the desktop app shows, served on
// the loopback server under /ui/ with a strict Content-Security-Policy, and
// the control API under /ui/api behind the UI session cookie (not the
// control token, not the MCP token). Calls must come from this origin: they
// carry a custom header (so a cross-site page cannot forge one without a
// preflight it would fail) and, when the browser sends one, this Origin.
import { extname, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson, type Route } from '../http/loopbackServer.ts';
import { sessionCookie, UI_COOKIE, type UiSessions } from '../http/uiSessions.ts';
import { createControlRoutes, type ControlRoutesOptions } from './controlRoutes.ts';
import { UI_CSP, contentType, readUiFile } from '../http/uiFiles.ts';
import { UI_DIR } from '../util/installPaths.ts';

/** Where `npm run build` puts the renderer. */
export const DEFAULT_UI_DIR = UI_DIR;

export interface WebUiOptions extends Omit<ControlRoutesOptions, 'prefix' | 'auth'> {
  sessions: UiSessions;
  dir?: string;
  /** The server's own origin (http://127.0.0.1:<port>), once it is known. */
  origin(): string;
}

function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': UI_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

export function createWebUiRoutes(options: WebUiOptions): Route[] {
  const dir = resolve(options.dir ?? DEFAULT_UI_DIR);
  const api = createControlRoutes({ ...options, prefix: '/ui/api', auth: 'none' });
  const [rpcRoute, eventsRoute] = api as [Route, Route];

  const sameOrigin = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    return origin === undefined || origin === options.origin();
  };

  async function serveFile(res: ServerResponse, pathname: string): Promise<void> {
    const relative = decodeURIComponent(pathname.slice('/ui/'.length)) || 'index.html';
    const found = await readUiFile(dir, relative);
    if (!found) {
      // Unknown paths get the app (it routes by hash); missing assets get a 404.
      if (extname(relative) || relative === 'index.html') return sendJson(res, 404, { error: { code: 'not_found', message: 'no such file' } });
      return serveFile(res, '/ui/index.html');
    }
    res.writeHead(200, {
      'content-type': contentType(found.file),
      'content-length': found.body.length,
      'cache-control': extname(found.file) === '.html' ? 'no-store' : 'public, max-age=31536000, immutable',
      ...securityHeaders(),
    });
    res.end(found.body);
  }

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !sameOrigin(req)) return sendJson(res, 403, { error: { code: 'forbidden', message: 'log in from the Airlock page' } });
    let token: string;
    try {
      token = String((JSON.parse((await readBody(req, 4096)).toString('utf8')) as { token?: unknown }).token ?? '');
    } catch {
      return sendJson(res, 400, { error: { code: 'bad_input', message: 'the body must be JSON: { "token": "…" }' } });
    }
    const session = options.sessions.exchange(token);
    if (!session) {
      return sendJson(res, 401, {
        error: { code: 'unauthorized', message: 'this login link was used already or has expired', hint: 'run `airlock open` for a new one' },
      });
    }
    sendJson(res, 200, { ok: true }, { 'set-cookie': sessionCookie(session) });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path === '/ui/login') return login(req, res);
    if (path === '/ui/logout') {
      options.sessions.end(req.headers.cookie);
      return sendJson(res, 200, { ok: true }, { 'set-cookie': `${UI_COOKIE}=; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=0` });
    }
    if (path.startsWith('/ui/api/')) {
      if (!options.sessions.check(req.headers.cookie)) {
        return sendJson(res, 401, { error: { code: 'unauthorized', message: 'not signed in to the Airlock UI', hint: 'run `airlock open` for a login link' } });
      }
      if (!sameOrigin(req)) return sendJson(res, 403, { error: { code: 'forbidden', message: `Origin ${req.headers.origin} is not this Airlock` } });
      if (path.startsWith('/ui/api/rpc/')) {
        if (req.headers['x-airlock-ui'] !== '1') return sendJson(res, 403, { error: { code: 'forbidden', message: 'missing the x-airlock-ui header' } });
        return rpcRoute.handle(req, res, url);
      }
      if (path === '/ui/api/events') return eventsRoute.handle(req, res, url);
      return sendJson(res, 404, { error: { code: 'not_found', message: `no UI API route ${path}` } });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: { code: 'bad_input', message: 'GET only' } }, { allow: 'GET' });
    return serveFile(res, path);
  }

  return [
    { path: '/ui/', auth: 'none', handle },
    { path: '/ui', auth: 'none', handle: (_req, res) => void res.writeHead(302, { location: '/ui/' }).end() },
  ];
}
