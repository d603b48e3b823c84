// The ControlApi over the loopback web mode: POST /ui/api/rpc/<method> and
// the /ui/api/events stream, authenticated by the HttpOnly session cookie the
// login exchange set (the page never holds a token). Answers are validated
// against the contract; failures reject with a ControlError.
import { controlContract, type ControlMethod, type ControlInput, type ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import { controlEventBatchSchema, type ControlEvent } from '../../../contract/events.ts';
import { errorEnvelopeSchema } from '../../../contract/errors.ts';

export const WEB_API_PREFIX = '/ui/api';

export function createWebControlApi(prefix = WEB_API_PREFIX): ControlApi {
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
        throw new ControlError('unavailable', 'Airlock is not reachable: is it still running?');
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
      const source = new EventSource(`${prefix}/events${options.since !== undefined ? `?since=${options.since}` : ''}`, { withCredentials: true });
      const onMessage = (message: MessageEvent<string>) => {
        const parsed = controlEventBatchSchema.safeParse(JSON.parse(message.data));
        if (parsed.success) onBatch(parsed.data);
      };
      source.addEventListener('batch', onMessage as EventListener);
      return () => source.close();
    },
  };
}
