// APIs: every API the companion knows, each with a switch that serves it or
// stops serving it at once (no restart; saved in its profile), how its
// serving goes (loading, its operation count, or why it failed), the name
// scripts reach it by when that is not its name, its API key — entered once,
// write-only, kept in the OS keychain (or, loudly, a plaintext file the
// person opted in to), shown afterwards only as its fingerprint — and the
// policy of each of its operations. When the keychain cannot be used, the
// key field says why and what to do instead of failing on Store. The demo
// API is one API among the others: it can be switched off too.
import { useRef, useState } from 'react';
import { useCall, useControlEvents } from '../../api/hooks.ts';
import { useStatus } from '../../api/StatusProvider.tsx';
import { useControl } from '../../api/ControlProvider.tsx';
import { ControlError } from '../../../../contract/controlApi.ts';
import type { ApiProgress, ApiView } from '../../../../contract/apis.ts';
import { progressWords } from './progressWords.ts';
import type { ProfileView } from '../../../../contract/profiles.ts';
import type { SecretStoreView } from '../../../../contract/status.ts';
import { SecretStoreNotice, Words } from '../overview/SecretStoreFacts.tsx';
import { OperationPolicies } from './OperationPolicies.tsx';
import { AddProfile } from './AddProfile.tsx';
import { keyStateOf } from './keyState.ts';
import { InlineText } from '../../components/InlineText.tsx';
import { PendingSwitch } from '../../components/PendingSwitch.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import './apis.css';
import { messageOf } from '../../../../contract/values.ts';
import { OrganisationNote } from '../../components/OrganisationNote.tsx';

/** APIs this small show their operations at once; larger ones behind a click (and are only then read). */
const OPEN_UP_TO = 50;

/** A store failure in plain words (the status's), not the library's message. */
function keyError(error: unknown, store: SecretStoreView | undefined): string {
  if (error instanceof ControlError && error.code === 'unavailable' && store && !store.available) {
    return `The key was not stored: ${store.problem ?? 'the keychain cannot be used'} ${store.action ?? ''}`.trim();
  }
  return messageOf(error);
}

function KeyForm({
  profile,
  keyEnv,
  onDone,
  store,
  sendsKey,
}: {
  profile: string;
  /** The variable this API's key may be given in (AIRLOCK_KEY_<API>). */
  keyEnv: string;
  onDone(message: string): void;
  store?: SecretStoreView;
  sendsKey: boolean;
}) {
  const { api } = useControl();
  const [secret, setSecret] = useState('');
  const id = `key-${profile}`;
  if (!sendsKey) return null;
  if (store && !store.available) {
    // No field that could only fail on Store: why, and what works instead (the notice above has the rest).
    return (
      <div className="key-unavailable" id={id}>
        <p>
          <strong>No key can be stored for {profile} here:</strong> {store.osKeychain ? 'the keychain' : 'the key file'} cannot be used.{' '}
          <Words text={store.action} /> Or start Airlock with this API&apos;s key in the environment variable <code>{keyEnv}</code>
          {store.osKeychain ? (
            <>
              , or with <code>--secret-store file</code> (keys are then kept in a plaintext file: see above)
            </>
          ) : null}
          .
        </p>
      </div>
    );
  }
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        const value = secret;
        setSecret('');
        api.call('keys.set', { profile, secret: value }).then(
          (r) => onDone(`Key for ${profile} stored (${r.fingerprint}).`),
          (error: unknown) => onDone(keyError(error, store)),
        );
      }}
    >
      <label htmlFor={id}>New API key for {profile}</label>
      <input id={id} type="password" autoComplete="off" spellCheck={false} value={secret} onChange={(e) => setSecret(e.target.value)} />
      <button type="submit" disabled={!secret}>
        Store key<span className="visually-hidden"> for {profile}</span>
      </button>
    </form>
  );
}

/** How an API's serving goes, in words; `wanted` is a switch still on its way. */
function stateWords(a: ApiView, wanted: boolean | undefined): { text: string; kind: 'off' | 'loading' | 'ready' | 'failed' } {
  if (wanted === true && a.state === 'disabled') return { text: 'Starting…', kind: 'loading' };
  if (wanted === false) return { text: a.state === 'loading' ? 'Cancelling…' : 'Stopping…', kind: 'loading' };
  switch (a.state) {
    case 'loading':
      return { text: a.progress ? `Loading: ${progressWords(a.progress)}` : 'Loading…', kind: 'loading' };
    case 'ready':
      return { text: `Served: ${a.operations ?? 0} operations${a.title ? ` (${a.title})` : ''}`, kind: 'ready' };
    case 'failed':
      return { text: `Failed to load: ${a.error ?? 'no reason given'}`, kind: 'failed' };
    default:
      // On in its profile, yet not served: this companion was started for one API.
      return a.enabled
        ? { text: 'Off here: this companion was started for one API (`--spec` or `--profile`); switch it on to serve it too', kind: 'off' }
        : { text: 'Off: not served', kind: 'off' };
  }
}

function ServeSwitch({ a, wanted, onChange }: { a: ApiView; wanted: boolean | undefined; onChange(on: boolean): void }) {
  return (
    <PendingSwitch
      id={`serve-${a.name}`}
      label="Serve"
      name={a.name}
      on={a.state !== 'disabled'}
      wanted={wanted}
      describedBy={`state-${a.name}`}
      onChange={onChange}
    />
  );
}

/** No key stored: a warning where calls go out without one; plain words where that is not (yet) so. */
function MissingKey({ a }: { a: ApiView }) {
  if (a.auth === undefined) return <>none stored (its document says whether it needs one, once it is loaded)</>;
  if (a.state === 'ready' || a.state === 'loading') return <span className="warning-text">missing: calls to it go out without a key</span>;
  return <>missing</>;
}

/** How scripts reach it (`do_local`, or an alias), said only where it is not simply its name. */
function ReachedAs({ a }: { a: ApiView }) {
  const alias = a.alias && a.alias !== a.id ? a.alias : undefined;
  if (a.id === a.name && !alias) return null;
  return (
    <>
      <dt>In scripts</dt>
      <dd>
        <code>{a.id}</code>
        {a.id !== a.name ? ` (${a.name} is not a name a script can use)` : ''}
        {alias ? (
          <>
            {' '}
            or its alias <code>{alias}</code>
          </>
        ) : null}
      </dd>
    </>
  );
}

/** The later of two ISO times (either may be absent). */
function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (!a || !b) return a ?? b;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

function LastUsed({ at }: { at: string | undefined }) {
  if (!at) return <span className="muted">never (no call to it in the audit log)</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

export function ApisScreen() {
  const { api } = useControl();
  const apis = useCall('apis.list', {}, { refreshOn: ['apis-changed'] });
  const profiles = useCall('profiles.list', {}, { refreshOn: ['apis-changed', 'rules-changed'] });
  const keys = useCall('keys.list', {});
  const status = useStatus();
  const [message, setMessage] = useState<ScreenMessage>();
  /** Switches on their way: the state each was turned to. */
  const [wanted, setWanted] = useState<Record<string, boolean>>({});
  /**
   * What apis.enable / apis.disable answered, shown until the list is read again (`basis`: the list it stands in
   * for), so a switch never flips back to the old state while the list is on its way.
   */
  const [fresh, setFresh] = useState<{ basis: ApiView[] | undefined; views: Record<string, ApiView> }>({ basis: undefined, views: {} });
  const listed = useRef(apis.data);
  listed.current = apis.data;
  /** API calls seen on the event stream since the list was read: each API's newest. */
  const [calledAt, setCalledAt] = useState<Record<string, string>>({});
  /** How far each API loading is, as the event stream says (newer than the list, until the list is read again). */
  const [progress, setProgress] = useState<{ basis: ApiView[] | undefined; of: Record<string, ApiProgress> }>({ basis: undefined, of: {} });
  useControlEvents((events) => {
    const newest: Record<string, string> = {};
    const moved: Record<string, ApiProgress> = {};
    for (const e of events) {
      if (e.type === 'audit' && e.record.kind === 'api' && e.record.profile) newest[e.record.profile] = e.record.time;
      if (e.type === 'api-progress') moved[e.name] = e.progress;
    }
    if (Object.keys(newest).length > 0) setCalledAt((was) => ({ ...was, ...newest }));
    if (Object.keys(moved).length > 0) {
      const basis = listed.current;
      setProgress((was) => ({ basis, of: { ...(was.basis === basis ? was.of : {}), ...moved } }));
    }
  });
  /** Operations tables opened or closed by the person (the rest follow OPEN_UP_TO). */
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const done = (m: string) => {
    setMessage({ kind: 'status', text: m });
    keys.reload();
    status.reload();
  };
  const serve = async (a: ApiView, on: boolean) => {
    setWanted((w) => ({ ...w, [a.name]: on }));
    setMessage({ kind: 'status', text: on ? `Starting ${a.name}…` : `Stopping ${a.name}…` });
    try {
      const v = await api.call(on ? 'apis.enable' : 'apis.disable', { name: a.name });
      const basis = listed.current;
      setFresh((f) => ({ basis, views: { ...(f.basis === basis ? f.views : {}), [a.name]: v } }));
      setMessage({
        kind: v.state === 'failed' ? 'alert' : 'status',
        text: !on
          ? a.state === 'loading'
            ? `Loading ${a.name} was cancelled: it is off (switch it on to load it again).`
            : `${a.name} is off: new calls to it are refused (runs going are not disturbed).`
          : v.state === 'failed'
            ? `${a.name} could not be loaded: ${v.error ?? 'no reason given'}`
            : `${a.name} is served${v.operations !== undefined ? ` (${v.operations} operations)` : ''}: scripts reach it as ${v.id}.`,
      });
    } catch (error) {
      setMessage({ kind: 'alert', text: `${a.name}: ${messageOf(error)}` });
    } finally {
      setWanted((w) => {
        const { [a.name]: _, ...rest } = w;
        return rest;
      });
      apis.reload();
      profiles.reload();
      status.reload();
    }
  };
  const store = status.data?.secretStore;
  const list = (apis.data ?? []).map((a) => {
    const shown = (fresh.basis === apis.data ? fresh.views[a.name] : undefined) ?? a;
    const moved = progress.basis === apis.data ? progress.of[a.name] : undefined;
    return shown.state === 'loading' && moved ? { ...shown, progress: moved } : shown;
  });
  const served = list.filter((a) => a.state !== 'disabled').length;
  return (
    <div className="screen apis">
      <h1>APIs</h1>
      <Message message={message} />
      <OrganisationNote area="apis" />
      <p>
        Every API switched on is served to every client at once, with no restart: a script reaches each by its name, as in <code>demo.events.list()</code> (or
        as <code>api</code> when a client sees only one). Switched off, new calls to it are refused.
        {apis.data ? ` ${served} of ${list.length} served.` : ''}
      </p>
      {/* Where keys are kept, said only when they can be: the notice below says what to do when they cannot. */}
      {status.data?.secretStore.available ? (
        <p>
          API keys are kept in {status.data.secretStore.osKeychain ? `the OS keychain: ${status.data.secretStore.where}` : status.data.secretStore.where}. A key
          is never shown again: only its fingerprint.
        </p>
      ) : null}
      {status.data ? <SecretStoreNotice store={status.data.secretStore} /> : null}
      {apis.error ? (
        <p role="alert">
          <InlineText text={apis.error.message} />
        </p>
      ) : null}
      {list.map((a) => {
        const p: ProfileView | undefined = profiles.data?.find((x) => x.name === a.name);
        const key = keyStateOf(a, keys.data, status.data);
        const state = stateWords(a, wanted[a.name]);
        const open = opened[a.name] ?? (a.operations ?? 0) <= OPEN_UP_TO;
        return (
          <section key={a.name} aria-labelledby={`profile-${a.name}`} className={`card api-card ${state.kind}`}>
            <div className="api-head">
              <h2 id={`profile-${a.name}`}>{a.name}</h2>
              <ServeSwitch a={a} wanted={wanted[a.name]} onChange={(on) => void serve(a, on)} />
            </div>
            <p id={`state-${a.name}`} className={`api-state ${state.kind}`}>
              <span className="api-dot" aria-hidden="true" />
              <InlineText text={state.text} />
            </p>
            {a.state === 'loading' && wanted[a.name] === undefined ? (
              <div className="api-loading">
                <progress
                  aria-label={`Loading ${a.name}`}
                  aria-valuetext={a.progress ? progressWords(a.progress) : 'starting'}
                  max={100}
                  {...(a.progress ? { value: a.progress.percent } : {})}
                />
                <button type="button" className="small" onClick={() => void serve(a, false)}>
                  Cancel loading<span className="visually-hidden"> {a.name}</span>
                </button>
              </div>
            ) : null}
            {p?.description ? <p className="muted">{p.description}</p> : null}
            <dl className="facts">
              <ReachedAs a={a} />
              <dt>Document</dt>
              <dd>
                <code>{a.spec || '—'}</code>
              </dd>
              <dt>Base URL</dt>
              <dd>{a.baseUrl ?? "the document's"}</dd>
              <dt>Auth</dt>
              <dd>{a.auth ?? "the document's"}</dd>
              <dt>Last used</dt>
              <dd>
                <LastUsed at={latest(a.lastUsed, calledAt[a.name])} />
              </dd>
              <dt>Mutations</dt>
              <dd>{p ? (p.readOnly ? 'refused (read-only)' : p.policy) : '—'}</dd>
              <dt>Key</dt>
              <dd>
                {key.kind === 'set' || (key.kind === 'not-needed' && key.stored) ? (
                  <>
                    {key.kind === 'set'
                      ? `set: ${key.fingerprint} (in ${key.from})`
                      : `${key.stored!.fingerprint} (in ${key.stored!.source === 'file' ? 'the plaintext key file' : 'the OS keychain'}), not sent: this API sends no key`}{' '}
                    {keys.data?.some((k) => k.profile === a.name) ? (
                      <button
                        type="button"
                        className="small"
                        onClick={() =>
                          void api.call('keys.remove', { profile: a.name }).then(
                            () => done(`Key for ${a.name} removed.`),
                            (e: Error) => done(e.message),
                          )
                        }
                      >
                        Remove key<span className="visually-hidden"> for {a.name}</span>
                      </button>
                    ) : null}
                  </>
                ) : key.kind === 'not-needed' ? (
                  'not needed: this API sends no key'
                ) : key.kind === 'unknown' ? (
                  <>
                    unknown: the keychain cannot be read here, and <code>{a.keyEnv}</code> is not set
                  </>
                ) : (
                  <MissingKey a={a} />
                )}
              </dd>
            </dl>
            <KeyForm profile={a.name} keyEnv={a.keyEnv} onDone={done} sendsKey={a.auth !== 'none'} {...(store ? { store } : {})} />
            {a.state === 'ready' && p ? (
              <details
                className="api-ops"
                open={open}
                onToggle={(e) => {
                  const now = e.currentTarget.open;
                  if (now !== open) setOpened((o) => ({ ...o, [a.name]: now }));
                }}
              >
                <summary>
                  Operations and their policy <span className="muted">({a.operations ?? 0})</span>
                </summary>
                {open ? <OperationPolicies profile={p} /> : null}
              </details>
            ) : a.state === 'loading' ? (
              <p className="hint">Its operations and their policies are listed once it is loaded.</p>
            ) : null}
          </section>
        );
      })}
      <AddProfile
        onSaved={(m) => {
          done(m);
          apis.reload();
          profiles.reload();
        }}
      />
    </div>
  );
}
