// What a person needs to decide on one held call, by its kind. An API call:
// why it is held, the operation as the document describes it, the exact
// request (host emphasised, every header, the key only as ••••), for a
// PATCH, PUT or DELETE the evidence (what changes in the resource as it is
// now, or what is deleted). A tool of another MCP server: the server, the
// tool, what it says of itself and the arguments. A server switch: which
// server, on or off. Then who asks, and — folded — the whole script
// (highlighted, wrapped), the run's earlier calls and the rule that matched,
// each under an h3: one level below the prompt's own heading.
import type { PendingApproval, ServerQuestionRequest, ServerSwitchApprovalRequest, ToolCallApprovalRequest } from '../../../../contract/approvals.ts';
import { ScriptView } from '../../components/ScriptView.tsx';
import { EvidenceView, evidenceTerm } from './EvidenceView.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { callLine } from '../../../../contract/calls.ts';

const REASONS = { mutation: 'Mutation', destructive: 'Destructive', 'outside-policy': 'Outside policy', question: 'Question' } as const;

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

type ToolFacts = ToolCallApprovalRequest;

/** What the tool's annotations say of it: a hint from its server, not a promise. */
function toolKind(t: ToolFacts): string {
  if (t.readOnly) return 'says it only reads';
  if (t.destructive === false) return 'says it changes data, without destroying any';
  if (t.destructive) return 'says it may destroy data';
  return 'says nothing of what it does: treated as one that may destroy data';
}

/** A call to another MCP server's tool: the server, the tool, its description (the server's words) and the arguments. */
function ToolFactsList({ tool }: { tool: ToolFacts }) {
  return (
    <>
      <dt>Server</dt>
      <dd>
        <code>{tool.server}</code> (another MCP server, behind Airlock)
      </dd>
      <dt>Tool</dt>
      <dd>
        <code>{tool.tool}</code>, which {toolKind(tool)}
        {tool.description ? (
          <pre className="tool-description" role="region" aria-label="The tool's description, as its server gives it" tabIndex={0}>
            {tool.description}
          </pre>
        ) : null}
      </dd>
      <dt>Arguments</dt>
      <dd>
        <pre className="body" role="region" aria-label="The tool's arguments" tabIndex={0}>
          {tool.arguments || '{}'}
        </pre>
      </dd>
    </>
  );
}

/** A client's request to turn another MCP server on or off. */
function ServerSwitchDetails({ request: r }: { request: ServerSwitchApprovalRequest }) {
  return (
    <div className="request">
      <p className="operation">
        <span className={`reason reason-${r.reason}`}>{REASONS[r.reason]}</span>{' '}
        <code className="route">
          turn {r.server} {r.enabled ? 'on' : 'off'}
        </code>{' '}
        <span className="muted">MCP server switch</span>
      </p>
      <dl className="facts">
        <dt>Server</dt>
        <dd>
          <code>{r.server}</code> (another MCP server, behind Airlock), to be turned {r.enabled ? 'on: its tools reach clients again' : 'off: its tools stop'}
        </dd>
        <dt>Requested by</dt>
        <dd>
          {r.caller.clientName ?? 'an unnamed client'}
          {r.caller.clientVersion ? ` ${r.caller.clientVersion}` : ''} over {r.caller.transport} · tool toggle_mcp_server
        </dd>
      </dl>
      <h3>Rule</h3>
      <p>{r.rule}</p>
    </div>
  );
}

/** Another MCP server asks the person something while its tool runs: the server, the tool, its words, who ran it. */
function ServerQuestionDetails({ approval, request: r }: { approval: PendingApproval; request: ServerQuestionRequest }) {
  return (
    <div className="request">
      <p className="operation">
        <span className={`reason reason-${r.reason}`}>{REASONS[r.reason]}</span> <code className="route">{r.server}</code>{' '}
        <span className="muted">MCP server, asking you{r.tool ? ` while its tool ${r.tool} runs` : ''}</span>
      </p>
      <dl className="facts">
        <dt>It asks</dt>
        <dd>
          <pre className="tool-description" role="region" aria-label="The server's question, in its own words" tabIndex={0}>
            {r.message}
          </pre>
          <p className="scope-hint">These are the server's words, not Airlock's. Your answer goes to this server only; Decline tells it you said no.</p>
        </dd>
        <dt>While</dt>
        <dd>
          {r.caller.clientName ?? 'an unnamed client'}
          {r.caller.clientVersion ? ` ${r.caller.clientVersion}` : ''} over {r.caller.transport} ran <code>{r.call}</code> · call {r.callIndex} of its run
        </dd>
      </dl>
      <RunDetails approval={approval} />
    </div>
  );
}

export function RequestDetails({ approval }: { approval: PendingApproval }) {
  const r = approval.request;
  if (r.kind === 'server-switch') return <ServerSwitchDetails request={r} />;
  if (r.kind === 'server-question') return <ServerQuestionDetails approval={approval} request={r} />;
  if (r.kind === 'tool-call') {
    return (
      <div className="request">
        <p className="operation">
          <span className={`reason reason-${r.reason}`}>{REASONS[r.reason]}</span> <code className="route">{r.call}</code>{' '}
          <span className="muted">tool of MCP server {r.server}</span>
        </p>
        <dl className="facts">
          <ToolFactsList tool={r} />
          <dt>Requested by</dt>
          <dd>
            {r.caller.clientName ?? 'an unnamed client'}
            {r.caller.clientVersion ? ` ${r.caller.clientVersion}` : ''} over {r.caller.transport} ·{' '}
            {r.direct ? `called directly as ${r.direct}` : `tool execute · call ${r.callIndex} of this run`}
          </dd>
        </dl>
        <RunDetails approval={approval} />
      </div>
    );
  }
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
      <RunDetails approval={approval} />
    </div>
  );
}

/** Folded: the rule that held the call, the run's earlier calls and its whole script. */
function RunDetails({ approval }: { approval: PendingApproval }) {
  const r = approval.request;
  return (
    <details>
      <summary>Details: script, earlier calls, rule</summary>
      <h3>Rule</h3>
      <p>{r.rule}</p>
      <h3>Earlier calls of this run</h3>
      {r.earlierCalls.length === 0 ? (
        <p>None: this is the run's first call.</p>
      ) : (
        <ol>
          {r.earlierCalls.map((c, i) => (
            <li key={i}>
              <code>{callLine(c)}</code> → {c.status || '—'} ({c.decision})
            </li>
          ))}
        </ol>
      )}
      <h3>Script (sha256 {r.scriptSha256.slice(0, 12)}…)</h3>
      <ScriptView code={r.script} label="The run's script" />
    </details>
  );
}
