// Clients: every MCP client on this machine with its registration (✔
// registered, outdated, broken, not registered, not installed) and the APIs
// it reaches, and one-click add and remove that show the diff (coloured:
// added, removed) before writing, keep a backup, verify with a real handshake
// and say what to do next; undo, enabled only when there is a change to undo;
// install links. Adding (or changing a registration) lets the person pick the
// APIs the client reaches: every API served (the default, no scope), or only
// those checked; the diff follows the choice. Below them, HTTP clients' own
// tokens (ClientTokens.tsx).
import { useRef, useState } from 'react';
import type { ClientStatusView } from '../../../../contract/clients.ts';
import type { ApiView } from '../../../../contract/apis.ts';
import type { ControlOutput } from '../../../../contract/control.ts';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { DiffView } from '../../components/DiffView.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { ApiPicker, reachOf, sameScope } from './ApiPicker.tsx';
import { ClientTokens } from './ClientTokens.tsx';
import { messageOf } from '../../../../contract/values.ts';

type Change = ControlOutput<'clients.change'>;

const STATE: Record<ClientStatusView['state'], string> = {
  registered: '✔ Registered',
  'not-registered': 'Not registered',
  outdated: 'Outdated',
  broken: 'File broken',
  'not-installed': 'Not installed',
};

/** "today at 14:02", or the date and time. */
function when(iso: string): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? `today at ${time}` : `${d.toLocaleDateString()} at ${time}`;
}

function ClientRow({ client, apis, onChanged }: { client: ClientStatusView; apis: readonly ApiView[] | undefined; onChanged(): void }) {
  const { api } = useControl();
  const [plan, setPlan] = useState<Change>();
  const [done, setDone] = useState<Change>();
  const [message, setMessage] = useState<ScreenMessage>();
  const [busy, setBusy] = useState(false);
  /** Adding: the scope picked (undefined: every API served); absent while not adding. */
  const [adding, setAdding] = useState<{ scope: string[] | undefined }>();
  /** The latest dry run asked for: an older answer arriving late is dropped. */
  const asked = useRef(0);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setMessage(undefined);
    try {
      await fn();
    } catch (error) {
      setMessage({ kind: 'alert', text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };
  const preview = (action: 'remove') =>
    run(async () => {
      setDone(undefined);
      setAdding(undefined);
      const r = await api.call('clients.change', { id: client.id, action, dryRun: true });
      if (!r.changed) setMessage({ kind: 'status', text: 'Nothing to do: not registered.' });
      else setPlan(r);
    });
  /** The diff of an add with this scope (none for a scope that names no API: nothing can be written). The diff shown stays until the new one comes. */
  const previewAdd = (scope: string[] | undefined) => {
    const mine = ++asked.current;
    setAdding({ scope });
    setPlan((p) => (p?.action === 'add' ? p : undefined));
    setDone(undefined);
    if (scope && scope.length === 0) return;
    void run(async () => {
      const r = await api.call('clients.change', { id: client.id, action: 'add', dryRun: true, ...(scope ? { apis: scope } : {}) });
      if (mine === asked.current) setPlan(r);
    });
  };
  const close = () => {
    asked.current++;
    setPlan(undefined);
    setAdding(undefined);
  };
  const write = () =>
    run(async () => {
      const scope = plan!.action === 'add' ? adding?.scope : undefined;
      const r = await api.call('clients.change', { id: client.id, action: plan!.action, ...(scope ? { apis: scope } : {}) });
      close();
      setDone(r);
      onChanged();
    });
  const undo = () =>
    run(async () => {
      const r = await api.call('clients.undo', { id: client.id });
      setDone(undefined);
      setMessage({
        kind: 'status',
        text: r.restored === 'previous' ? `${r.file} is back as it was before the last change.` : `${r.file} removed: it did not exist before.`,
      });
      onChanged();
    });
  const canAdd = client.state === 'not-registered' || client.state === 'outdated';
  const canRescope = client.state === 'registered';
  const canRemove = client.state === 'registered' || client.state === 'outdated';
  const addLabel = canRescope ? `Change the APIs ${client.label} reaches…` : `${client.state === 'outdated' ? 'Update' : 'Add'} Airlock to ${client.label}…`;
  // The plan shown is the one for the scope picked (a newer choice waits for its dry run).
  const current = plan && (plan.action === 'remove' || (adding !== undefined && sameScope(plan.apis, adding.scope)));
  const noApi = adding?.scope?.length === 0;
  return (
    <section className="card" aria-labelledby={`client-${client.id}`}>
      <h2 id={`client-${client.id}`}>
        {client.label} <span className={`tag state-${client.state}`}>{STATE[client.state]}</span>
      </h2>
      <dl className="facts">
        {client.file ? (
          <>
            <dt>Configuration</dt>
            <dd>
              <code>{client.file}</code> {client.via === 'cli' ? '(changed with its own CLI)' : ''}
            </dd>
          </>
        ) : null}
        {client.reason ? (
          <>
            <dt>{client.state === 'not-installed' ? 'Why' : 'Detail'}</dt>
            <dd>
              <InlineText text={client.reason} />
            </dd>
          </>
        ) : null}
        {client.state === 'registered' ? (
          <>
            <dt>APIs</dt>
            <dd>{reachOf(client.apis)}</dd>
          </>
        ) : null}
        <dt>Approvals</dt>
        <dd>{client.elicitation ? 'in Airlock, or asked in the client (it supports elicitation)' : 'in Airlock (this client cannot ask for them)'}</dd>
      </dl>
      <p className="toolbar">
        {canAdd || canRescope ? (
          <button type="button" disabled={busy} onClick={() => previewAdd(client.apis)}>
            {addLabel}
          </button>
        ) : null}
        {canRemove ? (
          <button type="button" disabled={busy} onClick={() => void preview('remove')}>
            Remove from {client.label}…
          </button>
        ) : null}
        {client.state !== 'not-installed' ? (
          <button type="button" disabled={busy || !client.lastChangeAt} onClick={() => void undo()} aria-describedby={`undo-${client.id}`}>
            Undo the last change<span className="visually-hidden"> to {client.label}</span>
          </button>
        ) : null}
        {client.state !== 'not-installed' ? (
          <span id={`undo-${client.id}`} className="hint">
            {client.lastChangeAt ? `Last change by Airlock: ${when(client.lastChangeAt)}.` : 'Nothing to undo: Airlock has not changed this file.'}
          </span>
        ) : null}
        {client.installLink ? <CopyButton text={client.installLink} label={`Copy the install link for ${client.label}`} /> : null}
      </p>
      {plan || adding ? (
        <div role="group" aria-label={`The change to ${client.label}`}>
          {adding ? (
            <ApiPicker
              idPrefix={`client-${client.id}`}
              clientLabel={client.label}
              apis={apis}
              registered={client.state === 'registered' ? client.apis : undefined}
              scope={adding.scope}
              onChange={previewAdd}
            />
          ) : null}
          {noApi ? null : !plan ? (
            <p role="status">Preparing the change…</p>
          ) : current && !plan.changed ? (
            <p role="status">
              No change: {client.label} already reaches {reachOf(plan.apis)}.
            </p>
          ) : (
            <>
              <p>
                {plan.via === 'cli' ? `Airlock will run ${plan.command!.join(' ')}, which makes this change` : `Airlock will write this change to ${plan.file}`}{' '}
                (a backup is kept){current ? ':' : ' — updating for your choice…'}
              </p>
              <DiffView diff={plan.diff} />
            </>
          )}
          <button type="button" className="primary" disabled={busy || noApi || !current || !plan.changed} onClick={() => void write()}>
            Write it
          </button>{' '}
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      ) : null}
      {done ? (
        <div role="status">
          <p>
            {done.action === 'add' ? 'Registered' : 'Removed'}: {done.file} (previous version kept in {done.backup}).
            {done.action === 'add' ? ` ${client.label} reaches ${reachOf(done.apis)}.` : ''}
          </p>
          {done.handshake ? (
            <p>
              {done.handshake.ok ? (
                `✔ The command answers: ${done.handshake.tools.join(', ')}.`
              ) : (
                <>
                  ✘ The command does not answer: <InlineText text={done.handshake.reason} />.
                </>
              )}
            </p>
          ) : null}
          <p>
            Then: <InlineText text={done.afterwards} />.
          </p>
        </div>
      ) : null}
      <Message message={message} />
    </section>
  );
}

export function ClientsScreen() {
  const clients = useCall('clients.list', {});
  const apis = useCall('apis.list', {}, { refreshOn: ['apis-changed'] });
  const list = clients.data ?? [];
  const installed = list.filter((c) => c.state !== 'not-installed');
  const absent = list.filter((c) => c.state === 'not-installed');
  return (
    <div className="screen">
      <h1>Clients</h1>
      <p className="hint">
        Each client starts Airlock over stdio with an absolute path and no secret in its file, and reaches every API served or only those you pick. The same
        from a terminal: <code>airlock clients add NAME --api API</code>.
      </p>
      {clients.error ? (
        <p role="alert">
          <InlineText text={clients.error.message} />
        </p>
      ) : null}
      {!clients.data && !clients.error ? <p role="status">Looking for clients…</p> : null}
      {installed.map((c) => (
        <ClientRow key={c.id} client={c} apis={apis.data} onChanged={clients.reload} />
      ))}
      <ClientTokens apis={apis.data} />
      {absent.length > 0 ? (
        <section aria-labelledby="absent-title">
          <h2 id="absent-title">Not found on this machine</h2>
          <ul>
            {absent.map((c) => (
              <li key={c.id}>
                {c.label}: <InlineText text={c.reason} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
