// Serves the control API on the loopback server, under its own path and its
// own token (never the MCP token): POST /control/rpc/<method> through the one
// dispatcher, answering the value or the error envelope with its HTTP status,
// and GET /control/events as Server-Sent Events (batched, replayable from a
// log sequence number).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_PREFIX, type ControlCaller } from '../../../contract/control.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { HTTP_STATUS } from '../../../contract/errors.ts';
import { readBody, sendJson, type Route } from '../http/loopbackServer.ts';
import type { DispatchControl } from './dispatch.ts';
import type { EventHub } from './eventHub.ts';

const MAX_BODY = 1024 * 1024;

export interface ControlRoutesOptions {
  dispatch: DispatchControl;
  hub: EventHub;
  /** What a subscriber receives first (logs since `since`, pending approvals). */
  replay(since: number | undefined): ControlEvent[];
  /** Who a request through these routes is (for "decided by"). */
  caller: ControlCaller;
  /** Mount point; the web UI mounts the same routes under its own prefix and auth. */
  prefix?: string;
  auth?: Route['auth'];
}

function fail(res: ServerResponse, code: keyof typeof HTTP_STATUS, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, HTTP_STATUS[code], { error: { code, message } }, headers);
}

export function createControlRoutes(options: ControlRoutesOptions): Route[] {
  const prefix = options.prefix ?? CONTROL_PREFIX;
  const auth = options.auth ?? 'control';

  async function rpc(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return fail(res, 'bad_input', 'POST only', { allow: 'POST' });
    let method: string;
    try {
      method = decodeURIComponent(url.pathname.slice(`${prefix}/rpc/`.length));
    } catch {
      return fail(res, 'bad_input', 'the method name is not valid percent-encoding');
    }
    let raw: unknown;
    try {
      const text = (await readBody(req, MAX_BODY)).toString('utf8');
      raw = text.trim() ? JSON.parse(text) : {};
    } catch (error) {
      if ((error as { status?: number }).status === 413)
        return sendJson(res, 413, { error: { code: 'bad_input', message: `request body over ${MAX_BODY} bytes` } });
      return fail(res, 'bad_input', 'the body must be JSON');
    }
    const result = await options.dispatch(method, raw, options.caller);
    if (result.ok) return sendJson(res, 200, result.value);
    return sendJson(res, HTTP_STATUS[result.error.code], { error: result.error });
  }

  function events(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET') return fail(res, 'bad_input', 'GET only', { allow: 'GET' });
    const sinceRaw = url.searchParams.get('since');
    const since = sinceRaw !== null && /^\d+$/.test(sinceRaw) ? Number(sinceRaw) : undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const write = (batch: ControlEvent[], dropped = 0) => {
      const payload: ControlEvent[] = dropped > 0 ? [{ type: 'dropped', count: dropped }, ...batch] : batch;
      res.write(`event: batch\ndata: ${JSON.stringify(payload)}\n\n`);
    };
    write(options.replay(since));
    const off = options.hub.subscribe({ send: write });
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    req.on('close', () => {
      clearInterval(ping);
      off();
    });
  }

  return [
    { path: `${prefix}/rpc/`, auth, handle: rpc },
    { path: `${prefix}/events`, auth, handle: events },
  ];
}
