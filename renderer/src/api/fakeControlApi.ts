// A ControlApi for component tests and screenshots without a core: handlers
// answer from in-memory state, and `emit` pushes events as the core would.
import type { ControlMethod, ControlInput, ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import type { ControlEvent } from '../../../contract/events.ts';

export type FakeHandlers = { [M in ControlMethod]?: (input: ControlInput<M>) => ControlOutput<M> | Promise<ControlOutput<M>> };

export interface FakeControlApi extends ControlApi {
  emit(events: ControlEvent[]): void;
  calls: { method: ControlMethod; input: unknown }[];
}

export function createFakeControlApi(handlers: FakeHandlers): FakeControlApi {
  const listeners = new Set<(events: ControlEvent[]) => void>();
  const calls: { method: ControlMethod; input: unknown }[] = [];
  return {
    calls,
    async call(method, input) {
      calls.push({ method, input });
      const handler = handlers[method] as ((i: unknown) => unknown) | undefined;
      if (!handler) throw new ControlError('not_found', `the fake has no '${method}'`);
      return (await handler(input)) as never;
    },
    events(onBatch) {
      listeners.add(onBatch);
      return () => void listeners.delete(onBatch);
    },
    emit(events) {
      for (const l of listeners) l(events);
    },
  };
}
