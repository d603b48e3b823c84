// What a person needs to decide on one held API call: why it is held, the
// operation as the document describes it, the exact request (host
// emphasised, every header, the key only as ••••), for a PATCH, PUT or
// DELETE the evidence (what changes in the resource as it is now, or what is
// deleted), who asks, and — folded — the whole script (highlighted,
// wrapped), the run's earlier calls and the rule that matched.
import type { PendingApproval } from '../../../../contract/approvals.ts';
import { ScriptView } from '../../components/ScriptView.tsx';
import { EvidenceView, evidenceTerm } from './EvidenceView.tsx';
import { InlineText } from '../../components/InlineText.tsx';

const REASONS = { mutation: 'Mutation', destructive: 'Destructive', 'outside-policy': 'Outside policy' } as const;

function UrlWithHost({ url }: { url: string }) {
  try {
    const u = new URL(url);
    return (
      <code className="url">
        {u.protocol}//<strong>{u.host}</strong>
        {u.pathname}
        {u.search}
      </code>
    );
  } catch {
    return <code className="url">{url}</code>;
  }
}

export function RequestDetails({ approval }: { approval: PendingApproval }) {
  const r = approval.request;
  const query = Object.entries(r.query);
  return (
    <div className="request">
      <p className="operation">
        <span className={`reason reason-${r.reason}`}>{REASONS[r.reason]}</span>{' '}
        <code className="route">
          {r.method} {r.pathTemplate}
        </code>{' '}
        <span className="muted">
          {r.operationId} · profile {r.profile}
        </span>
      </p>
      {r.summary ? (
        <p className="summary">
          <InlineText text={r.summary} />
        </p>
      ) : null}
      <dl className="facts">
        <dt>Request</dt>
        <dd>
          <code>{r.method}</code> <UrlWithHost url={r.url} />
          {r.override ? (
            <p className="warning">
              Sent as {r.override.from}, overridden to {r.method} by {r.override.via}
            </p>
          ) : null}
        </dd>
        {query.length > 0 ? (
          <>
            <dt>Query</dt>
            <dd>
              <pre>{query.map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n')}</pre>
            </dd>
          </>
        ) : null}
        {r.evidence ? (
          <>
            <dt>{evidenceTerm(r.evidence)}</dt>
            <dd>
              <EvidenceView evidence={r.evidence} />
            </dd>
          </>
        ) : null}
        <dt>Headers</dt>
        <dd>
          <table className="headers">
            <tbody>
              {r.headers.map((h) => (
                <tr key={h.name}>
                  <th scope="row">{h.name}</th>
                  <td className={h.credential ? 'credential' : undefined}>{h.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </dd>
        {r.bodyPreview ? (
          <>
            <dt>Body</dt>
            <dd>
              <pre className="body" role="region" aria-label="Request body" tabIndex={0}>
                {r.bodyPreview}
              </pre>
            </dd>
          </>
        ) : null}
        <dt>Requested by</dt>
        <dd>
          {r.caller.clientName ?? 'an unnamed client'}
          {r.caller.clientVersion ? ` ${r.caller.clientVersion}` : ''} over {r.caller.transport}
          {r.caller.sessionId ? `, session ${r.caller.sessionId.slice(0, 8)}` : ''} · tool execute · call {r.callIndex} of this run
        </dd>
      </dl>
      <details>
        <summary>Details: script, earlier calls, rule</summary>
        <h4>Rule</h4>
        <p>{r.rule}</p>
        <h4>Earlier calls of this run</h4>
        {r.earlierCalls.length === 0 ? (
          <p>None: this is the run's first call.</p>
        ) : (
          <ol>
            {r.earlierCalls.map((c, i) => (
              <li key={i}>
                <code>
                  {c.method} {c.url}
                </code>{' '}
                → {c.status || '—'} ({c.decision})
              </li>
            ))}
          </ol>
        )}
        <h4>Script (sha256 {r.scriptSha256.slice(0, 12)}…)</h4>
        <ScriptView code={r.script} label="The run's script" />
      </details>
    </div>
  );
}
