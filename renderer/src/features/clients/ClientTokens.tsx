// HTTP clients' own tokens, on the Clients screen: each client that connects
// over HTTP can have a bearer token of its own, so Airlock knows which client
// calls from its token (never from the name it declares) and one client can be
// cut off alone. A token is shown once, in the answer that made it, with how
// to pass it; the list shows names, fingerprints and scopes, never a token.
// Revoking asks once more, in place; the client's next request is refused.
// The same as `airlock clients token add|list|revoke`.
import { useRef, useState, type FormEvent } from 'react';
import type { ApiView } from '../../../../contract/apis.ts';
import type { ClientTokenView } from '../../../../contract/clients.ts';
import type { ControlOutput } from '../../../../contract/control.ts';
import { messageOf } from '../../../../contract/values.ts';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useStatus } from '../../api/StatusProvider.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { ApiPicker, reachOf } from './ApiPicker.tsx';

type Made = ControlOutput<'clientTokens.create'>;

function TokenRow({ token, onRevoked }: { token: ClientTokenView; onRevoked(message: ScreenMessage): void }) {
  const { api } = useControl();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<ScreenMessage>();
  const revokeButton = useRef<HTMLButtonElement>(null);
  const revoke = async () => {
    setBusy(true);
    try {
      const r = await api.call('clientTokens.revoke', { id: token.id });
      onRevoked({ kind: 'status', text: `Revoked the token of ${r.revoked.name}: its next request is refused.` });
    } catch (error) {
      setMessage({ kind: 'alert', text: messageOf(error) });
      setBusy(false);
    }
  };
  return (
    <tr>
      <th scope="row">{token.name}</th>
      <td>
        <code>sha256:{token.fingerprint}</code>
      </td>
      <td>{token.scope ? `only ${token.scope.join(', ')}` : 'every API served'}</td>
      <td>{new Date(token.createdAt).toLocaleString()}</td>
      <td>
        {confirming ? (
          <span role="group" aria-label={`Revoke the token of ${token.name}?`}>
            <span>Its next request is refused. </span>
            <button type="button" className="danger" disabled={busy} onClick={() => void revoke()} autoFocus>
              Revoke {token.name}
            </button>{' '}
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
                requestAnimationFrame(() => revokeButton.current?.focus());
              }}
            >
              Keep
            </button>
          </span>
        ) : (
          <button type="button" ref={revokeButton} onClick={() => setConfirming(true)} aria-label={`Revoke the token of ${token.name}…`}>
            Revoke…
          </button>
        )}
        <Message message={message} />
      </td>
    </tr>
  );
}

function NewToken({ apis, onMade, onCancel }: { apis: readonly ApiView[] | undefined; onMade(made: Made): void; onCancel(): void }) {
  const { api } = useControl();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<string[] | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<ScreenMessage>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setMessage(undefined);
    try {
      onMade(await api.call('clientTokens.create', { name, ...(scope ? { apis: scope } : {}) }));
    } catch (error) {
      // What was typed stays: the name is corrected in place.
      setMessage({ kind: 'alert', text: messageOf(error) });
      setBusy(false);
    }
  };
  return (
    <form aria-label="New client token" className="client-token-form" onSubmit={(e) => void submit(e)}>
      <label>
        Client name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus aria-describedby="client-token-name-hint" />
      </label>
      <p id="client-token-name-hint" className="hint">
        Letters, digits, spaces, '.', '-', '_' or '@'; one token per name. It labels the client in Activity and Rules.
      </p>
      <ApiPicker idPrefix="client-token" clientLabel="this client" apis={apis} registered={undefined} scope={scope} onChange={setScope} focusFirst={false} />
      <div>
        <button type="submit" className="primary" disabled={busy || scope?.length === 0}>
          Make the token
        </button>{' '}
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
      <Message message={message} />
    </form>
  );
}

export function ClientTokens({ apis }: { apis: readonly ApiView[] | undefined }) {
  const tokens = useCall('clientTokens.list', {});
  const http = useStatus().data?.endpoints.http;
  const [adding, setAdding] = useState(false);
  const [made, setMade] = useState<Made>();
  const [message, setMessage] = useState<ScreenMessage>();
  /** Where the keyboard goes when what it was on goes away (a revoked row, the hidden token). */
  const newButton = useRef<HTMLButtonElement>(null);
  const focusNew = () => requestAnimationFrame(() => newButton.current?.focus());
  const list = tokens.data ?? [];
  return (
    <section aria-labelledby="client-tokens-title" className="client-tokens">
      <h2 id="client-tokens-title">HTTP clients' own tokens</h2>
      <p className="hint">
        A client that connects over HTTP{http ? ` (${http})` : ''} can have a token of its own instead of the companion's: Airlock then knows which client calls
        from its token, never from the name it gives, and you can cut one client off alone. The same from a terminal:{' '}
        <code>airlock clients token add NAME --api API</code>.
      </p>
      {made ? (
        <div role="status" className="client-token-made">
          <p>
            Token for {made.view.name} (<code>sha256:{made.view.fingerprint}</code>), reaching {reachOf(made.view.scope)}. It is shown this once: Airlock keeps
            only its hash.
          </p>
          <p>
            <code className="client-token-value">{made.token}</code> <CopyButton text={made.token} label={`Copy the token of ${made.view.name}`} />
          </p>
          <p className="hint">
            Give it to the client as its header <code>Authorization: Bearer &lt;token&gt;</code>
            {http ? (
              <>
                {' '}
                for <code>{http}</code>
              </>
            ) : null}
            .
          </p>
          <button
            type="button"
            onClick={() => {
              setMade(undefined);
              focusNew();
            }}
          >
            Done: hide the token
          </button>
        </div>
      ) : null}
      <Message message={message} />
      {adding ? (
        <NewToken
          apis={apis}
          onCancel={() => {
            setAdding(false);
            focusNew();
          }}
          onMade={(m) => {
            setAdding(false);
            setMessage(undefined);
            setMade(m);
            tokens.reload();
          }}
        />
      ) : (
        <button
          type="button"
          ref={newButton}
          onClick={() => {
            setMade(undefined);
            setAdding(true);
          }}
        >
          New client token…
        </button>
      )}
      {tokens.error ? <Message message={{ kind: 'alert', text: tokens.error.message }} /> : null}
      {tokens.data && list.length === 0 ? <p>No client has a token of its own: every HTTP client uses the companion's token.</p> : null}
      {list.length > 0 ? (
        <TableScroll label="Client tokens">
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col">Token</th>
                <th scope="col">Reaches</th>
                <th scope="col">Made</th>
                <th scope="col">
                  <span className="visually-hidden">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <TokenRow
                  key={t.id}
                  token={t}
                  onRevoked={(m) => {
                    setMessage(m);
                    if (made?.view.id === t.id) setMade(undefined);
                    tokens.reload();
                    focusNew();
                  }}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </section>
  );
}
