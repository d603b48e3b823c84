// Overview: first, what to do next — a checklist (connect a client, add the
// API key if the API needs one, try a first call), each step ticked when it is
// done. Then where clients connect (the HTTP URL with how to pass the token,
// the stdio command), where API keys live (the OS keychain or, loudly, a
// plaintext file; what to do when the keychain cannot be used), the API,
// engine and egress, what is pending and running, and who is connected.
// The kill switch is not here: it lives in the shell, on every screen.
import type { ReactNode } from 'react';
import type { Status } from '../../../../contract/status.ts';
import type { AuditRecord } from '../../../../contract/audit.ts';
import type { ClientStatusView } from '../../../../contract/clients.ts';
import { useCall, type CallState } from '../../api/hooks.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { SecretStoreFacts } from './SecretStoreFacts.tsx';
import { authWords, credentialWords, httpConnectText } from './overviewText.ts';
import './overview.css';
import { InlineText } from '../../components/InlineText.tsx';

interface StepProps {
  n: number;
  title: string;
  done: boolean;
  children: ReactNode;
}

function Step({ n, title, done, children }: StepProps) {
  const id = `step-${n}`;
  return (
    <li className={`step ${done ? 'done' : 'todo'}`} aria-labelledby={id}>
      <span className="step-mark" aria-hidden="true">
        {done ? '✓' : n}
      </span>
      <div className="step-body">
        <h3 id={id}>
          {title} <span className="step-state">{done ? 'Done' : 'To do'}</span>
        </h3>
        {children}
      </div>
    </li>
  );
}

function firstCallOf(records: AuditRecord[] | undefined) {
  const tools = (records ?? []).filter((r) => r.kind === 'tool' && r.transport !== 'internal');
  return tools[0] as Extract<AuditRecord, { kind: 'tool' }> | undefined;
}

function Checklist({ s, clients, audit }: { s: Status; clients: ClientStatusView[] | undefined; audit: AuditRecord[] | undefined }) {
  const registered = (clients ?? []).filter((c) => c.state === 'registered');
  const live = s.sessions;
  const connected = live.length > 0 || registered.length > 0;
  const sendsKey = s.api.auth !== 'none';
  const hasKey = s.credential.source !== 'none';
  const storeDown = !s.secretStore.available;
  const first = firstCallOf(audit);
  const done = [connected, !sendsKey || hasKey, first !== undefined];
  const all = done.every(Boolean);
  return (
    <section className="checklist" aria-labelledby="start-title">
      <h2 id="start-title">{all ? 'All set' : 'Get started'}</h2>
      <p className="hint">{all ? 'Airlock is connected, has what it needs, and has served a call.' : `${done.filter(Boolean).length} of 3 done.`}</p>
      <ol>
        <Step n={1} title="Connect a client" done={connected}>
          {live.length > 0 ? (
            <p>
              {[...new Set(live.map((c) => `${c.clientName ?? 'An unnamed client'} (${c.transport === 'http' ? 'HTTP' : 'stdio'})`))].join(', ')}{' '}
              {live.length === 1 ? 'is' : 'are'} connected.
            </p>
          ) : registered.length > 0 ? (
            <p>
              Registered in {registered.map((c) => c.label).join(', ')}. {registered.length === 1 ? 'It connects' : 'They connect'} when started (restart{' '}
              {registered.length === 1 ? 'it' : 'them'} if {registered.length === 1 ? 'it was' : 'they were'} open).
            </p>
          ) : (
            <p>Register Airlock in Claude, Cursor, VS Code or another MCP client: one click, with a preview of the change to its config.</p>
          )}
          <a href="#/clients">{connected ? 'Manage clients' : 'Go to Clients'}</a>
        </Step>
        <Step n={2} title="Add the API key" done={!sendsKey || hasKey}>
          {!sendsKey ? (
            <p>Not needed: this API sends no key.</p>
          ) : hasKey ? (
            <p>{credentialWords(s)} is used for every call.</p>
          ) : storeDown ? (
            <p>
              {s.api.title} needs a key ({authWords(s.api.auth)}), and keys cannot be stored here yet. {s.secretStore.problem} The APIs screen says what to do.
            </p>
          ) : (
            <p>
              {s.api.title} needs a key ({authWords(s.api.auth)}). Add it on the APIs screen: it is kept in {s.secretStore.where}, and no client or script ever
              sees it.
            </p>
          )}
          {sendsKey ? <a href="#/apis">{hasKey ? 'Manage keys' : 'Go to APIs'}</a> : null}
        </Step>
        <Step n={3} title="Try a first call" done={first !== undefined}>
          {first ? (
            <p>
              <code>{first.tool}</code> from {first.clientName ?? 'an unnamed client'} at {new Date(first.time).toLocaleTimeString()}.
            </p>
          ) : (
            <p>
              Ask your client for something that uses {s.api.title}, for example “use Airlock to list …”. Calls that change data wait for your approval here.
            </p>
          )}
          <a href="#/activity">{first ? 'See calls in Activity' : 'Watch for it in Activity'}</a>
        </Step>
      </ol>
    </section>
  );
}

export function OverviewScreen({ pending, status }: { pending: number; status: CallState<Status> }) {
  const clients = useCall('clients.list', {});
  // Oldest first: the first call made through this companion.
  const audit = useCall('audit.query', { kind: 'tool', order: 'oldest', limit: 20 }, { refreshOn: ['audit'] });
  const keys = useCall('keys.list', {});
  const s = status.data;
  if (!s)
    return (
      <div className="screen">
        {status.error ? (
          <p role="alert">
            <InlineText text={status.error.message} />
          </p>
        ) : (
          <p role="status">Loading…</p>
        )}
      </div>
    );
  const storedUnused = s.api.auth === 'none' ? keys.data?.find((k) => k.profile === s.profile) : undefined;
  const http = s.endpoints.http;
  return (
    <div className="screen overview">
      <h1>Overview</h1>
      <Checklist s={s} clients={clients.data} audit={audit.data?.records} />
      <dl className="facts">
        <dt>API</dt>
        <dd>
          {s.api.title} {s.api.version} — {s.api.operations} operations at <code>{s.api.baseUrl}</code> (profile {s.profile})
        </dd>
        <dt>API key</dt>
        <dd>
          {s.api.auth === 'none' ? (
            <>
              This API sends no key
              {storedUnused ? ` (a key, ${storedUnused.fingerprint}, is stored for profile ${s.profile} but is not sent)` : ''}.
            </>
          ) : s.credential.source !== 'none' ? (
            <>
              {credentialWords(s)}, sent {authWords(s.api.auth)}
            </>
          ) : !s.secretStore.available ? (
            <span className="warning-text">Not available: keys cannot be read here (see Keys kept in).</span>
          ) : (
            <>
              None yet: calls go out without a key. <a href="#/apis">Add one on APIs</a>
            </>
          )}
        </dd>
        <SecretStoreFacts store={s.secretStore} />
        <dt>Sandbox</dt>
        <dd>
          engine {s.engine}, egress {s.egress}
          {s.banner ? (
            <span className="warning-text">
              {' '}
              — <InlineText text={s.banner} />
            </span>
          ) : null}
        </dd>
        <dt>MCP over HTTP</dt>
        <dd>
          {http ? (
            <>
              <code>{http}</code> <CopyButton text={httpConnectText(http, s.endpoints.tokenFile)} label="Copy the URL and how to pass the token" />
              <p className="hint">
                Clients send the MCP token in the header <code>Authorization: Bearer &lt;token&gt;</code>
                {s.endpoints.tokenFile ? (
                  <>
                    ; the token is in <code>{s.endpoints.tokenFile}</code>
                  </>
                ) : null}
                . The Clients screen writes this into a client's config for you.
              </p>
            </>
          ) : (
            'not served'
          )}
        </dd>
        <dt>MCP over stdio</dt>
        <dd>
          <code>{s.endpoints.stdio}</code> <CopyButton text={s.endpoints.stdio} label="Copy the stdio command" />
        </dd>
        <dt>Pending approvals</dt>
        <dd>{pending === 0 ? 'none' : <a href="#/approvals">{pending} waiting</a>}</dd>
        <dt>Runs</dt>
        <dd>
          {s.runs.active} running, {s.runs.queued} queued (at most {s.runs.maxConcurrent} at once)
          {s.killSwitch ? <span className="warning-text"> — execute is stopped (kill switch)</span> : null}
        </dd>
      </dl>
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">Connected clients</h2>
        {s.sessions.length === 0 ? (
          <p>No MCP client is connected.</p>
        ) : (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col">Transport</th>
                <th scope="col">Session</th>
                <th scope="col">Connected</th>
                <th scope="col">Calls in flight</th>
              </tr>
            </thead>
            <tbody>
              {s.sessions.map((c) => (
                <tr key={c.key}>
                  <td>
                    {c.clientName ?? 'unnamed'} {c.clientVersion ?? ''}
                  </td>
                  <td>{c.transport}</td>
                  <td>
                    <code>{c.sessionId?.slice(0, 8) ?? c.key}</code>
                  </td>
                  <td>{new Date(c.connectedAt).toLocaleTimeString()}</td>
                  <td>{c.inFlight}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
