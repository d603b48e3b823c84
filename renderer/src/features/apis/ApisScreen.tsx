// APIs: the profiles, and the API key of each — entered once, write-only,
// kept in the OS keychain (or, loudly, a plaintext file the person opted in
// to), shown afterwards only as its fingerprint. When the keychain cannot be
// used, the key field says why and what to do instead of failing on Store.
import { useState } from 'react';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { ControlError } from '../../../../contract/controlApi.ts';
import type { SecretStoreView } from '../../../../contract/status.ts';
import { SecretStoreNotice, Words } from '../overview/SecretStoreFacts.tsx';
import { OperationPolicies } from './OperationPolicies.tsx';
import { AddProfile } from './AddProfile.tsx';
import { InlineText } from '../../components/InlineText.tsx';

/** A store failure in plain words (the status's), not the library's message. */
function keyError(error: unknown, store: SecretStoreView | undefined): string {
  if (error instanceof ControlError && error.code === 'unavailable' && store && !store.available) {
    return `The key was not stored: ${store.problem ?? 'the keychain cannot be used'} ${store.action ?? ''}`.trim();
  }
  return (error as Error).message;
}

function KeyForm({ profile, onDone, store, sendsKey }: { profile: string; onDone(message: string): void; store?: SecretStoreView; sendsKey: boolean }) {
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
          <Words text={store.action} />
          {store.osKeychain ? (
            <>
              {' '}
              Or give the key in <code>AIRLOCK_API_KEY</code>, or start Airlock with <code>--secret-store file</code> (a plaintext file; see above).
            </>
          ) : null}
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
      {message ? (
        <p role="status">
          <InlineText text={message} />
        </p>
      ) : null}
      {status.data ? (
        <p>
          API keys are kept in {status.data.secretStore.osKeychain ? `the OS keychain: ${status.data.secretStore.where}` : status.data.secretStore.where}. A key
          is never shown again: only its fingerprint.
        </p>
      ) : null}
      {status.data ? <SecretStoreNotice store={status.data.secretStore} /> : null}
      {(profiles.data ?? []).map((p) => {
        const key = keys.data?.find((k) => k.profile === p.name);
        const sendsKey = (p.active && status.data ? status.data.api.auth : p.auth) !== 'none';
        const storeDown = status.data !== undefined && !status.data.secretStore.available;
        return (
          <section key={p.name} aria-labelledby={`profile-${p.name}`} className="card">
            <h2 id={`profile-${p.name}`}>
              {p.name} {p.active ? <span className="tag">active</span> : null}
            </h2>
            {p.error ? (
              <p className="error">
                <InlineText text={p.error} />
              </p>
            ) : null}
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
                    {key.fingerprint} (in {key.source === 'file' ? 'the plaintext key file' : 'the OS keychain'})
                    {!sendsKey ? ', not sent: this API sends no key' : ''}{' '}
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
                ) : !sendsKey ? (
                  'none needed: this API sends no key'
                ) : storeDown ? (
                  'unknown: the keychain cannot be read here'
                ) : (
                  'none'
                )}
              </dd>
            </dl>
            <KeyForm profile={p.name} onDone={done} sendsKey={sendsKey} {...(status.data ? { store: status.data.secretStore } : {})} />
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
