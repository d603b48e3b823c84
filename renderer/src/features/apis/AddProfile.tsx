// Add an API: a document by URL or file path, read first (progress while it
// loads; a broken document is reported with where it breaks), then saved as
// a profile with its base URL, auth scheme and mutation policy, and served at
// once (no restart) unless the person leaves it off. A name that is already
// taken (a saved profile, a built-in one, one served from the command line)
// is never silently overwritten: the form says so next to the name, and
// saving needs an explicit "replace" (the core refuses it otherwise).
import { useState } from 'react';
import type { ControlOutput } from '../../../../contract/control.ts';
import { PROFILE_NAME_PATTERN } from '../../../../contract/profiles.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useCall, useControlEvents } from '../../api/hooks.ts';
import type { ApiProgress } from '../../../../contract/apis.ts';
import { progressWords } from './progressWords.ts';
import { InlineText } from '../../components/InlineText.tsx';
import { messageOf } from '../../../../contract/values.ts';

type Summary = ControlOutput<'profiles.inspect'>;

export function AddProfile({ onSaved }: { onSaved(message: string): void }) {
  const { api } = useControl();
  const [spec, setSpec] = useState('');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [auth, setAuth] = useState('');
  const [policy, setPolicy] = useState<'ask' | 'allow' | 'deny'>('ask');
  const [serveNow, setServeNow] = useState(true);
  const profiles = useCall('profiles.list', {});
  /** The person confirmed that saving replaces the profile of this name. */
  const [replacing, setReplacing] = useState<string>();
  /** A name the core said is taken (it may not be listed yet: saved from elsewhere meanwhile). */
  const [takenHere, setTakenHere] = useState<string>();
  const [state, setState] = useState<{ phase: 'idle' | 'loading' | 'loaded' | 'failed' | 'saving'; summary?: Summary; error?: string; startedAt?: number }>({
    phase: 'idle',
  });
  /** How far reading the document is, as the companion says (for the document being read). */
  const [reading, setReading] = useState<{ spec: string; progress: ApiProgress }>();
  useControlEvents((events) => {
    for (const e of events)
      if (e.type === 'inspect-progress' && state.phase === 'loading' && e.spec === spec.trim()) setReading({ spec: e.spec, progress: e.progress });
  });
  const inspect = async () => {
    setReading(undefined);
    setState({ phase: 'loading', startedAt: Date.now() });
    try {
      const summary = await api.call('profiles.inspect', { spec: spec.trim() });
      setState({ phase: 'loaded', summary });
      if (!baseUrl && summary.servers[0]) setBaseUrl(summary.servers[0]);
      if (!auth) setAuth(summary.auth);
      if (!name) setName(suggestName(summary.title));
    } catch (error) {
      setState({ phase: 'failed', error: messageOf(error) });
    }
  };
  const wanted = name.trim();
  const listed = profiles.data?.find((p) => p.name === wanted);
  const taken = listed
    ? listed.origin === 'adhoc'
      ? 'running'
      : listed.origin === 'preset'
        ? 'built-in'
        : 'saved'
    : takenHere === wanted
      ? 'saved'
      : undefined;
  const nameProblem =
    wanted && !PROFILE_NAME_PATTERN.test(wanted) ? 'Use lowercase letters, digits, - and _ (at most 40), starting with a letter or digit.' : undefined;
  const confirmed = taken !== undefined && replacing === wanted;
  const save = async () => {
    if (!wanted || nameProblem || (taken && !confirmed)) return;
    setState((s) => ({ ...s, phase: 'saving', error: undefined }));
    try {
      const r = await api.call('profiles.save', {
        name: wanted,
        spec: spec.trim(),
        policy,
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(auth.trim() ? { auth: auth.trim() } : {}),
        ...(confirmed ? { replace: true } : {}),
        ...(serveNow ? {} : { enabled: false }),
      });
      onSaved(
        `Profile ${wanted} ${confirmed ? 'replaced' : 'saved'}: ${r.file}. ${
          serveNow ? 'It is switched on: every client can use it once it is loaded (its state is below).' : 'It is off: switch it on below to serve it.'
        }`,
      );
      profiles.reload();
      setSpec('');
      setName('');
      setBaseUrl('');
      setAuth('');
      setReplacing(undefined);
      setServeNow(true);
      setState({ phase: 'idle' });
    } catch (error) {
      if (error instanceof ControlError && error.code === 'conflict') {
        // Taken meanwhile (or not listed): the same question as for a listed name.
        setTakenHere(wanted);
        profiles.reload();
        setState((s) => ({ ...s, phase: 'loaded' }));
      } else setState((s) => ({ ...s, phase: 'loaded', error: messageOf(error) }));
    }
  };
  const s = state.summary;
  return (
    <section className="card" aria-labelledby="add-api">
      <h2 id="add-api">Add an API</h2>
      <form
        className="settings"
        aria-label="Add an API"
        onSubmit={(e) => {
          e.preventDefault();
          void (state.phase === 'loaded' ? save() : inspect());
        }}
      >
        <div className="field">
          <label htmlFor="add-spec">OpenAPI document (http(s) URL or absolute file path)</label>
          <input
            id="add-spec"
            value={spec}
            spellCheck={false}
            onChange={(e) => {
              setSpec(e.target.value);
              if (state.phase !== 'idle') setState({ phase: 'idle' });
            }}
          />
          <button type="button" disabled={!spec.trim() || state.phase === 'loading'} onClick={() => void inspect()}>
            Read document
          </button>
        </div>
        {state.phase === 'loading' ? (
          <p role="status">
            {reading?.spec === spec.trim() ? (
              <>
                <progress aria-label="Reading the document" aria-valuetext={progressWords(reading.progress)} max={100} value={reading.progress.percent} />{' '}
                Reading the document: {progressWords(reading.progress)}…
              </>
            ) : (
              <>
                <progress aria-label="Reading the document" /> Reading the document (it is prepared apart: clients are served meanwhile)…
              </>
            )}
          </p>
        ) : null}
        {state.phase === 'failed' ? (
          <p role="alert">
            The document cannot be used: <InlineText text={state.error} />
          </p>
        ) : null}
        {s ? (
          <>
            <p role="status">
              {s.title} {s.version}: {s.operations} operations ({s.mutations} mutations), read in {s.loadMs} ms.
            </p>
            {s.warnings.length > 0 ? (
              <ul className="warning" aria-label="Warnings">
                {s.warnings.map((w) => (
                  <li key={w}>
                    <InlineText text={w} />
                  </li>
                ))}
              </ul>
            ) : null}
            <div className="field">
              <label htmlFor="add-name">Profile name</label>
              <input
                id="add-name"
                value={name}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => setName(e.target.value)}
                aria-describedby={`add-name-hint${taken ? ' add-name-taken' : ''}${nameProblem ? ' add-name-error' : ''}`}
                {...(nameProblem ? { 'aria-invalid': true, 'aria-errormessage': 'add-name-error' } : {})}
              />
              <p id="add-name-hint" className="hint">
                Lowercase letters, digits, - and _.
              </p>
              {nameProblem ? (
                <p id="add-name-error" className="error">
                  {nameProblem}
                </p>
              ) : null}
              {taken ? (
                <div className="name-taken">
                  <p id="add-name-taken" className="warning">
                    {taken === 'built-in'
                      ? `${wanted} is a built-in profile: saving puts yours in its place (the built-in one comes back if you remove yours).`
                      : taken === 'running'
                        ? `${wanted} is served from the command line (--spec): saving replaces it with yours, at once.`
                        : `A profile named ${wanted} already exists: saving replaces it.`}{' '}
                    Choose another name, or confirm.
                  </p>
                  <label className="inline-check">
                    <input type="checkbox" checked={confirmed} onChange={(e) => setReplacing(e.target.checked ? wanted : undefined)} /> Replace the existing
                    profile {wanted}
                  </label>
                </div>
              ) : null}
            </div>
            <div className="field">
              <label htmlFor="add-base">Base URL</label>
              <input id="add-base" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} list="add-servers" />
              <datalist id="add-servers">
                {s.servers.map((u) => (
                  <option key={u} value={u} />
                ))}
              </datalist>
            </div>
            <div className="field">
              <label htmlFor="add-auth">Auth scheme</label>
              <input id="add-auth" value={auth} onChange={(e) => setAuth(e.target.value)} aria-describedby="add-auth-hint" />
              <p id="add-auth-hint" className="hint">
                none, bearer, basic (the key is username:password), header:NAME, query:NAME or cookie:NAME (read from the document: {s.auth}).
              </p>
            </div>
            <div className="field">
              <label htmlFor="add-policy">Mutations</label>
              <select id="add-policy" value={policy} onChange={(e) => setPolicy(e.target.value as typeof policy)}>
                <option value="ask">ask (a person approves each)</option>
                <option value="allow">allow</option>
                <option value="deny">deny</option>
              </select>
            </div>
            <div className="field">
              <label className="inline-check">
                <input type="checkbox" checked={serveNow} onChange={(e) => setServeNow(e.target.checked)} /> Serve it now, to every client (no restart)
              </label>
            </div>
            {state.error ? (
              <p role="alert">
                <InlineText text={state.error} />
              </p>
            ) : null}
            <button
              type="submit"
              className={confirmed ? 'danger' : undefined}
              disabled={!wanted || Boolean(nameProblem) || (taken !== undefined && !confirmed) || state.phase === 'saving'}
            >
              {confirmed ? `Replace profile ${wanted}` : 'Save profile'}
            </button>
          </>
        ) : null}
      </form>
    </section>
  );
}

function suggestName(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/\bapi\b/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'api'
  );
}
