// Serves the control API on the loopback server, under its own path and its
// own token (never the MCP token): POST /control/rpc/<method> validated
// against the contract, and GET /control/events as Server-Sent Events
// (batched, replayable from a log sequence number).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { controlContract, CONTROL_PREFIX, type ControlHandlers, type ControlMethod, type ControlEvent } from './contract.ts';
import { readBody, sendJson, type Route } from '../http/loopbackServer.ts';
import { AirlockError } from '../errors.ts';
import { UnknownApprovalError } from '../approvals/approvalBroker.ts';
import type { EventHub } from './eventHub.ts';
import type { Logger } from '../log/logger.ts';

const MAX_BODY = 1024 * 1024;

export interface ControlRoutesOptions {
  handlers: ControlHandlers;
  hub: EventHub;
  /** What a subscriber receives first (logs since `since`, pending approvals). */
  replay(since: number | undefined): ControlEvent[];
  logger: Logger;
}

function zodMessage(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ');
}

export function createControlRoutes(options: ControlRoutesOptions): Route[] {
  const log = options.logger;

  async function rpc(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' }, { allow: 'POST' });
    const method = decodeURIComponent(url.pathname.slice(`${CONTROL_PREFIX}/rpc/`.length)) as ControlMethod;
    const spec = controlContract[method];
    if (!spec || !Object.hasOwn(controlContract, method)) return sendJson(res, 404, { error: `unknown method '${method}'` });
    let raw: unknown;
    try {
      const text = (await readBody(req, MAX_BODY)).toString('utf8');
      raw = text.trim() ? JSON.parse(text) : {};
    } catch (error) {
      return sendJson(res, (error as { status?: number }).status ?? 400, { error: 'body must be JSON' });
    }
    const input = spec.input.safeParse(raw);
    if (!input.success) return sendJson(res, 400, { error: zodMessage(input.error) });
    try {
      const handler = options.handlers[method] as (i: unknown, c: { by: string }) => Promise<unknown> | unknown;
      const result = await handler(input.data, { by: 'control api' });
      const output = spec.output.safeParse(result);
      if (!output.success) {
        log.error(`control ${method}: handler returned a value outside the contract: ${zodMessage(output.error)}`);
        return sendJson(res, 500, { error: 'internal error' });
      }
      return sendJson(res, 200, output.data);
    } catch (error) {
      if (error instanceof UnknownApprovalError) return sendJson(res, 404, { error: error.message });
      if (error instanceof AirlockError) return sendJson(res, error.kind === 'usage' || error.kind === 'config' ? 400 : 409, { error: error.line });
      log.error(`control ${method} failed: ${(error as Error).stack ?? error}`);
      return sendJson(res, 500, { error: 'internal error' });
    }
  }

  function events(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'GET only' }, { allow: 'GET' });
    const sinceRaw = url.searchParams.get('since');
    const since = sinceRaw !== null && /^\d+$/.test(sinceRaw) ? Number(sinceRaw) : undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const write = (batch: ControlEvent[], dropped = 0) => {
      const payload =
        dropped > 0
          ? [
              {
                type: 'log',
                entry: { seq: 0, time: new Date().toISOString(), level: 'warn', source: 'control', message: `${dropped} events dropped (slow reader)` },
              } as ControlEvent,
              ...batch,
            ]
          : batch;
      res.write(`event: batch\ndata: ${JSON.stringify(payload)}\n\n`);
    };
    const backlog = options.replay(since);
    write(backlog);
    const off = options.hub.subscribe({ send: write });
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    req.on('close', () => {
      clearInterval(ping);
      off();
    });
  }

  return [
    { path: `${CONTROL_PREFIX}/rpc/`, auth: 'control', handle: rpc },
    { path: `${CONTROL_PREFIX}/events`, auth: 'control', handle: events },
  ];
}
