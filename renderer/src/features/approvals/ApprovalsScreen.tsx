// The approval queue — the heart of the product. The oldest held call is
// shown as an alertdialog ("Action required · N held") with its countdown
// ("No answer = deny in 1:45"), the full request, what an "Allow" covers
// (this call only by default; the rest of the run; this client or every
// client × this session or until revoked — never "until revoked" for a
// deletion), then Deny (first) and the allow button named for the choice
// ("Allow once", "Allow for this client, this session"…); "every client,
// until revoked" asks once more inside the prompt. Esc denies the head item
// (or takes back that confirmation), Ctrl/⌘+Enter allows it once, Enter in
// the reason box denies with that reason, a bare Enter never approves. When
// the client stopped waiting, the prompt says so: the person can still
// decide, and the result waits for the client to resume the run. The
// prompt never takes the focus from a text field; otherwise focus moves in
// on Deny, and goes back where it was once the call is answered. A call
// already held when the person opens this screen is there to be read: the
// focus goes to its heading, the page at the top of the request, not to a
// decision. Its
// buttons ignore input for GUARD_MS after they appear, and a key already
// down when it appeared never answers it. An item leaves only when the core
// confirms the decision. The same prompt floats over every other screen
// (App.tsx). Below: what was answered (from the audit) and the grants.
import { ErrorAlert } from '../../components/Message.tsx';
import { useEffect, useRef, useState } from 'react';
import { answerProblem, requestLine, requestTarget, type ApproveScope, type PendingApproval } from '../../../../contract/approvals.ts';
import { QuestionForm, answerOf, initialDraft, type QuestionDraft } from './QuestionForm.tsx';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import type { Approvals } from '../../api/useApprovals.ts';
import { RequestDetails } from './RequestDetails.tsx';
import { useCountdown, formatSeconds } from './useCountdown.ts';
import { GrantsList } from './GrantsList.tsx';
import { ScopeChooser, SCOPE_TEXT } from './ScopeChooser.tsx';
import { AnsweredList } from './AnsweredList.tsx';
import { GUARD_MS, isTextField, keysDownNow, trackKeys } from './promptGuard.ts';
import { useStatus } from '../../api/StatusProvider.tsx';
import { OrganisationNote } from '../../components/OrganisationNote.tsx';

/** In the desktop app: say so when the OS will not show Airlock's notifications, so nobody waits for one. */
function NotificationsNotice() {
  const status = useStatus();
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
  approvals: Approvals;
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

/** Where the focus goes when the item appears: Deny (a call that arrives), or its heading (a call the person came to read). */
export type Landing = 'decision' | 'heading';

export function HeadItem({
  head,
  count,
  onError,
  onGone,
  landing = 'decision',
}: {
  head: PendingApproval;
  count: number;
  onError(message: string): void;
  /** The companion no longer holds this call (it restarted, or the call was answered or ended elsewhere): list the queue again. */
  onGone(): void;
  landing?: Landing;
}) {
  const { api } = useControl();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [armed, setArmed] = useState(false);
  const [scope, setScope] = useState<ApproveScope>('once');
  /** "Every client, until revoked" asks once more, inside the prompt. */
  const [confirming, setConfirming] = useState(false);
  const [confirmArmed, setConfirmArmed] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const denyRef = useRef<HTMLButtonElement>(null);
  const allowRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  /** Keys already down when this item appeared: they never answer it. */
  const stale = useRef<Set<string>>(new Set());
  /** Where the focus was before the prompt took it, to go back to after the answer. */
  const returnTo = useRef<HTMLElement | null>(null);
  const left = useCountdown(head.secondsLeft, arrivedAt(head.id));
  const r = head.request;
  const client = r.caller.clientName ?? 'A client';
  // Another MCP server's question: answered with its fields, or declined; nothing is granted.
  const question = r.kind === 'server-question' ? r : undefined;
  const [draft, setDraft] = useState<QuestionDraft>(() => (question ? initialDraft(question.fields) : {}));
  const [problem, setProblem] = useState<string | undefined>();
  const stoppedAt = head.clientStoppedWaitingAt;
  const ids = `approval-${head.id}`;

  useEffect(() => {
    stale.current = keysDownNow();
    setArmed(false);
    let timer = setTimeout(() => setArmed(true), GUARD_MS);
    // A page that was hidden (the desktop app's prompt window, a background tab) starts the guard again when it is shown.
    const shown = () => {
      if (document.visibilityState !== 'visible') return;
      clearTimeout(timer);
      stale.current = keysDownNow();
      setArmed(false);
      timer = setTimeout(() => setArmed(true), GUARD_MS);
    };
    document.addEventListener('visibilitychange', shown);
    const active = document.activeElement as HTMLElement | null;
    returnTo.current = active && active !== document.body ? active : null;
    // Never from a text field: typing goes on where it was. Otherwise focus moves in on Deny, or to the heading of a
    // call the person came to read (the page stays where it opened: at the top, the request in view).
    if (!isTextField(active)) {
      if (landing === 'heading') headingRef.current?.focus({ preventScroll: true });
      else denyRef.current?.focus();
    }
    // Forgotten only after the key's own default action (a space's click on a focused button) has run.
    const released = (e: KeyboardEvent) => void setTimeout(() => stale.current.delete(e.key), 0);
    document.addEventListener('keyup', released, true);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('keyup', released, true);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [head.id, landing]);

  // The answer given, the person is where they were (if that place is still there).
  useEffect(
    () => () => {
      const back = returnTo.current;
      if (back?.isConnected && !back.closest('[role="alertdialog"]')) back.focus();
    },
    [head.id],
  );

  // The confirmation's own guard: a double click on "Allow for every client, until revoked…" never confirms it.
  useEffect(() => {
    if (!confirming) return;
    setConfirmArmed(false);
    cancelRef.current?.focus();
    const timer = setTimeout(() => setConfirmArmed(true), GUARD_MS);
    return () => clearTimeout(timer);
  }, [confirming]);

  /** Input that may answer: after the guard time, and not from a key that was down when the prompt appeared. */
  const accepts = (e: { detail?: number; key?: string; repeat?: boolean }) =>
    armed && !e.repeat && !(e.key !== undefined && stale.current.has(e.key)) && !(e.detail === 0 && stale.current.size > 0);

  const decide = async (decision: 'approve' | 'deny', chosen?: ApproveScope) => {
    const answer = question && decision === 'approve' ? answerOf(question.fields, draft) : undefined;
    // An answer that does not fit is named before anything is sent (the core checks it again).
    const unfit = question && answer ? answerProblem(question.fields, answer) : undefined;
    setProblem(unfit);
    if (unfit) return;
    setBusy(true);
    try {
      await api.call('approvals.decide', {
        id: head.id,
        decision,
        ...(chosen ? { scope: chosen } : {}),
        ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}),
        ...(answer ? { answer } : {}),
      });
    } catch (error) {
      setBusy(false);
      if (error instanceof ControlError && (error.code === 'not_found' || error.code === 'conflict')) {
        // Said in words, never taken for the answer: the call this prompt showed is not held any more.
        onError(
          error.code === 'not_found'
            ? `${requestTarget(r)} is no longer held (the companion restarted, or the call ended): your answer was not needed, and nothing was sent because of it.`
            : error.message,
        );
        onGone();
        return;
      }
      onError(error instanceof ControlError ? error.message : String(error));
    }
  };

  const cancelConfirm = () => {
    setConfirming(false);
    allowRef.current?.focus();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (busy || !accepts(e)) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      // Esc inside the confirmation takes back the wide scope; it does not deny the call.
      if (confirming) cancelConfirm();
      else void decide('deny');
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void decide('approve', 'once');
    }
  };

  const allow = (e: React.MouseEvent) => {
    if (!accepts(e)) return;
    if (scope === 'always') setConfirming(true);
    else void decide('approve', scope);
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
      <h2 id="approval-title" ref={headingRef} tabIndex={-1}>
        Action required · {count} held
      </h2>
      <p id="approval-what" className="visually-hidden">
        {question
          ? `MCP server ${question.server} asks you a question while ${client} runs its tool ${question.tool ?? ''}. Escape declines, Control+Enter sends the answer.`
          : `${client} wants to run ${requestTarget(r)}.${stoppedAt ? ` ${client} stopped waiting; you can still decide.` : ''} Escape denies, Control+Enter allows once.`}
      </p>
      {stoppedAt ? (
        <p className="stopped-waiting" role="note">
          {client} stopped waiting at {new Date(stoppedAt).toLocaleTimeString()}. You can still decide:{' '}
          {head.clientCanResume
            ? 'the result waits for the client to resume the run (execute {resume}).'
            : 'if you allow it, the call is sent, but the client will not get the result (it cancelled before it was given the run to resume).'}
        </p>
      ) : null}
      <div className="countdown" aria-hidden="true">
        <span className={urgent ? 'urgent' : undefined}>
          No answer = {question ? 'decline' : 'deny'} in {formatSeconds(left)}
        </span>
        <div className="bar">
          <div className={`fill${urgent ? ' urgent' : ''}`} style={{ width: `${Math.min(100, (left / Math.max(1, head.secondsLeft)) * 100)}%` }} />
        </div>
      </div>
      <RequestDetails approval={head} />
      {question ? (
        <QuestionForm
          fields={question.fields}
          draft={draft}
          onChange={(next) => {
            setDraft(next);
            setProblem(undefined);
          }}
          idPrefix={ids}
          problem={problem}
        />
      ) : (
        <>
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
          <ScopeChooser
            request={r}
            value={scope}
            idPrefix={ids}
            {...(head.scopesRefused ? { refused: head.scopesRefused } : {})}
            onChange={(s) => {
              setScope(s);
              setConfirming(false);
            }}
          />
        </>
      )}
      <p className="keys" aria-hidden="true">
        {question ? KEYS_HINT.replace('denies', 'declines').replace('allows once', 'sends the answer') : KEYS_HINT}
      </p>
      {stoppedAt ? (
        <p id={`${ids}-deny-note`} className="visually-hidden">
          Dismisses the request: {client} is told it was denied if it resumes the run.
        </p>
      ) : null}
      <div className="decisions">
        <button
          ref={denyRef}
          type="button"
          disabled={busy}
          aria-disabled={!armed}
          aria-describedby={stoppedAt ? `${ids}-deny-note` : undefined}
          onClick={(e) => accepts(e) && void decide('deny')}
        >
          {question ? 'Decline' : 'Deny'}
        </button>
        <button
          ref={allowRef}
          type="button"
          className="primary"
          disabled={busy}
          aria-disabled={!armed}
          aria-expanded={scope === 'always' ? confirming : undefined}
          onClick={allow}
        >
          {question ? 'Send answer' : SCOPE_TEXT[scope].button}
        </button>
      </div>
      {confirming ? (
        <div className="confirm-scope" role="group" aria-labelledby={`${ids}-confirm-text`}>
          <p id={`${ids}-confirm-text`}>
            Every client will run <code>{requestTarget(r)}</code> ({r.operationId}) without asking, after a restart too, until you revoke it on the Rules
            screen.
          </p>
          <div className="decisions">
            <button ref={cancelRef} type="button" onClick={cancelConfirm}>
              Cancel
            </button>
            <button
              type="button"
              className="primary"
              disabled={busy}
              aria-disabled={!confirmArmed}
              onClick={(e) => confirmArmed && accepts(e) && void decide('approve', 'always')}
            >
              Yes, allow every client until revoked
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

export function ApprovalsScreen({ approvals }: Props) {
  const { api } = useControl();
  const [error, setError] = useState<string | undefined>();
  const { pending, settled, loaded, resync } = approvals;
  const head = pending[0];
  // The call held when this screen was opened (null: none), known once the queue is.
  const [openedWith, setOpenedWith] = useState<string | null | undefined>(() => (loaded ? (head?.id ?? null) : undefined));
  if (openedWith === undefined && loaded) setOpenedWith(head?.id ?? null);
  return (
    <div className="screen">
      <h1>Approvals</h1>
      <NotificationsNotice />
      <OrganisationNote area="approvals" />
      <p role="status" className="count">
        {pending.length === 0 ? 'Nothing is waiting for you.' : `${pending.length} ${pending.length === 1 ? 'call waits' : 'calls wait'} for your answer.`}
      </p>
      <ErrorAlert error={error} />
      {head ? (
        <HeadItem
          key={head.id}
          head={head}
          count={pending.length}
          onError={setError}
          onGone={resync}
          landing={head.id === openedWith ? 'heading' : 'decision'}
        />
      ) : null}
      {pending.length > 1 ? (
        <section aria-labelledby="queue-title">
          <h2 id="queue-title">Also waiting (oldest first)</h2>
          <ol className="queue">
            {pending.slice(1).map((p) => (
              <li key={p.id}>
                <code>{requestLine(p.request, 'url')}</code> <span className="muted">from {p.request.caller.clientName ?? p.request.caller.key}</span>
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
      <AnsweredList settled={settled} />
      <GrantsList />
    </div>
  );
}
