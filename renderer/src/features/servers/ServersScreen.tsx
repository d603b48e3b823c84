// Servers: the other MCP servers Airlock stands in front of (issue 20), in
// the words of `airlock servers list|show`. Each with its command line or
// URL, a switch that enables or disables it (off: its process stops, calls
// to its tools are refused), how it runs (not started yet — it starts on
// first use —, starting, connected with its tool count, failed or stopped
// with why, and "Start again"), whether its tools are accepted or held, its
// secrets (set or missing, with the line that sets one: a secret is never
// typed here) and its last stderr lines. "Review tools" opens its review
// (ToolReview.tsx); "Remove…" asks first (RemoveServer.tsx). Below the
// list: a form that adds one (AddServer.tsx), and the servers each MCP
// client runs itself, to move behind Airlock (ImportServers.tsx). The list
// is read again on `servers-changed`; a server just added takes the focus,
// and a removed one gives it to its neighbour. Names and everything a server
// or a client's file says are shown as plain text.
import { useEffect, useRef, useState } from 'react';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import type { ServerView } from '../../../../contract/servers.ts';
import { InlineText } from '../../components/InlineText.tsx';
import { PendingSwitch } from '../../components/PendingSwitch.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { ToolReview } from './ToolReview.tsx';
import { AddServer } from './AddServer.tsx';
import { ImportServers } from './ImportServers.tsx';
import { RemoveServer } from './RemoveServer.tsx';
import type { AddMode } from './serverForm.ts';
import { ADD_COMMAND, ADD_URL_COMMAND, printable, reviewWords, secretCommand, stateWords } from './serverWords.ts';
import './servers.css';
import { messageOf } from '../../../../contract/values.ts';
import { OrganisationNote } from '../../components/OrganisationNote.tsx';

function EnabledSwitch({ v, wanted, onChange }: { v: ServerView; wanted: boolean | undefined; onChange(on: boolean): void }) {
  return (
    <PendingSwitch
      id={`enabled-${v.name}`}
      label="Enabled"
      name={v.name}
      on={v.enabled}
      wanted={wanted}
      describedBy={`server-state-${v.name}`}
      onChange={onChange}
    />
  );
}

function Secrets({ v }: { v: ServerView }) {
  if (v.secrets.length === 0) return <>none</>;
  return (
    <ul className="server-secrets">
      {v.secrets.map((s) => (
        <li key={s.name}>
          <code>{s.name}</code>:{' '}
          {s.set === undefined ? (
            <span className="warning-text">unknown: the key store could not be read{v.secretsUnknown ? ` (${printable(v.secretsUnknown)})` : ''}</span>
          ) : s.set ? (
            'set (in the key store)'
          ) : (
            <>
              <span className="warning-text">missing: it starts without it</span>
              <span className="secret-set">
                Set it in a terminal: <code>{secretCommand(v.name, s.name)}</code>{' '}
                <CopyButton text={secretCommand(v.name, s.name)} label={`Copy the line that sets ${s.name}`} />
              </span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

function Stderr({ v }: { v: ServerView }) {
  if (v.stderr.length === 0) return null;
  return (
    <details className="server-stderr">
      <summary>
        Its last stderr lines <span className="muted">({v.stderr.length})</span>
      </summary>
      <pre tabIndex={0} aria-label={`The last stderr lines of ${v.name}`}>
        {printable(v.stderr.join('\n'))}
      </pre>
    </details>
  );
}

/** Said on a server's card once it was added here: what waits, and where its secrets are set. */
function JustAdded({ v, mode }: { v: ServerView; mode: AddMode }) {
  const missing = v.secrets.filter((s) => s.set === false).map((s) => s.name);
  const stored = v.secrets.filter((s) => s.set === true).map((s) => s.name);
  return (
    <div className="server-added">
      <p>
        <strong>Added.</strong> Its tools wait for your review: nothing of {v.name} runs until you accept them (Review tools, below).
      </p>
      {mode === 'json' && stored.length > 0 ? (
        <p>
          The {stored.length === 1 ? 'value' : 'values'} written in the pasted entry {stored.length === 1 ? 'is' : 'are'} in the key store:{' '}
          {stored.map((n, i) => (
            <span key={n}>
              {i > 0 ? ', ' : ''}
              <code>{n}</code>
            </span>
          ))}
          .
        </p>
      ) : null}
      {missing.length > 0 ? (
        <p>
          {missing.length === 1 ? 'Its secret is' : 'Its secrets are'} not set yet: set each in a terminal with <code>{secretCommand(v.name, 'VARIABLE')}</code>{' '}
          (the lines to copy are under Secrets). It starts without {missing.length === 1 ? 'it' : 'them'} until then.
        </p>
      ) : null}
    </div>
  );
}

function NoServerYet() {
  return (
    <section className="card server-empty" aria-labelledby="no-server">
      <h2 id="no-server">No MCP server yet</h2>
      <p>
        Add one with the form below, or move your clients&apos; own servers behind Airlock (further below). Or in a terminal; it shows here at once, and starts
        on first use:
      </p>
      <p className="command-line">
        <code>{ADD_COMMAND}</code> <CopyButton text={ADD_COMMAND} label="Copy the line that adds a server" />
      </p>
      <p className="hint">
        Or an HTTP one: <code>{ADD_URL_COMMAND}</code>. Then review its tools here and accept them: until then, nothing of it runs.
      </p>
    </section>
  );
}

export function ServersScreen() {
  const { api } = useControl();
  const servers = useCall('servers.list', {}, { refreshOn: ['servers-changed'] });
  const [message, setMessage] = useState<ScreenMessage>();
  /** Switches on their way: the state each was turned to. */
  const [wanted, setWanted] = useState<Record<string, boolean>>({});
  /** What servers.setEnabled / servers.restart answered, shown until the list is read again (`basis`: the list it stands in for). */
  const [fresh, setFresh] = useState<{ basis: ServerView[] | undefined; views: Record<string, ServerView> }>({ basis: undefined, views: {} });
  const listed = useRef(servers.data);
  listed.current = servers.data;
  /** Reviews opened by the person. */
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [restarting, setRestarting] = useState<Record<string, boolean>>({});
  /** The server added here last, and how (its card says what waits). */
  const [added, setAdded] = useState<{ name: string; mode: AddMode }>();
  /** The id of what takes the focus once it is drawn: a server just added, or the neighbour of one removed. */
  const [focusOn, setFocusOn] = useState<string>();
  // Tried again with each list read: a server just added is drawn once the list holds it.
  useEffect(() => {
    if (focusOn === undefined) return;
    const target = document.getElementById(focusOn);
    if (!target) return;
    target.focus();
    setFocusOn(undefined);
  }, [focusOn, servers.data]);
  // A review closes with its server disabled (here or elsewhere): enabled again, it is not started until asked.
  useEffect(() => {
    const off = (servers.data ?? []).filter((v) => !v.enabled).map((v) => v.name);
    if (off.length > 0) setOpen((o) => (off.some((n) => o[n]) ? { ...o, ...Object.fromEntries(off.map((n) => [n, false])) } : o));
  }, [servers.data]);
  const answered = (v: ServerView) => {
    const basis = listed.current;
    setFresh((f) => ({ basis, views: { ...(f.basis === basis ? f.views : {}), [v.name]: v } }));
  };

  const enable = async (v: ServerView, on: boolean) => {
    setWanted((w) => ({ ...w, [v.name]: on }));
    if (!on) setOpen((o) => ({ ...o, [v.name]: false }));
    try {
      answered(await api.call('servers.setEnabled', { name: v.name, enabled: on }));
      setMessage({
        kind: 'status',
        text: on ? `${v.name} enabled: it starts on first use.` : `${v.name} disabled: its process is stopped, and calls to its tools are refused.`,
      });
    } catch (error) {
      setMessage({ kind: 'alert', text: `${v.name}: ${messageOf(error)}` });
    } finally {
      setWanted((w) => {
        const { [v.name]: _, ...rest } = w;
        return rest;
      });
      servers.reload();
    }
  };

  /** One action on a server that the core takes a while to answer: the card is busy meanwhile, and says what came of it. */
  const act = async (v: ServerView, meanwhile: string, call: () => Promise<ServerView>, done: (next: ServerView) => ScreenMessage) => {
    setRestarting((r) => ({ ...r, [v.name]: true }));
    setMessage({ kind: 'status', text: meanwhile });
    try {
      const next = await call();
      answered(next);
      setMessage(done(next));
    } catch (error) {
      setMessage({ kind: 'alert', text: `${v.name}: ${messageOf(error)}` });
    } finally {
      setRestarting((r) => {
        const { [v.name]: _, ...rest } = r;
        return rest;
      });
      servers.reload();
    }
  };

  /** A person's sign-in to a remote server: the companion opens the authorization page in the browser, on its machine. */
  const signIn = (v: ServerView) =>
    act(
      v,
      `Signing in to ${v.name}: finish in the browser window Airlock opened (5 minutes at most)…`,
      () => api.call('servers.login', { name: v.name }),
      () => ({ kind: 'status', text: `Signed in to ${v.name}.` }),
    );

  const restart = (v: ServerView) =>
    act(
      v,
      `Starting ${v.name} again…`,
      () => api.call('servers.restart', { name: v.name }),
      (next) => ({ kind: next.state === 'connected' ? 'status' : 'alert', text: `${v.name}: ${printable(stateWords(next, undefined).text)}` }),
    );

  const list = (servers.data ?? []).map((v) => (fresh.basis === servers.data ? fresh.views[v.name] : undefined) ?? v);
  const remove = async (v: ServerView) => {
    const names = list.map((x) => x.name);
    const at = names.indexOf(v.name);
    const neighbour = names[at + 1] ?? names[at - 1];
    const { removed } = await api.call('servers.remove', { name: v.name });
    setMessage({
      kind: 'status',
      text: removed ? `${v.name} removed: its process is stopped; its secrets, sign-in and review are gone.` : `${v.name} was already removed (elsewhere).`,
    });
    if (added?.name === v.name) setAdded(undefined);
    setOpen((o) => ({ ...o, [v.name]: false }));
    setFocusOn(neighbour !== undefined ? `server-${neighbour}` : 'add-server');
    servers.reload();
  };
  const enabled = list.filter((v) => v.enabled).length;
  const held = list.filter((v) => v.review === 'unreviewed' || v.review === 'changed').length;
  return (
    <div className="screen servers">
      <h1>Servers</h1>
      <Message message={message} />
      <OrganisationNote area="servers" />
      <p>
        Other MCP servers Airlock stands in front of. A script reaches a server's tools as <code>mcp.&lt;server&gt;.&lt;tool&gt;(args)</code> once you have
        accepted them, and each call goes through the same gate as an API call: its policy, your approval when it asks, the audit log. A server starts on first
        use. Add one below, or move the servers your clients run themselves behind Airlock.
        {servers.data && list.length > 0 ? ` ${enabled} of ${list.length} enabled${held > 0 ? `; ${held} with tools held for your review` : ''}.` : ''}
      </p>
      {servers.error ? (
        <p role="alert">
          <InlineText text={servers.error.message} />
        </p>
      ) : null}
      {servers.data === undefined && !servers.error ? <p role="status">Loading…</p> : null}
      {servers.data && list.length === 0 ? <NoServerYet /> : null}
      {list.map((v) => {
        const state = stateWords(v, wanted[v.name]);
        const review = reviewWords(v);
        const isOpen = (open[v.name] ?? false) && v.enabled;
        const reviewId = `review-${v.name}`;
        return (
          <section key={v.name} aria-labelledby={`server-${v.name}`} className={`card server-card ${state.kind}`}>
            <div className="server-head">
              <h2 id={`server-${v.name}`} tabIndex={-1}>
                {printable(v.name)}
              </h2>
              <EnabledSwitch v={v} wanted={wanted[v.name]} onChange={(on) => void enable(v, on)} />
            </div>
            <p id={`server-state-${v.name}`} className={`server-state ${state.kind}`}>
              <span className="server-dot" aria-hidden="true" />
              <span className="server-state-text">
                <strong>{state.label}</strong>
                {state.detail !== undefined ? (
                  <>
                    : <span className="server-reason">{printable(state.detail)}</span>
                  </>
                ) : null}
              </span>
            </p>
            {(v.state === 'stopped' || v.state === 'failed') && wanted[v.name] === undefined ? (
              <p className="server-restart">
                <button type="button" className="small" disabled={restarting[v.name]} onClick={() => void restart(v)}>
                  Start again<span className="visually-hidden"> {v.name}</span>
                </button>{' '}
                <span className="hint">
                  {v.state === 'failed' && v.review === 'unreviewed'
                    ? 'Its tools are not accepted yet, so Airlock does not start it by itself: it starts when you start it or review its tools.'
                    : v.state === 'failed'
                      ? 'Airlock starts it again after a delay that doubles; five crashes in five minutes stop it until you start it again.'
                      : 'It stays stopped until you start it again.'}
                </span>
              </p>
            ) : null}
            <dl className="facts">
              <dt>{v.transport === 'stdio' ? 'Command' : 'URL'}</dt>
              <dd>
                <code className="server-target">{printable(v.target)}</code> <span className="muted">({v.transport})</span>
                {v.commandMissing ? (
                  <span className="warning-text" role="note">
                    {' '}
                    Warning: {printable(v.commandMissing)}.
                  </span>
                ) : null}
              </dd>
              <dt>Tools</dt>
              <dd className={review.held ? 'held-text' : undefined}>{review.text}</dd>
              <dt>Secrets</dt>
              <dd>
                <Secrets v={v} />
              </dd>
              {v.signIn && v.signIn !== 'not-needed' ? (
                <>
                  <dt>Sign-in</dt>
                  <dd>
                    {v.signIn === 'signed-in'
                      ? 'signed in (its tokens are in the key store; Airlock refreshes them)'
                      : 'not signed in: needed only if the server asks for it'}{' '}
                    <button type="button" className="small" disabled={restarting[v.name]} onClick={() => void signIn(v)}>
                      {v.signIn === 'signed-in' ? 'Sign in again' : 'Sign in'}
                      <span className="visually-hidden"> to {v.name}</span>
                    </button>
                  </dd>
                </>
              ) : null}
            </dl>
            <Stderr v={v} />
            {added?.name === v.name ? <JustAdded v={v} mode={added.mode} /> : null}
            <div className="server-actions">
              {v.enabled ? (
                <p className="review-actions">
                  <button
                    type="button"
                    aria-expanded={isOpen}
                    aria-controls={isOpen ? reviewId : undefined}
                    onClick={() => setOpen((o) => ({ ...o, [v.name]: !isOpen }))}
                  >
                    {isOpen ? 'Hide tools' : 'Review tools'}
                    <span className="visually-hidden"> of {v.name}</span>
                  </button>{' '}
                  {!isOpen && v.state !== 'connected' ? <span className="hint">starts {v.name} if it is not running</span> : null}
                </p>
              ) : (
                <p className="hint review-actions">Enable it to review its tools and set their policies.</p>
              )}
              <div className="server-remove-slot">
                <RemoveServer name={v.name} secrets={v.secrets.length} onRemove={() => remove(v)} />
              </div>
            </div>
            {isOpen ? (
              <div id={reviewId}>
                <ToolReview server={v} listed={servers.data} />
              </div>
            ) : null}
          </section>
        );
      })}
      <AddServer
        taken={list.map((v) => v.name)}
        onAdded={(v, mode) => {
          setAdded({ name: v.name, mode });
          setMessage({ kind: 'status', text: `${v.name} added: its tools wait for your review.` });
          setFocusOn(`server-${v.name}`);
          servers.reload();
        }}
      />
      <ImportServers taken={list.map((v) => v.name)} />
    </div>
  );
}
