// The approval queue — the heart of the product. The oldest held call is
// shown as an alertdialog ("Action required · N held") with its countdown
// ("No answer = deny in 1:45"), the full request and the decision buttons:
// Deny (first) and Allow once, then the wider scopes (never "always" for a
// destructive call), and Deny all. Esc denies the head item, Ctrl/⌘+Enter
// allows it once, Enter in the reason box denies with that reason, a bare
// Enter never approves. The prompt never takes the focus from a text field;
// otherwise focus moves in on Deny, and goes back where it was once the call
// is answered. Its buttons ignore input for GUARD_MS after they appear, and
// a key already down when it appeared never answers it. An item leaves only
// when the core confirms the decision. The same prompt floats over every
// other screen (App.tsx). Below: what was answered lately and the grants.
import { useEffect, useRef, useState } from 'react';
import type { ApproveScope, PendingApproval } from '../../../../contract/approvals.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import type { Settled } from '../../api/useApprovals.ts';
import { RequestDetails } from './RequestDetails.tsx';
import { useCountdown, formatSeconds } from './useCountdown.ts';
import { GrantsList } from './GrantsList.tsx';
import { GUARD_MS, isTextField, keysDownNow, trackKeys } from './promptGuard.ts';
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

trackKeys();

const KEYS_HINT =
  typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? 'Esc denies · ⌘+Enter allows once' : 'Esc denies · Ctrl+Enter allows once';

export function HeadItem({ head, count, onError }: { head: PendingApproval; count: number; onError(message: string): void }) {
  const { api } = useControl();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [armed, setArmed] = useState(false);
  const denyRef = useRef<HTMLButtonElement>(null);
  /** Keys already down when this item appeared: they never answer it. */
  const stale = useRef<Set<string>>(new Set());
  /** Where the focus was before the prompt took it, to go back to after the answer. */
  const returnTo = useRef<HTMLElement | null>(null);
  const left = useCountdown(head.secondsLeft, arrivedAt(head.id));
  const destructive = head.request.reason === 'destructive';

  useEffect(() => {
    stale.current = keysDownNow();
    setArmed(false);
    const timer = setTimeout(() => setArmed(true), GUARD_MS);
    const active = document.activeElement as HTMLElement | null;
    returnTo.current = active && active !== document.body ? active : null;
    // Never from a text field: typing goes on where it was. Otherwise focus moves in on Deny.
    if (!isTextField(active)) denyRef.current?.focus();
    // Forgotten only after the key's own default action (a space's click on a focused button) has run.
    const released = (e: KeyboardEvent) => void setTimeout(() => stale.current.delete(e.key), 0);
    document.addEventListener('keyup', released, true);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('keyup', released, true);
    };
  }, [head.id]);

  // The answer given, the person is where they were (if that place is still there).
  useEffect(
    () => () => {
      const back = returnTo.current;
      if (back?.isConnected && !back.closest('[role="alertdialog"]')) back.focus();
    },
    [head.id],
  );

  /** Input that may answer: after the guard time, and not from a key that was down when the prompt appeared. */
  const accepts = (e: { detail?: number; key?: string; repeat?: boolean }) =>
    armed && !e.repeat && !(e.key !== undefined && stale.current.has(e.key)) && !(e.detail === 0 && stale.current.size > 0);

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
    if (busy || !accepts(e)) return;
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
      data-armed={armed ? 'true' : 'false'}
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
        Reason for denying (sent to the script; Enter denies with it)
        <input
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey && !busy && accepts(e)) {
              e.preventDefault();
              void decide('deny');
            }
          }}
          maxLength={500}
          placeholder="optional"
        />
      </label>
      <p className="keys" aria-hidden="true">
        {KEYS_HINT}
      </p>
      <div className="decisions">
        <button ref={denyRef} type="button" disabled={busy} aria-disabled={!armed} onClick={(e) => accepts(e) && void decide('deny')}>
          Deny
        </button>
        <button type="button" className="primary" disabled={busy} aria-disabled={!armed} onClick={(e) => accepts(e) && void decide('approve', 'once')}>
          Allow once
        </button>
      </div>
      <div className="decisions secondary">
        <button type="button" disabled={busy} aria-disabled={!armed} onClick={(e) => accepts(e) && void decide('approve', 'session')}>
          Allow for this session
        </button>
        {destructive ? null : (
          <button type="button" disabled={busy} aria-disabled={!armed} onClick={(e) => accepts(e) && void decide('approve', 'always')}>
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
  // A denial without a reason carries "denied by <who>" as its reason: said once, not twice.
  return d.reason && d.reason !== `denied by ${d.by}` ? `denied by ${d.by}: ${d.reason}` : `denied by ${d.by}`;
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
