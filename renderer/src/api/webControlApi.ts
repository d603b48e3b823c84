// The ControlApi over the loopback web mode: POST /ui/api/rpc/<method> and
// the /ui/api/events stream, authenticated by the HttpOnly session cookie the
// login exchange set (the page never holds a token). Answers are validated
// against the contract; failures reject with a ControlError.
import { controlContract, type ControlMethod, type ControlInput, type ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { errorEnvelopeSchema } from '../../../contract/errors.ts';
import { acceptEventBatches } from './eventBatch.ts';

export const WEB_API_PREFIX = '/ui/api';

/** A call that never reached the companion (it is stopped, or restarting): not an answer from it. */
export class UnreachableError extends ControlError {
  readonly unreachable = true;
  constructor() {
    super('unavailable', 'Airlock is not reachable: is it still running?');
  }
}

/** How the event stream is doing: open, lost (the browser retries), or refused (reopened here, every few seconds). */
export type StreamState = 'open' | 'lost' | 'refused';

/** A ControlApi that also says how its event stream is doing (the web mode; the desktop bridge cannot lose the core). */
export interface StreamAwareControlApi extends ControlApi {
  eventsWithState(onBatch: (events: ControlEvent[]) => void, onState: (state: StreamState) => void): () => void;
}

/** How long a refused event stream waits before it is opened again. */
const REOPEN_MS = 3000;

export function createWebControlApi(prefix = WEB_API_PREFIX): StreamAwareControlApi {
  const url = (since?: number) => `${prefix}/events${since !== undefined ? `?since=${since}` : ''}`;
  // Each batch is checked against the contract as the desktop adapter checks its own (eventBatch.ts).
  const parse = (onBatch: (events: ControlEvent[]) => void) => {
    const accept = acceptEventBatches(onBatch);
    return (message: Event) => accept(JSON.parse((message as MessageEvent).data as string));
  };
  return {
    async call<M extends ControlMethod>(method: M, input: ControlInput<M>): Promise<ControlOutput<M>> {
      let response: Response;
      try {
        response = await fetch(`${prefix}/rpc/${method}`, {
          method: 'POST',
          credentials: 'same-origin',
          // The custom header makes every call a CORS-preflighted request: no other site can forge one.
          headers: { 'content-type': 'application/json', 'x-airlock-ui': '1' },
          body: JSON.stringify(input ?? {}),
        });
      } catch {
        throw new UnreachableError();
      }
      const body = (await response.json().catch(() => ({}))) as unknown;
      if (!response.ok) {
        const envelope = errorEnvelopeSchema.safeParse(body);
        if (envelope.success) throw new ControlError(envelope.data.error.code, envelope.data.error.message, envelope.data.error.hint);
        throw new ControlError(response.status === 401 ? 'unauthorized' : 'internal', `HTTP ${response.status}`);
      }
      return controlContract[method].output.parse(body) as ControlOutput<M>;
    },
    events(onBatch: (events: ControlEvent[]) => void, options: { since?: number } = {}) {
      const source = new EventSource(url(options.since), { withCredentials: true });
      source.addEventListener('batch', parse(onBatch));
      return () => source.close();
    },
    eventsWithState(onBatch, onState) {
      // The browser reconnects a dropped stream by itself; a stream it gave up on (an answer other than
      // 200, as after a restart that ended this page's session) is opened again here until it is closed.
      let source: EventSource | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let closed = false;
      const open = () => {
        timer = undefined;
        if (closed) return;
        const s = new EventSource(url(), { withCredentials: true });
        source = s;
        s.addEventListener('open', () => onState('open'));
        s.addEventListener('batch', parse(onBatch));
        s.addEventListener('error', () => {
          if (closed || source !== s) return;
          if (s.readyState === EventSource.CLOSED) {
            onState('refused');
            timer ??= setTimeout(open, REOPEN_MS);
          } else onState('lost');
        });
      };
      open();
      return () => {
        closed = true;
        if (timer) clearTimeout(timer);
        source?.close();
      };
    },
  };
}
