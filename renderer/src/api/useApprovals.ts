// The approval queue as the UI shows it: loaded once, then kept by events.
// An item leaves when the core confirms its decision (never optimistically);
// answered items stay briefly visible with what happened (decided here,
// elsewhere, timed out, withdrawn by the client). When the companion comes
// back after being unreachable, or after it restarted, the queue is listed
// again and replaces what was shown: requests that died with the old
// companion do not linger. So does a decision the companion could not take
// because its call is gone (resync). While the companion is away (not
// answering, or this page signed out) nothing is shown as held: what it
// holds is unknown, and no answer could reach it.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApprovalDecision, PendingApproval } from '../../../contract/approvals.ts';
import { useConnection, useControl } from './ControlProvider.tsx';
import { useControlEvents } from './hooks.ts';

export interface Settled {
  approval: PendingApproval;
  decision: ApprovalDecision;
}

export interface Approvals {
  pending: PendingApproval[];
  settled: Settled[];
  loaded: boolean;
  /** Lists the queue again and shows only that: after a decision on a call the companion no longer holds. */
  resync(): void;
}

export function useApprovals(): Approvals {
  const { api } = useControl();
  const { epoch, state } = useConnection();
  const [pending, setPending] = useState<PendingApproval[]>([]);
  const [settled, setSettled] = useState<Settled[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [resyncs, setResyncs] = useState(0);
  const resync = useCallback(() => setResyncs((n) => n + 1), []);
  // The queue as last rendered, so a decision can be moved to `settled` without side effects inside a state updater.
  const current = useRef<PendingApproval[]>([]);
  current.current = pending;
  useEffect(() => {
    let live = true;
    api.call('approvals.list', {}).then(
      (list) => {
        if (!live) return;
        // First load: events may already have arrived, so merge; after a reconnect or a resync the list is the truth.
        setPending((current) => (epoch === 0 && resyncs === 0 ? merge(current, list) : merge([], list)));
        setLoaded(true);
      },
      () => live && setLoaded(true),
    );
    return () => {
      live = false;
    };
  }, [api, epoch, resyncs]);
  useControlEvents((events) => {
    for (const e of events) {
      if (e.type === 'approval-requested' || e.type === 'approval-updated') setPending((current) => merge(current, [e.approval]));
      if (e.type === 'approval-decided') {
        const gone = current.current.find((p) => p.id === e.id);
        if (gone) setSettled((s) => [{ approval: gone, decision: e.decision }, ...s].slice(0, 20));
        setPending((list) => list.filter((p) => p.id !== e.id));
      }
    }
  });
  return { pending: state === 'ok' ? pending : NONE, settled, loaded, resync };
}

const NONE: PendingApproval[] = [];

/** Oldest first, no duplicates. */
function merge(current: PendingApproval[], more: PendingApproval[]): PendingApproval[] {
  const byId = new Map(current.map((p) => [p.id, p]));
  for (const p of more) byId.set(p.id, p);
  return [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
