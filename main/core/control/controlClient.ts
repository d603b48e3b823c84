// The typed client of the control API, for the CLI (and the headless web
// bridge): `client.call('approvals.list', {})` is checked against the
// contract at compile time and its answer validated at run time.
import { controlContract, controlPath, type ControlInput, type ControlMethod, type ControlOutput, type ControlEvent, CONTROL_PREFIX } from './contract.ts';
import { AirlockError } from '../errors.ts';

export interface ControlClient {
  call<M extends ControlMethod>(method: M, input: ControlInput<M>): Promise<ControlOutput<M>>;
  /** Subscribes to the event stream; returns a function that closes it. */
  events(onBatch: (events: ControlEvent[]) => void, options?: { since?: number }): Promise<() => void>;
}

export function createControlClient(baseUrl: string, token: string, doFetch: typeof fetch = fetch): ControlClient {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    async call(method, input) {
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}${controlPath(method)}`, { method: 'POST', headers, body: JSON.stringify(input ?? {}) });
      } catch (error) {
        throw new AirlockError('network', `cannot reach Airlock at ${baseUrl}: ${(error as Error).message}`, {
          hint: 'is `airlock serve` (or the app) running? `airlock doctor` tells',
        });
      }
      const body = (await response.json().catch(() => ({}))) as { error?: string };
      if (!response.ok) {
        const kind = response.status === 400 || response.status === 404 ? 'usage' : response.status === 401 ? 'config' : 'internal';
        throw new AirlockError(kind, `${method}: ${body.error ?? `HTTP ${response.status}`}`);
      }
      return controlContract[method].output.parse(body) as ControlOutput<typeof method>;
    },
    async events(onBatch, options = {}) {
      const controller = new AbortController();
      const url = `${baseUrl}${CONTROL_PREFIX}/events${options.since !== undefined ? `?since=${options.since}` : ''}`;
      const response = await doFetch(url, { headers: { authorization: headers.authorization, accept: 'text/event-stream' }, signal: controller.signal });
      if (!response.ok || !response.body) throw new AirlockError('network', `event stream: HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      void (async () => {
        let buffer = '';
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let idx: number;
            while ((idx = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, idx);
              buffer = buffer.slice(idx + 2);
              const data = frame
                .split('\n')
                .filter((l) => l.startsWith('data:'))
                .map((l) => l.slice(5).trimStart())
                .join('\n');
              if (data) onBatch(JSON.parse(data) as ControlEvent[]);
            }
          }
        } catch {
          // Closed.
        }
      })();
      return () => controller.abort();
    },
  };
}
