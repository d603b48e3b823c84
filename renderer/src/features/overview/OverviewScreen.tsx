// Overview: first, what to do next — a checklist (connect a client, add the
// keys of the APIs that need one and have none, try a first call), each step
// ticked when it is done. Then the APIs served, each with how its loading
// went (ready with its operations, still loading, or failed and why); where
// clients connect (the HTTP URL with how to pass the token, the stdio
// command), where API keys live (the OS keychain or, loudly, a plaintext
// file; what to do when the keychain cannot be used), engine and egress,
// what is pending and running, and who is connected. No API served is said
// plainly, with the way to the APIs screen. The kill switch is not here: it
// lives in the shell, on every screen.
import { useEffect, useRef, type ReactNode } from 'react';
import type { Status } from '../../../../contract/status.ts';
import type { ApiView } from '../../../../contract/apis.ts';
import type { AuditRecord } from '../../../../contract/audit.ts';
import type { ClientStatusView } from '../../../../contract/clients.ts';
import { useCall, useControlEvents, type CallState } from '../../api/hooks.ts';
import { keyStateOf, type KeyState, type StoredKey } from '../apis/keyState.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { SecretStoreFacts } from './SecretStoreFacts.tsx';
import { authWords, credentialFrom, credentialWords, httpConnectText, keyWords } from './overviewText.ts';
import './overview.css';
import { InlineText } from '../../components/InlineText.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';

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

type ServedApi = Status['apis'][number];

/** One served API with what its key needs (known once it is loaded: until then its auth scheme is not). */
interface Keyed {
  a: ServedApi;
  auth: string;
  key: KeyState;
  /** The variable its key may be given in (AIRLOCK_KEY_<API>). */
  keyEnv: string | undefined;
}

/**
 * Each loaded API's key state: from keys.list, and from its view (a key in its AIRLOCK_KEY_<API>), the primary's
 * from the status too (AIRLOCK_API_KEY included). `known` is false until every loaded API's auth scheme and the stored keys are read.
 */
function keyedApis(s: Status, views: ApiView[] | undefined, keys: CallState<StoredKey[]>): { keyed: Keyed[]; known: boolean } {
  const keysRead = keys.data !== undefined || keys.error !== undefined || !s.secretStore.available;
  let known = keysRead;
  const keyed = s.apis.flatMap((a) => {
    if (a.state !== 'ready') return [];
    const primary = a.name === s.profile && s.api ? s.api : undefined;
    const view = views?.find((v) => v.name === a.name);
    const auth = primary?.auth ?? view?.auth;
    if (auth === undefined) {
      known = false;
      return [];
    }
    let key = keyStateOf({ name: a.name, auth, credential: view?.credential }, keys.data, s);
    if (primary && auth !== 'none' && key.kind !== 'set' && s.credential.source !== 'none')
      key = { kind: 'set', fingerprint: s.credential.fingerprint ?? '', from: credentialFrom(s) };
    return [{ a, auth, key, keyEnv: view?.keyEnv }];
  });
  return { keyed, known };
}

/** "demo", "demo and github", "demo, github and stripe". */
function joinNames(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function Checklist({
  s,
  keyed,
  known,
  clients,
  audit,
}: {
  s: Status;
  keyed: Keyed[];
  known: boolean;
  clients: ClientStatusView[] | undefined;
  audit: AuditRecord[] | undefined;
}) {
  const registered = (clients ?? []).filter((c) => c.state === 'registered');
  const live = s.sessions;
  // One line per client, however many sessions it holds ("is" for one, even with two sessions open).
  const liveNames = [...new Set(live.map((c) => `${c.clientName ?? 'An unnamed client'} (${c.transport === 'http' ? 'HTTP' : 'stdio'})`))];
  const connected = live.length > 0 || registered.length > 0;
  const served = s.apis;
  const ready = served.filter((a) => a.state === 'ready');
  const needing = keyed.filter((k) => k.key.kind !== 'not-needed');
  const missing = needing.filter((k) => k.key.kind !== 'set');
  const keysDone = known && ready.length > 0 && missing.length === 0;
  const storeDown = !s.secretStore.available;
  const single = served.length === 1;
  const first = firstCallOf(audit);
  const done = [connected, keysDone, first !== undefined];
  const all = done.every(Boolean);
  const label = (k: Keyed) => (single ? (k.a.title ?? k.a.name) : k.a.name);
  return (
    <section className="checklist" aria-labelledby="start-title">
      <h2 id="start-title">{all ? 'All set' : 'Get started'}</h2>
      <p className="hint">{all ? 'Airlock is connected, has what it needs, and has served a call.' : `${done.filter(Boolean).length} of 3 done.`}</p>
      <ol>
        <Step n={1} title="Connect a client" done={connected}>
          {live.length > 0 ? (
            <p>
              {liveNames.join(', ')} {liveNames.length === 1 ? 'is' : 'are'} connected.
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
        <Step n={2} title={needing.length > 1 ? 'Add the API keys' : 'Add the API key'} done={keysDone}>
          {served.length === 0 ? (
            <p>No API is served yet: switch one on, or add one, on the APIs screen.</p>
          ) : ready.length === 0 ? (
            <p>
              Once {joinNames(served.map((a) => a.name))} {served.length === 1 ? 'is' : 'are'} loaded, this says which need a key.
            </p>
          ) : !known ? (
            <p>Reading which APIs need a key…</p>
          ) : needing.length === 0 ? (
            <p>Not needed: {single ? 'this API sends no key' : `none of the APIs served sends a key`}.</p>
          ) : missing.length === 0 ? (
            <p>
              {single && needing[0]!.key.kind === 'set'
                ? `${keyWords(needing[0]!.key.fingerprint, needing[0]!.key.from)} is used for every call.`
                : `Every API that sends a key has one: ${needing.map((k) => `${k.a.name} (${k.key.kind === 'set' ? k.key.fingerprint : ''})`).join(', ')}.`}
            </p>
          ) : (
            <p>
              {missing.length === 1
                ? `${label(missing[0]!)} needs a key (${authWords(missing[0]!.auth)})`
                : `${joinNames(missing.map((k) => k.a.name))} need a key and have none (${missing.map((k) => `${k.a.name} ${authWords(k.auth)}`).join('; ')})`}
              {storeDown ? (
                <>
                  , and keys cannot be stored here yet. {s.secretStore.problem} <EnvAdvice missing={missing} />
                </>
              ) : (
                <>
                  . Add {missing.length === 1 ? 'it' : 'them'} on the APIs screen: {missing.length === 1 ? 'it is' : 'they are'} kept in {s.secretStore.where},
                  and no client or script ever sees {missing.length === 1 ? 'it' : 'them'}.
                </>
              )}
            </p>
          )}
          {served.length === 0 || needing.length > 0 ? <a href="#/apis">{keysDone ? 'Manage keys' : 'Go to APIs'}</a> : null}
        </Step>
        <Step n={3} title="Try a first call" done={first !== undefined}>
          {first ? (
            <p>
              <code>{first.tool}</code> from {first.clientName ?? 'an unnamed client'} at {new Date(first.time).toLocaleTimeString()}.
            </p>
          ) : (
            <p>
              Ask your client for something that uses{' '}
              {ready.length === 0
                ? 'your API'
                : ready.length === 1
                  ? (ready[0]!.title ?? ready[0]!.name)
                  : `one of your APIs (${joinNames(ready.map((a) => a.name))})`}
              , for example “use Airlock to list …”. Calls that change data wait for your approval here.
            </p>
          )}
          <a href="#/activity">{first ? 'See calls in Activity' : 'Watch for it in Activity'}</a>
        </Step>
      </ol>
    </section>
  );
}

/**
 * What works with no usable store, named for the APIs it is about: start Airlock with each key in its API's own
 * variable (or, with a keychain that cannot be used, with the plaintext file store); the APIs screen has the rest.
 */
function EnvAdvice({ missing }: { missing: Keyed[] }) {
  const named = missing.filter((k) => k.keyEnv !== undefined);
  if (named.length === 0) return <>The APIs screen says what to do.</>;
  return (
    <>
      Start Airlock with {named.length === 1 ? 'the key' : 'each key'} in{' '}
      {named.map((k, i) => (
        <span key={k.a.name}>
          {i > 0 ? (i === named.length - 1 ? ' and ' : ', ') : ''}
          <code>{k.keyEnv}</code>
          {named.length > 1 ? ` (${k.a.name})` : ''}
        </span>
      ))}
      , or see the APIs screen for the other ways.
    </>
  );
}

/** How one served API's loading went, in words. */
function servedWords(a: ServedApi, view: ApiView | undefined): string {
  if (a.state === 'loading') return 'still loading: calls to it wait until it is ready';
  if (a.state === 'failed') return `failed to load: ${a.error ?? 'no reason given'}. Calls to it are refused`;
  return `${a.title ?? a.name}, ${a.operations ?? 0} operations${view?.baseUrl ? ` at ${view.baseUrl}` : ''}`;
}

function ServedApis({ s, views }: { s: Status; views: ApiView[] | undefined }) {
  const loading = s.apis.filter((a) => a.state === 'loading');
  const failed = s.apis.filter((a) => a.state === 'failed');
  return (
    <section className="served" aria-labelledby="served-title">
      <h2 id="served-title">APIs served</h2>
      {s.apis.length === 0 ? (
        <p className="warning-text">No API is served: clients can connect, but have nothing to call. Switch one on, or add one, on the APIs screen.</p>
      ) : (
        <>
          <ul className="served-apis" aria-label="APIs served">
            {s.apis.map((a) => (
              <li key={a.name} className={`served-api ${a.state}`}>
                <span className="served-dot" aria-hidden="true" />
                <span>
                  <strong>{a.name}</strong>
                  {a.id !== a.name ? (
                    <>
                      {' '}
                      (<code>{a.id}</code> in scripts)
                    </>
                  ) : null}
                  :{' '}
                  <InlineText
                    text={servedWords(
                      a,
                      views?.find((v) => v.name === a.name),
                    )}
                  />
                  .
                </span>
              </li>
            ))}
          </ul>
          {loading.length > 0 ? (
            <p className="warning-text">
              {joinNames(loading.map((a) => a.name))} {loading.length === 1 ? 'is' : 'are'} still loading.
            </p>
          ) : null}
          {failed.length > 0 ? (
            <p className="warning-text">{joinNames(failed.map((a) => a.name))} could not be loaded: see why, and fix it, on the APIs screen.</p>
          ) : null}
        </>
      )}
      <a href="#/apis">{s.apis.length === 0 ? 'Go to APIs' : 'Manage APIs'}</a>
    </section>
  );
}

/** The key of each API, in a few words (several APIs). */
function apiKeyWords(k: Keyed, storeDown: boolean): string {
  switch (k.key.kind) {
    case 'not-needed':
      return 'sends no key';
    case 'set':
      return `${keyWords(k.key.fingerprint, k.key.from)}, sent ${authWords(k.auth)}`;
    case 'unknown':
      return k.keyEnv ? `keys cannot be read here, and ${k.keyEnv} is not set` : 'keys cannot be read here';
    default:
      return storeDown ? 'no key (keys cannot be stored here)' : 'no key yet: calls go out without one';
  }
}

export function OverviewScreen({ pending, status }: { pending: number; status: CallState<Status> }) {
  const clients = useCall('clients.list', {});
  // Oldest first: the first call made through this companion.
  const audit = useCall('audit.query', { kind: 'tool', order: 'oldest', limit: 20 }, { refreshOn: ['audit'] });
  const keys = useCall('keys.list', {}, { refreshOn: ['apis-changed'] });
  const views = useCall('apis.list', {}, { refreshOn: ['apis-changed'] });
  // The shell polls the status; an API switched on, off, loaded or failed is said at once.
  useControlEvents((events) => {
    if (events.some((e) => e.type === 'apis-changed')) status.reload();
  });
  // A key stored or removed elsewhere changes the primary's credential: the other keys are read again too.
  const credential = `${status.data?.credential.source}:${status.data?.credential.fingerprint}`;
  const seen = useRef(credential);
  const reloadKeys = keys.reload;
  useEffect(() => {
    if (seen.current === credential) return;
    seen.current = credential;
    reloadKeys();
  }, [credential, reloadKeys]);
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
  const { keyed, known } = keyedApis(s, views.data, keys);
  const storeDown = !s.secretStore.available;
  const only = s.apis.length === 1 && s.api ? s.api : undefined;
  const onlyKey = only ? keyed.find((k) => k.a.name === s.profile)?.key : undefined;
  const onlyKeyEnv = only ? views.data?.find((v) => v.name === s.profile)?.keyEnv : undefined;
  const storedUnused = only?.auth === 'none' ? keys.data?.find((k) => k.profile === s.profile) : undefined;
  const http = s.endpoints.http;
  return (
    <div className="screen overview">
      <h1>Overview</h1>
      <Checklist s={s} keyed={keyed} known={known} clients={clients.data} audit={audit.data?.records} />
      <ServedApis s={s} views={views.data} />
      <dl className="facts">
        {only ? (
          <>
            <dt>API key</dt>
            <dd>
              {only.auth === 'none' ? (
                <>
                  This API sends no key
                  {storedUnused ? ` (a key, ${storedUnused.fingerprint}, is stored for profile ${s.profile} but is not sent)` : ''}.
                </>
              ) : onlyKey?.kind === 'set' ? (
                <>
                  {keyWords(onlyKey.fingerprint, onlyKey.from)}, sent {authWords(only.auth)}
                </>
              ) : s.credential.source !== 'none' ? (
                <>
                  {credentialWords(s)}, sent {authWords(only.auth)}
                </>
              ) : storeDown ? (
                <span className="warning-text">
                  Not available: keys cannot be read here
                  {onlyKeyEnv ? (
                    <>
                      , and <code>{onlyKeyEnv}</code> is not set
                    </>
                  ) : null}{' '}
                  (see Keys kept in).
                </span>
              ) : (
                <>
                  None yet: calls go out without a key. <a href="#/apis">Add one on APIs</a>
                </>
              )}
            </dd>
          </>
        ) : keyed.length > 0 ? (
          <>
            <dt>API keys</dt>
            <dd>
              <ul className="plain">
                {keyed.map((k) => (
                  <li key={k.a.name} className={k.key.kind === 'missing' || k.key.kind === 'unknown' ? 'warning-text' : undefined}>
                    {k.a.name}: {apiKeyWords(k, storeDown)}
                  </li>
                ))}
              </ul>
              {keyed.some((k) => k.key.kind === 'missing') ? <a href="#/apis">Add keys on APIs</a> : null}
            </dd>
          </>
        ) : null}
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
          <>
            {s.sessions.some((c) => c.transport === 'http') ? (
              <p className="muted">
                An HTTP client that quits without ending its session is listed until the session has been idle for the time set in Settings (“End an idle HTTP
                session after”).
              </p>
            ) : null}
            <TableScroll label="Connected clients">
              <table className="grid">
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col">Transport</th>
                    <th scope="col">MCP revision</th>
                    <th scope="col">Session</th>
                    <th scope="col">Connected</th>
                    <th scope="col">Last seen</th>
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
                      <td>{c.protocolVersion ?? 'not known yet'}</td>
                      <td>
                        <code>{c.sessionId?.slice(0, 8) ?? c.key}</code>
                      </td>
                      <td>{new Date(c.connectedAt).toLocaleTimeString()}</td>
                      <td>{c.inFlight > 0 ? 'now (calling)' : new Date(c.lastSeenAt).toLocaleTimeString()}</td>
                      <td>{c.inFlight}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        )}
      </section>
    </div>
  );
}
