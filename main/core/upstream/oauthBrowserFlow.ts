// The browser half of signing in to a remote MCP server (`airlock servers
// login`): a listener on the loopback callback address waits for the
// authorization server to send the person back, the authorization page is
// opened in their browser (or its address printed), and the code comes back
// once — only with the state this sign-in sent, within a deadline. The
// listener answers the browser with a page that says what happened, and
// stops.
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { AirlockError } from '../util/errors.ts';

export interface BrowserFlowOptions {
  port: number;
  /** How long the person has to sign in. */
  timeoutMs?: number;
  /** Opens a URL in the person's browser (default: the platform's opener); false when it could not. */
  open?(url: string): boolean;
  /** Says what is happening (the URL to open by hand when no browser opens). */
  tell(line: string): void;
}

/** Opens a URL with the platform's own opener; false when there is none to run. */
export function openInBrowser(url: string): boolean {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** `authorize` for oauthProvider: the page opened, the callback's query (its code, maybe its issuer) awaited. */
export function browserAuthorize(options: BrowserFlowOptions): (url: URL) => Promise<URLSearchParams> {
  return (url) =>
    new Promise<URLSearchParams>((resolve, reject) => {
      const state = url.searchParams.get('state');
      let timer: NodeJS.Timeout | undefined;
      const server = createServer((req, res) => {
        const at = new URL(req.url ?? '/', `http://127.0.0.1:${options.port}`);
        if (at.pathname !== '/callback') {
          res.writeHead(404).end();
          return;
        }
        const page = (status: number, text: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(`<!doctype html><meta charset="utf-8"><title>Airlock</title><p>${text}</p>`);
        };
        const error = at.searchParams.get('error');
        const code = at.searchParams.get('code');
        if (state && at.searchParams.get('state') !== state) {
          page(400, 'This answer is not for the sign-in Airlock started. Nothing was signed in.');
          return;
        }
        finish();
        if (error || !code) {
          page(400, 'The sign-in did not finish. You can close this tab and try again from Airlock.');
          reject(
            new AirlockError(
              'denied',
              `the sign-in did not finish: ${error ?? 'no code came back'}${at.searchParams.get('error_description') ? ` (${at.searchParams.get('error_description')})` : ''}`,
            ),
          );
          return;
        }
        page(200, 'Signed in. You can close this tab and go back to Airlock.');
        resolve(at.searchParams);
      });
      const finish = () => {
        clearTimeout(timer);
        server.close();
      };
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          new AirlockError(
            'unavailable',
            `cannot listen for the sign-in on 127.0.0.1:${options.port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}`,
            {
              hint: 'another sign-in may be going on: finish or close it, then try again',
            },
          ),
        ),
      );
      server.listen(options.port, '127.0.0.1', () => {
        timer = setTimeout(() => {
          finish();
          reject(new AirlockError('denied', `no sign-in within ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s`));
        }, options.timeoutMs ?? 300_000);
        const opened = (options.open ?? openInBrowser)(url.toString());
        options.tell(opened ? `Opening your browser to sign in. If it does not open, go to:\n  ${url}` : `Sign in at:\n  ${url}`);
      });
    });
}
