// The ControlApi over loopback HTTP, for the CLI (and the same shape the web
// UI's adapter has): `client.call('approvals.list', {})` is checked against
// the contract at compile time and its answer validated at run time; a
// failure rejects with a ControlError carrying the envelope's code.
import { controlContract, controlPath, CONTROL_PREFIX, type ControlInput, type ControlMethod, type ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import { controlEventBatchSchema, type ControlEvent } from '../../../contract/events.ts';
import { errorEnvelopeSchema } from '../../../contract/errors.ts';
import { AirlockError } from '../util/errors.ts';
import { messageOf } from '../../../contract/values.ts';

export interface ControlClient extends ControlApi {
  /** Like `events`, but resolves once the stream is open (rejects when it cannot be). */
  openEvents(onBatch: (events: ControlEvent[]) => void, options?: { since?: number; onClose?: () => void }): Promise<() => void>;
}

export function createControlClient(baseUrl: string, token: string, doFetch: typeof fetch = fetch): ControlClient {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  async function call<M extends ControlMethod>(method: M, input: ControlInput<M>): Promise<ControlOutput<M>> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${controlPath(method)}`, { method: 'POST', headers, body: JSON.stringify(input ?? {}) });
    } catch (error) {
      throw new AirlockError('unavailable', `cannot reach Airlock at ${baseUrl}: ${messageOf(error)}`, {
        hint: 'is `airlock serve` (or the app) running? `airlock doctor` tells',
      });
    }
    const body = (await response.json().catch(() => ({}))) as unknown;
    if (!response.ok) {
      const envelope = errorEnvelopeSchema.safeParse(body);
      if (envelope.success) throw new ControlError(envelope.data.error.code, `${method}: ${envelope.data.error.message}`, envelope.data.error.hint);
      throw new ControlError(response.status === 401 ? 'unauthorized' : 'internal', `${method}: HTTP ${response.status}`);
    }
    return controlContract[method].output.parse(body) as ControlOutput<M>;
  }

  async function openEvents(onBatch: (events: ControlEvent[]) => void, options: { since?: number; onClose?: () => void } = {}): Promise<() => void> {
    const controller = new AbortController();
    const url = `${baseUrl}${CONTROL_PREFIX}/events${options.since !== undefined ? `?since=${options.since}` : ''}`;
    const response = await doFetch(url, { headers: { authorization: headers.authorization, accept: 'text/event-stream' }, signal: controller.signal });
    if (!response.ok || !response.body) throw new AirlockError('unavailable', `event stream: HTTP ${response.status}`);
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
            if (data) onBatch(controlEventBatchSchema.parse(JSON.parse(data)));
          }
        }
      } catch {
        // Closed or aborted.
      }
      options.onClose?.();
    })();
    return () => controller.abort();
  }

  return {
    call,
    openEvents,
    events(onBatch, options = {}) {
      let close: (() => void) | undefined;
      let closed = false;
      openEvents(onBatch, options).then(
        (c) => (closed ? c() : (close = c)),
        () => undefined,
      );
      return () => {
        closed = true;
        close?.();
      };
    },
  };
}
