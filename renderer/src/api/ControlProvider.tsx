// Gives every screen the one ControlApi and one shared event stream: the
// stream is opened once for the whole app and fanned out to the screens
// that listen, so a screen that re-attaches never opens a second one.
//
// It also knows whether the companion is there: a call that cannot reach it,
// or an event stream that drops, makes the connection 'down' (checked with a
// status call, then every few seconds until it answers); a 401 after a
// restart makes it 'signed-out'. When it answers again the connection's
// epoch goes up and every useCall reloads, so nothing stale is left shown as
// current. So it does when a status shows another companion than the last
// one (it restarted between two checks, and was never seen away). A login link opened in this tab (#login=…) signs in again.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import type { Status } from '../../../contract/status.ts';
import { UnreachableError, type StreamAwareControlApi, type StreamState } from './webControlApi.ts';
import { completeWebLogin } from './webLogin.ts';

type Listener = (events: ControlEvent[]) => void;

interface ControlContextValue {
  api: ControlApi;
  subscribe(listener: Listener): () => void;
}

export type ConnectionState = 'ok' | 'down' | 'signed-out';

export interface Connection {
  state: ConnectionState;
  /** When the companion last answered before it went away (ms since the epoch). */
  lastAnswerAt?: number;
  /** The command that starts it again, from its last status (headless companions only). */
  startCommand?: string;
  /** Goes up each time the companion is back after being away: screens reload what they show. */
  epoch: number;
}

/** While the companion is away, how often it is asked again. */
const RECHECK_MS = 2000;

const ControlContext = createContext<ControlContextValue | undefined>(undefined);
const ConnectionContext = createContext<Connection>({ state: 'ok', epoch: 0 });

function isUnreachable(error: unknown): boolean {
  return error instanceof UnreachableError;
}

function isStreamAware(api: ControlApi): api is StreamAwareControlApi {
  return typeof (api as Partial<StreamAwareControlApi>).eventsWithState === 'function';
}

export function ControlProvider({ api, children }: { api: ControlApi; children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const [connection, setConnection] = useState<Connection>({ state: 'ok', epoch: 0 });
  const lastAnswerAt = useRef<number | undefined>(undefined);
  const startCommand = useRef<string | undefined>(undefined);
  /** Which companion answered the last status (its pid and start time). */
  const companion = useRef<string | undefined>(undefined);

  const answered = useCallback((restarted = false) => {
    lastAnswerAt.current = Date.now();
    setConnection((c) =>
      c.state === 'ok' && !restarted ? c : { state: 'ok', epoch: c.epoch + 1, ...(startCommand.current ? { startCommand: startCommand.current } : {}) },
    );
  }, []);
  const away = useCallback((state: 'down' | 'signed-out') => {
    setConnection((c) =>
      c.state === state
        ? c
        : {
            state,
            epoch: c.epoch,
            ...(lastAnswerAt.current !== undefined ? { lastAnswerAt: lastAnswerAt.current } : {}),
            ...(startCommand.current ? { startCommand: startCommand.current } : {}),
          },
    );
  }, []);
  const observe = useCallback(
    <T,>(promise: Promise<T>, method: string): Promise<T> =>
      promise.then(
        (value) => {
          let restarted = false;
          if (method === 'status') {
            const status = value as Status;
            startCommand.current = status.startCommand;
            const which = `${status.pid}@${status.startedAt}`;
            restarted = companion.current !== undefined && companion.current !== which;
            companion.current = which;
          }
          answered(restarted);
          return value;
        },
        (error: unknown) => {
          if (isUnreachable(error)) away('down');
          else if (error instanceof ControlError && error.code === 'unauthorized') away('signed-out');
          else answered(); // an error the companion sent is an answer
          throw error;
        },
      ),
    [answered, away],
  );

  // The API every screen uses: the same calls, observed.
  const tracked = useMemo<ControlApi>(
    () => ({
      call: ((method, input) => observe(api.call(method, input), method)) as ControlApi['call'],
      events: (onBatch, options) => api.events(onBatch, options),
    }),
    [api, observe],
  );

  const check = useCallback(() => {
    void observe(api.call('status', {}), 'status').catch(() => undefined);
  }, [api, observe]);

  useEffect(() => {
    const fan = (batch: ControlEvent[]) => {
      for (const l of [...listeners.current]) l(batch);
    };
    if (!isStreamAware(api)) return api.events(fan);
    // Whether the stream opened or dropped, a status call says where the companion stands.
    return api.eventsWithState(fan, (_state: StreamState) => check());
  }, [api, check]);

  // While away: ask again every few seconds, so the banner goes by itself when the companion is back.
  useEffect(() => {
    if (connection.state === 'ok') return;
    const timer = setInterval(check, RECHECK_MS);
    return () => clearInterval(timer);
  }, [connection.state, check]);

  // A login link opened in this tab only changes the fragment: trade it for a session here.
  useEffect(() => {
    if (!isStreamAware(api)) return;
    const onHash = () => {
      if (/^#login=/.test(location.hash)) void completeWebLogin().then(check);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, [api, check]);

  const value = useMemo<ControlContextValue>(
    () => ({
      api: tracked,
      subscribe(listener) {
        listeners.current.add(listener);
        return () => void listeners.current.delete(listener);
      },
    }),
    [tracked],
  );
  return (
    <ControlContext.Provider value={value}>
      <ConnectionContext.Provider value={connection}>{children}</ConnectionContext.Provider>
    </ControlContext.Provider>
  );
}

export function useControl(): ControlContextValue {
  const value = useContext(ControlContext);
  if (!value) throw new Error('useControl outside ControlProvider');
  return value;
}

/** Whether the companion answers; what the shell's banner and stale marks show. */
export function useConnection(): Connection {
  return useContext(ConnectionContext);
}
