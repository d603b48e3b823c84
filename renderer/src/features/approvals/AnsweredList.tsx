// Held calls that were answered — by a person here or elsewhere, by the
// timeout, or by the client going away — newest first, read from the audit
// (so the list survives a reload), each with its time, operation, client,
// the answer and a link to its Activity record. An answer given in this tab
// shows at once, before its audit record is written (the call may still be
// on its way to the API).
import { useEffect, useState } from 'react';
import type { Answered } from '../../../../contract/rules.ts';
import { isGrantScope, GRANT_SCOPE_INFO } from '../../../../contract/approvals.ts';
import { callLine } from '../../../../contract/calls.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';
import type { Settled } from '../../api/useApprovals.ts';
import './approvalPrompt.css';
import { InlineText } from '../../components/InlineText.tsx';

const SHOWN = 30;

function scopeWords(scope: string | undefined): string {
  if (!scope) return '';
  if (isGrantScope(scope)) return GRANT_SCOPE_INFO[scope].label;
  return scope === 'run' ? 'rest of the run' : scope;
}

/** The answer in words; a denial without a reason says who denied it once ("denied by root via web UI"). */
export function outcomeOf(a: Pick<Answered, 'approved' | 'by' | 'scope' | 'reason' | 'code'>): string {
  if (a.approved) return `allowed (${scopeWords(a.scope)}) by ${a.by}`;
  if (a.code === 'timeout') return 'timed out: no one answered (denied)';
  if (a.code === 'withdrawn') return 'withdrawn by the client';
  if (!a.code) return `allowed by ${a.by}, but the request changed before it left: nothing was sent`;
  return a.reason && a.reason !== `denied by ${a.by}` ? `denied by ${a.by}: ${a.reason}` : `denied by ${a.by}`;
}

function fromSettled(s: Settled): Answered | undefined {
  const r = s.approval.request;
  // A server's question is no call: the audit keeps no record of it to show here (the log says how it was answered).
  if (r.kind === 'server-question') return undefined;
  const d = s.decision;
  return {
    seq: 0,
    runId: r.runId,
    at: d.at,
    operationId: r.operationId,
    callKind: r.kind,
    ...(r.kind === 'api-call' ? { method: r.method, url: r.url } : { url: r.kind === 'tool-call' ? r.address : `airlock://servers/${r.server}` }),
    client: r.caller.clientName ?? r.caller.key,
    approved: d.approved,
    by: d.by,
    ...(d.approved ? { scope: d.scope } : { reason: d.reason, code: d.code }),
  };
}

export function AnsweredList({ settled }: { settled: Settled[] }) {
  const { api } = useControl();
  const [answered, setAnswered] = useState<Answered[]>();
  const [error, setError] = useState<string>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    api.call('approvals.answered', { limit: SHOWN }).then(
      (list) => {
        if (!live) return;
        setAnswered(list);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [api, generation]);
  // Re-read when an answered call reaches the audit (not on every read a script makes).
  useControlEvents((events) => {
    if (events.some((e) => (e.type === 'audit' && e.record.kind === 'api' && e.record.approval) || e.type === 'dropped')) setGeneration((g) => g + 1);
  });
  const recorded = answered ?? [];
  // Answers given here whose audit record is not written yet.
  const early = settled.map(fromSettled).filter((s): s is Answered => s !== undefined && !recorded.some((a) => a.runId === s.runId && a.at === s.at));
  const items = [...early, ...recorded].slice(0, SHOWN);
  return (
    <section aria-labelledby="answered-title" aria-busy={answered === undefined} data-loaded={answered !== undefined}>
      <h2 id="answered-title">Answered</h2>
      {error ? (
        <p role="alert">
          <InlineText text={error} />
        </p>
      ) : null}
      {answered && items.length === 0 ? <p>No held call was answered yet.</p> : null}
      {items.length > 0 ? (
        <ul className="answered">
          {items.map((a) => (
            <li key={a.seq ? `s${a.seq}` : `e${a.runId}${a.at}`} className={a.approved ? 'allowed' : 'denied'}>
              <time dateTime={a.at}>{new Date(a.at).toLocaleString()}</time> · <code>{callLine(a)}</code> <span className="muted">({a.operationId})</span> from{' '}
              {a.client} — <span className={a.approved ? 'verdict-allowed' : 'verdict-denied'}>{outcomeOf(a)}</span>
              {a.seq ? (
                <>
                  {' '}
                  · <a href={`#/activity?run=${encodeURIComponent(a.runId)}&seq=${a.seq}`}>Activity record #{a.seq}</a>
                </>
              ) : (
                <span className="muted"> · being recorded…</span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
