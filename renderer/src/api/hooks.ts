// Small hooks over the ControlApi: a call whose answer refreshes on chosen
// events (or a timer), and a listener on the shared event stream. A call's
// answer is marked stale while the companion is away, and reloaded when it is
// back.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ControlInput, ControlMethod, ControlOutput } from '../../../contract/control.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import { ControlError } from '../../../contract/controlApi.ts';
import { useConnection, useControl } from './ControlProvider.tsx';

export function useControlEvents(listener: (events: ControlEvent[]) => void): void {
  const { subscribe } = useControl();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => subscribe((events) => latest.current(events)), [subscribe]);
}

export interface CallState<T> {
  data: T | undefined;
  error: ControlError | undefined;
  loading: boolean;
  /** The companion is away: `data` is what it said last, not what is true now. */
  stale: boolean;
  reload(): void;
}

export function useCall<M extends ControlMethod>(
  method: M,
  input: ControlInput<M>,
  options: { refreshOn?: ControlEvent['type'][]; intervalMs?: number } = {},
): CallState<ControlOutput<M>> {
  const { api } = useControl();
  const connection = useConnection();
  const [state, setState] = useState<{ data?: ControlOutput<M>; error?: ControlError; loading: boolean }>({ loading: true });
  const key = JSON.stringify(input);
  const generation = useRef(0);
  const load = useCallback(() => {
    const mine = ++generation.current;
    api.call(method, JSON.parse(key) as ControlInput<M>).then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) =>
        mine === generation.current &&
        setState((s) => ({ ...s, loading: false, error: error instanceof ControlError ? error : new ControlError('internal', String(error)) })),
    );
  }, [api, method, key]);
  useEffect(() => {
    load();
    if (!options.intervalMs) return;
    const timer = setInterval(load, options.intervalMs);
    return () => clearInterval(timer);
  }, [load, options.intervalMs]);
  // Back after being away: what was shown may have changed meanwhile.
  const epoch = useRef(connection.epoch);
  useEffect(() => {
    if (epoch.current === connection.epoch) return;
    epoch.current = connection.epoch;
    load();
  }, [connection.epoch, load]);
  const refreshOn = options.refreshOn;
  useControlEvents((events) => {
    if (refreshOn && events.some((e) => refreshOn.includes(e.type))) load();
  });
  return { data: state.data, error: state.error, loading: state.loading, stale: connection.state !== 'ok', reload: load };
}
