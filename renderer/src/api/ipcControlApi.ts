// The ControlApi over the Electron preload bridge: `window.airlock` exposes
// one named method per contract method (never a generic invoke) and
// `onEvents`. The main process validates the sender and the payload, then
// answers through the same dispatcher as the HTTP API. Event batches are
// checked against the contract here, exactly as the web adapter checks the
// ones from its stream (eventBatch.ts): one that does not match is dropped.
import { controlContract, type ControlMethod, type ControlInput, type ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import type { ErrorEnvelope } from '../../../contract/errors.ts';
import { acceptEventBatches } from './eventBatch.ts';

type Answer = { ok: true; value: unknown } | ({ ok: false } & ErrorEnvelope);

export type AirlockBridge = { [M in ControlMethod]: (input: ControlInput<M>) => Promise<Answer> } & {
  /** Batches as they crossed IPC: not yet checked against the contract. */
  onEvents(listener: (events: unknown) => void): () => void;
  onNavigate?(listener: (screen: string) => void): () => void;
};

export function bridge(): AirlockBridge | undefined {
  return (globalThis as { airlock?: AirlockBridge }).airlock;
}

export function createIpcControlApi(b: AirlockBridge): ControlApi {
  return {
    async call<M extends ControlMethod>(method: M, input: ControlInput<M>): Promise<ControlOutput<M>> {
      const answer = await (b[method] as (i: ControlInput<M>) => Promise<Answer>)(input);
      if (!answer.ok) throw new ControlError(answer.error.code, answer.error.message, answer.error.hint);
      return controlContract[method].output.parse(answer.value) as ControlOutput<M>;
    },
    events(onBatch) {
      return b.onEvents(acceptEventBatches(onBatch));
    },
  };
}
