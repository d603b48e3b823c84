// The approval queue — the heart of the product. The oldest held call is
// shown as an alertdialog ("Action required · N held") with its countdown
// ("No answer = deny in 1:45"), the full request and the decision buttons:
// Deny (focused first) and Allow once, then the wider scopes (never
// "always" for a destructive call), and Deny all. Esc denies the head item,
// Ctrl/⌘+Enter allows it once, a bare Enter never approves. An item leaves
// only when the core confirms the decision. Below: what was answered lately
// (by you, elsewhere, timed out, withdrawn) and the saved grants.
import { useEffect, useRef, useState } from 'react';
import type { ApproveScope, PendingApproval } from '../../../../contract/approvals.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import type { Settled } from '../../api/useApprovals.ts';
import { RequestDetails } from './RequestDetails.tsx';
import { useCountdown, formatSeconds } from './useCountdown.ts';
import { GrantsList } from './GrantsList.tsx';
import { useCall } from '../../api/hooks.ts';

/** In the desktop app: say so when the OS will not show Airlock's notifications, so nobody waits for one. */
function NotificationsNotice() {
  const status = useCall('status', {}, { refreshOn: ['approval-requested'] });
  const desktop = status.data?.desktop;
  if (!desktop || desktop.notifications === 'enabled') return null;
  return (
    <p className="warning" role="note">
      Desktop notifications are off{desktop.detail ? `: ${desktop.detail}` : ''}. Requests waiting for you show here, in the tray count and as a taskbar flash
      only.
    </p>
  );
}

interface Props {
  approvals: { pending: PendingApproval[]; settled: Settled[]; loaded: boolean };
}

const arrivals = new Map<string, number>();
function arrivedAt(id: string): number {
  let t = arrivals.get(id);
  if (t === undefined) arrivals.set(id, (t = performance.now()));
  return t;
}

function HeadItem({ head, count, onError }: { head: PendingApproval; count: number; onError(message: string): void }) {
  const { api } = useControl();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const denyRef = useRef<HTMLButtonElement>(null);
  const left = useCountdown(head.secondsLeft, arrivedAt(head.id));
  const destructive = head.request.reason === 'destructive';

  // Focus moves in on the Deny button whenever a new item becomes the head.
  useEffect(() => denyRef.current?.focus(), [head.id]);

  const decide = async (decision: 'approve' | 'deny', scope?: ApproveScope) => {
    setBusy(true);
    try {
      await api.call('approvals.decide', {
        id: head.id,
        decision,
        ...(scope ? { scope } : {}),
        ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}),
      });
    } catch (error) {
      onError(error instanceof ControlError ? error.message : String(error));
      setBusy(false);
    }
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (busy) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      void decide('deny');
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void decide('approve', 'once');
    }
  };

  const urgent = left <= 20;
  return (
    <section
      role="alertdialog"
      aria-labelledby="approval-title"
      aria-describedby="approval-what"
      className="approval"
      data-approval-id={head.id}
      onKeyDown={onKeyDown}
    >
      <h2 id="approval-title">Action required · {count} held</h2>
      <p id="approval-what" className="visually-hidden">
        {head.request.caller.clientName ?? 'A client'} wants to run {head.request.method} {head.request.pathTemplate}. Escape denies, Control+Enter allows once.
      </p>
      <div className="countdown" aria-hidden="true">
        <span className={urgent ? 'urgent' : undefined}>No answer = deny in {formatSeconds(left)}</span>
        <div className="bar">
          <div className={`fill${urgent ? ' urgent' : ''}`} style={{ width: `${Math.min(100, (left / Math.max(1, head.secondsLeft)) * 100)}%` }} />
        </div>
      </div>
      <RequestDetails approval={head} />
      <label className="reason-field">
        Reason for denying (sent to the script)
        <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} placeholder="optional" />
      </label>
      <div className="decisions">
        <button ref={denyRef} type="button" disabled={busy} onClick={() => void decide('deny')}>
          Deny
        </button>
        <button type="button" className="primary" disabled={busy} onClick={() => void decide('approve', 'once')}>
          Allow once
        </button>
      </div>
      <div className="decisions secondary">
        <button type="button" disabled={busy} onClick={() => void decide('approve', 'session')}>
          Allow for this session
        </button>
        {destructive ? null : (
          <button type="button" disabled={busy} onClick={() => void decide('approve', 'always')}>
            Always allow this operation
          </button>
        )}
      </div>
    </section>
  );
}

const OUTCOME = (s: Settled): string => {
  const d = s.decision;
  if (d.approved) return `allowed (${d.scope}) by ${d.by}`;
  if (d.code === 'timeout') return 'timed out: no one answered (denied)';
  if (d.code === 'withdrawn') return 'withdrawn by the client';
  return `denied by ${d.by}: ${d.reason}`;
};

export function ApprovalsScreen({ approvals }: Props) {
  const { api } = useControl();
  const [error, setError] = useState<string | undefined>();
  const { pending, settled } = approvals;
  const head = pending[0];
  return (
    <div className="screen">
      <h1>Approvals</h1>
      <NotificationsNotice />
      <p role="status" className="count">
        {pending.length === 0 ? 'Nothing is waiting for you.' : `${pending.length} ${pending.length === 1 ? 'call waits' : 'calls wait'} for your answer.`}
      </p>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {head ? <HeadItem key={head.id} head={head} count={pending.length} onError={setError} /> : null}
      {pending.length > 1 ? (
        <section aria-labelledby="queue-title">
          <h2 id="queue-title">Also waiting (oldest first)</h2>
          <ol className="queue">
            {pending.slice(1).map((p) => (
              <li key={p.id}>
                <code>
                  {p.request.method} {p.request.url}
                </code>{' '}
                <span className="muted">from {p.request.caller.clientName ?? p.request.caller.key}</span>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      {pending.length > 0 ? (
        <button type="button" className="danger" onClick={() => void api.call('approvals.denyAll', {}).catch((e: Error) => setError(e.message))}>
          Deny all ({pending.length})
        </button>
      ) : null}
      {settled.length > 0 ? (
        <section aria-labelledby="settled-title">
          <h2 id="settled-title">Answered</h2>
          <ul className="settled">
            {settled.map((s) => (
              <li key={s.approval.id} className={s.decision.approved ? 'allowed' : 'denied'}>
                <code>
                  {s.approval.request.method} {s.approval.request.url}
                </code>{' '}
                — {OUTCOME(s)}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <GrantsList />
    </div>
  );
}
