// The approval queue as the UI shows it: loaded once, then kept by events.
// An item leaves when the core confirms its decision (never optimistically);
// answered items stay briefly visible with what happened (decided here,
// elsewhere, timed out, withdrawn by the client). When the companion comes
// back after being unreachable, the queue is listed again and replaces what
// was shown: requests that died with the old companion do not linger.
import { useEffect, useRef, useState } from 'react';
import type { ApprovalDecision, PendingApproval } from '../../../contract/approvals.ts';
import { useConnection, useControl } from './ControlProvider.tsx';
import { useControlEvents } from './hooks.ts';

export interface Settled {
  approval: PendingApproval;
  decision: ApprovalDecision;
}

export function useApprovals(): { pending: PendingApproval[]; settled: Settled[]; loaded: boolean } {
  const { api } = useControl();
  const { epoch } = useConnection();
  const [pending, setPending] = useState<PendingApproval[]>([]);
  const [settled, setSettled] = useState<Settled[]>([]);
  const [loaded, setLoaded] = useState(false);
  // The queue as last rendered, so a decision can be moved to `settled` without side effects inside a state updater.
  const current = useRef<PendingApproval[]>([]);
  current.current = pending;
  useEffect(() => {
    let live = true;
    api.call('approvals.list', {}).then(
      (list) => {
        if (!live) return;
        // First load: events may already have arrived, so merge; after a reconnect the list is the truth.
        setPending((current) => (epoch === 0 ? merge(current, list) : merge([], list)));
        setLoaded(true);
      },
      () => live && setLoaded(true),
    );
    return () => {
      live = false;
    };
  }, [api, epoch]);
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
  return { pending, settled, loaded };
}

/** Oldest first, no duplicates. */
function merge(current: PendingApproval[], more: PendingApproval[]): PendingApproval[] {
  const byId = new Map(current.map((p) => [p.id, p]));
  for (const p of more) byId.set(p.id, p);
  return [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
