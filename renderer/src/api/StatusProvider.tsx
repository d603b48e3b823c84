// The companion's status, asked for in one place for every screen: the shell
// (kill switch, Overview) and the screens that show part of it (Engine,
// Approvals, Settings, APIs) read this one answer. It is asked again when an
// event says something in it changed (an approval, an API, a server, a
// setting, the kill switch), and every 2 s for what changes with no event:
// uptime, memory, and when each client was last seen.
import { createContext, useContext, type ReactNode } from 'react';
import type { ControlEvent } from '../../../contract/events.ts';
import type { ControlOutput } from '../../../contract/control.ts';
import { useCall, type CallState } from './hooks.ts';

export type StatusState = CallState<ControlOutput<'status'>>;

/** The events after which the status is asked for again at once. */
export const STATUS_EVENTS: ControlEvent['type'][] = [
  'status',
  'approval-requested',
  'approval-decided',
  'apis-changed',
  'servers-changed',
  'settings-applied',
  'grants-changed',
];
/** How often it is asked for anyway (uptime, memory, last seen). */
export const STATUS_EVERY_MS = 2000;

const StatusContext = createContext<StatusState | undefined>(undefined);

export function StatusProvider({ children }: { children: ReactNode }) {
  const status = useCall('status', {}, { intervalMs: STATUS_EVERY_MS, refreshOn: STATUS_EVENTS });
  return <StatusContext.Provider value={status}>{children}</StatusContext.Provider>;
}

/** The shared status (inside StatusProvider). */
export function useStatus(): StatusState {
  const status = useContext(StatusContext);
  if (!status) throw new Error('useStatus() is used outside <StatusProvider>');
  return status;
}
