// Add an API: a document by URL or file path, read first (progress while it
// loads; a broken document is reported with where it breaks), then saved as
// a profile with its base URL, auth scheme and mutation policy.
import { useState } from 'react';
import type { ControlOutput } from '../../../../contract/control.ts';
import { useControl } from '../../api/ControlProvider.tsx';

type Summary = ControlOutput<'profiles.inspect'>;

export function AddProfile({ onSaved }: { onSaved(message: string): void }) {
  const { api } = useControl();
  const [spec, setSpec] = useState('');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [auth, setAuth] = useState('');
  const [policy, setPolicy] = useState<'ask' | 'allow' | 'deny'>('ask');
  const [state, setState] = useState<{ phase: 'idle' | 'loading' | 'loaded' | 'failed' | 'saving'; summary?: Summary; error?: string; startedAt?: number }>({
    phase: 'idle',
  });
  const inspect = async () => {
    setState({ phase: 'loading', startedAt: Date.now() });
    try {
      const summary = await api.call('profiles.inspect', { spec: spec.trim() });
      setState({ phase: 'loaded', summary });
      if (!baseUrl && summary.servers[0]) setBaseUrl(summary.servers[0]);
      if (!auth) setAuth(summary.auth);
      if (!name) setName(suggestName(summary.title));
    } catch (error) {
      setState({ phase: 'failed', error: (error as Error).message });
    }
  };
  const save = async () => {
    setState((s) => ({ ...s, phase: 'saving' }));
    try {
      const r = await api.call('profiles.save', {
        name,
        spec: spec.trim(),
        policy,
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(auth.trim() ? { auth: auth.trim() } : {}),
      });
      onSaved(`Profile ${name} saved to ${r.file}. Start the companion with --profile ${name} to use it.`);
      setSpec('');
      setName('');
      setBaseUrl('');
      setAuth('');
      setState({ phase: 'idle' });
    } catch (error) {
      setState((s) => ({ ...s, phase: 'loaded', error: (error as Error).message }));
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
            <progress aria-label="Reading the document" /> Reading the document (downloads are capped at 64 MB and 20 s)…
          </p>
        ) : null}
        {state.phase === 'failed' ? <p role="alert">The document cannot be used: {state.error}</p> : null}
        {s ? (
          <>
            <p role="status">
              {s.title} {s.version}: {s.operations} operations ({s.mutations} mutations), read in {s.loadMs} ms.
            </p>
            {s.warnings.length > 0 ? (
              <ul className="warning" aria-label="Warnings">
                {s.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            ) : null}
            <div className="field">
              <label htmlFor="add-name">Profile name</label>
              <input id="add-name" value={name} onChange={(e) => setName(e.target.value)} aria-describedby="add-name-hint" />
              <p id="add-name-hint" className="hint">
                Lowercase letters, digits, - and _.
              </p>
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
            {state.error ? <p role="alert">{state.error}</p> : null}
            <button type="submit" disabled={!name || state.phase === 'saving'}>
              Save profile
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
