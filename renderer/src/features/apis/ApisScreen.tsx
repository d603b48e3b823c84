// APIs: the profiles, and the API key of each — entered once, write-only,
// kept in the OS keychain, shown afterwards only as its fingerprint.
import { useState } from 'react';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { OperationPolicies } from './OperationPolicies.tsx';
import { AddProfile } from './AddProfile.tsx';

function KeyForm({ profile, onDone }: { profile: string; onDone(message: string): void }) {
  const { api } = useControl();
  const [secret, setSecret] = useState('');
  const id = `key-${profile}`;
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        const value = secret;
        setSecret('');
        api.call('keys.set', { profile, secret: value }).then(
          (r) => onDone(`Key for ${profile} stored (${r.fingerprint}).`),
          (error: Error) => onDone(error.message),
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

export function ApisScreen() {
  const { api } = useControl();
  const profiles = useCall('profiles.list', {});
  const keys = useCall('keys.list', {});
  const status = useCall('status', {});
  const [message, setMessage] = useState<string>();
  const done = (m: string) => {
    setMessage(m);
    keys.reload();
    status.reload();
  };
  return (
    <div className="screen">
      <h1>APIs</h1>
      {message ? <p role="status">{message}</p> : null}
      {status.data && !status.data.keychain.available ? (
        <p role="alert" className="warning">
          {status.data.keychain.detail}. Keys cannot be stored until the keychain works; AIRLOCK_API_KEY still does.
        </p>
      ) : null}
      {(profiles.data ?? []).map((p) => {
        const key = keys.data?.find((k) => k.profile === p.name);
        return (
          <section key={p.name} aria-labelledby={`profile-${p.name}`} className="card">
            <h2 id={`profile-${p.name}`}>
              {p.name} {p.active ? <span className="tag">active</span> : null}
            </h2>
            {p.error ? <p className="error">{p.error}</p> : null}
            <dl className="facts">
              <dt>Document</dt>
              <dd>
                <code>{p.spec}</code>
              </dd>
              <dt>Base URL</dt>
              <dd>{p.baseUrl ?? "the document's"}</dd>
              <dt>Auth</dt>
              <dd>{p.auth ?? "the document's"}</dd>
              <dt>Mutations</dt>
              <dd>{p.readOnly ? 'refused (read-only)' : p.policy}</dd>
              <dt>Key</dt>
              <dd>
                {key ? (
                  <>
                    {key.fingerprint} (from {key.source}){' '}
                    <button
                      type="button"
                      className="small"
                      onClick={() =>
                        void api.call('keys.remove', { profile: p.name }).then(
                          () => done(`Key for ${p.name} removed.`),
                          (e: Error) => done(e.message),
                        )
                      }
                    >
                      Remove key<span className="visually-hidden"> for {p.name}</span>
                    </button>
                  </>
                ) : (
                  'none'
                )}
              </dd>
            </dl>
            <KeyForm profile={p.name} onDone={done} />
            {p.active ? <OperationPolicies profile={p} /> : null}
          </section>
        );
      })}
      <AddProfile
        onSaved={(m) => {
          done(m);
          profiles.reload();
        }}
      />
    </div>
  );
}
