// Where API keys live, in plain words: the OS keychain, or (loudly) a
// plaintext file; when the store cannot be used, what is wrong, what to do
// and the other ways to give a key. The store's own technical words are one
// click away, never the headline. Shared by the Overview and the APIs screen.
import type { SecretStoreView } from '../../../../contract/status.ts';
import './overview.css';

/** A sentence from the core, its `commands` set as code. */
export function Words({ text }: { text: string | undefined }) {
  if (!text) return null;
  return <>{text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

/** The explanation of a store that cannot be used (or of the plaintext file), as a block. */
export function SecretStoreNotice({ store, id }: { store: SecretStoreView; id?: string }) {
  if (store.available && !store.plaintext) return null;
  return (
    <div className={`store-notice ${store.available ? 'plaintext' : 'unavailable'}`} id={id}>
      {store.available ? (
        <p>
          <strong>Plaintext key file.</strong> <Words text={store.warning} />
        </p>
      ) : (
        <>
          <p>
            <strong>Keys cannot be stored here.</strong> <Words text={store.problem} />
          </p>
          {store.action ? (
            <p>
              What to do: <Words text={store.action} />
            </p>
          ) : null}
          {store.alternatives ? (
            <p>
              <Words text={store.alternatives} />
            </p>
          ) : null}
          {store.plaintext && store.warning ? (
            <p>
              <Words text={store.warning} />
            </p>
          ) : null}
        </>
      )}
      {!store.available ? (
        <details>
          <summary>Technical detail</summary>
          <p>
            <code>{store.detail}</code>
          </p>
        </details>
      ) : null}
    </div>
  );
}

/** The "Keys kept in" line of a facts list. */
export function SecretStoreFacts({ store }: { store: SecretStoreView }) {
  return (
    <>
      <dt>Keys kept in</dt>
      <dd>
        {store.osKeychain ? `the OS keychain: ${store.where}` : store.where}
        {store.available ? '' : ' (not usable here)'}
        <SecretStoreNotice store={store} />
      </dd>
    </>
  );
}
