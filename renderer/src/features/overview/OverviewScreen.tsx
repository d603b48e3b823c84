// Overview: where clients connect (HTTP URL, stdio command), who is
// connected, the API profile, engine and egress in one line, what is pending
// and running, and the kill switch with its state obvious at a glance.
import { useState } from 'react';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';

export function OverviewScreen({ pending }: { pending: number }) {
  const { api } = useControl();
  const status = useCall('status', {}, { intervalMs: 2000, refreshOn: ['approval-requested', 'approval-decided'] });
  const [error, setError] = useState<string>();
  const s = status.data;
  if (!s) return <div className="screen">{status.error ? <p role="alert">{status.error.message}</p> : <p role="status">Loading…</p>}</div>;
  const setKill = async (on: boolean) => {
    try {
      const r = await api.call('settings.update', { values: { killSwitch: on } });
      if (r.restartRequired.length > 0) setError(`Not applied: ${r.restartRequired.join('; ')}`);
      status.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div className="screen">
      <h1>Overview</h1>
      <section className={`kill ${s.killSwitch ? 'on' : 'off'}`} aria-labelledby="kill-title">
        <h2 id="kill-title">Kill switch: {s.killSwitch ? 'ON — execute is refused' : 'off — execute runs'}</h2>
        <p>{s.killSwitch ? 'Running executes were stopped and new ones are refused; search_docs keeps serving.' : 'Turn it on to stop every run at once.'}</p>
        <button type="button" className={s.killSwitch ? 'primary' : 'danger'} aria-pressed={s.killSwitch} onClick={() => void setKill(!s.killSwitch)}>
          {s.killSwitch ? 'Turn execute back on' : 'Stop all executes'}
        </button>
        {error ? <p role="alert">{error}</p> : null}
      </section>
      <dl className="facts">
        <dt>API</dt>
        <dd>
          {s.api.title} {s.api.version} — {s.api.operations} operations at <code>{s.api.baseUrl}</code> (profile {s.profile})
        </dd>
        <dt>Sandbox</dt>
        <dd>
          engine {s.engine}, egress {s.egress}
          {s.banner ? <span className="warning"> — {s.banner}</span> : null}
        </dd>
        <dt>MCP over HTTP</dt>
        <dd>
          {s.endpoints.http ? (
            <>
              <code>{s.endpoints.http}</code> <CopyButton text={s.endpoints.http} label="Copy the HTTP URL" />
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
        </dd>
        <dt>API key</dt>
        <dd>{s.credential.source === 'none' ? 'none set' : `${s.credential.fingerprint} from ${s.credential.source}`}</dd>
        <dt>Keychain</dt>
        <dd>{s.keychain.available ? 'available' : <span className="warning">{s.keychain.detail}</span>}</dd>
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
