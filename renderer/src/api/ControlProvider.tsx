// Gives every screen the one ControlApi and one shared event stream: the
// stream is opened once for the whole app and fanned out to the screens
// that listen, so a screen that re-attaches never opens a second one.
import { createContext, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { ControlApi } from '../../../contract/controlApi.ts';
import type { ControlEvent } from '../../../contract/events.ts';

type Listener = (events: ControlEvent[]) => void;

interface ControlContextValue {
  api: ControlApi;
  subscribe(listener: Listener): () => void;
}

const ControlContext = createContext<ControlContextValue | undefined>(undefined);

export function ControlProvider({ api, children }: { api: ControlApi; children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  useEffect(() => {
    const off = api.events((batch) => {
      for (const l of [...listeners.current]) l(batch);
    });
    return off;
  }, [api]);
  const value = useMemo<ControlContextValue>(
    () => ({
      api,
      subscribe(listener) {
        listeners.current.add(listener);
        return () => void listeners.current.delete(listener);
      },
    }),
    [api],
  );
  return <ControlContext.Provider value={value}>{children}</ControlContext.Provider>;
}

export function useControl(): ControlContextValue {
  const value = useContext(ControlContext);
  if (!value) throw new Error('useControl outside ControlProvider');
  return value;
}
