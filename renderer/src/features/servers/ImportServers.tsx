// Moving the servers each MCP client runs itself behind Airlock
// (`servers.importable`, `servers.import`): per client, each of its servers
// with what it runs, how many values written inline in the client's file
// move into the key store (their names, never their values), or why it
// cannot move. The person picks, previews (a dry run: the client's file
// afterwards as a diff, and those that cannot move with why), and only then
// moves exactly what the preview showed: a changed pick takes the preview
// away. Afterwards the client keeps one entry, Airlock; its file was backed
// up, and Undo on the Clients screen restores it.
import { ErrorAlert } from '../../components/Message.tsx';
import { useEffect, useRef, useState } from 'react';
import type { ControlOutput } from '../../../../contract/control.ts';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { DiffView } from '../../components/DiffView.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { printable } from './serverWords.ts';
import { messageOf } from '../../../../contract/values.ts';

type ImportableClient = ControlOutput<'servers.importable'>[number];
type ImportResult = ControlOutput<'servers.import'>;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const list = (names: readonly string[]) => names.map(printable).join(', ');

/** `onMoved`: what a move did (undefined: a new preview, the last move's outcome goes). */
function ImportClient({ client, taken, onMoved }: { client: ImportableClient; taken: readonly string[]; onMoved(result: ImportResult | undefined): void }) {
  const { api } = useControl();
  const [picked, setPicked] = useState<string[]>([]);
  /** The dry run for exactly `picked` (a new pick takes it away). */
  const [preview, setPreview] = useState<ImportResult>();
  const [busy, setBusy] = useState<'preview' | 'move'>();
  const [error, setError] = useState<string>();
  const asked = useRef(0);
  const id = `import-${client.client}`;
  const movable = client.servers.filter((s) => !s.problem);
  // Those still in the file (a move, or an edit elsewhere, takes some away).
  const chosen = picked.filter((p) => movable.some((s) => s.from === p));

  const pick = (from: string, on: boolean) => {
    asked.current++;
    setPicked((p) => (on ? [...p.filter((x) => x !== from), from] : p.filter((x) => x !== from)));
    setPreview(undefined);
    setError(undefined);
    setBusy(undefined);
  };

  const run = async (dryRun: boolean) => {
    const mine = ++asked.current;
    setBusy(dryRun ? 'preview' : 'move');
    setError(undefined);
    if (dryRun) onMoved(undefined);
    try {
      // The move names the preview's digest: it moves exactly what was shown, or nothing.
      const r = await api.call('servers.import', { client: client.client, servers: chosen, dryRun, ...(!dryRun && preview ? { digest: preview.digest } : {}) });
      if (mine !== asked.current) return;
      if (dryRun) setPreview(r);
      else {
        setPreview(undefined);
        setPicked([]);
        onMoved(r);
      }
    } catch (e) {
      if (mine === asked.current) setError(messageOf(e));
    } finally {
      if (mine === asked.current) setBusy(undefined);
    }
  };

  if (client.error) {
    // Its file could not be read: said, never shown as a client with nothing to move.
    return (
      <section className="import-client" aria-labelledby={`${id}-title`}>
        <h3 id={`${id}-title`}>{client.label}</h3>
        <p className="warning-text">Its configuration file could not be read: {printable(client.error)}</p>
      </section>
    );
  }
  return (
    <section className="import-client" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{client.label}</h3>
      {client.file ? (
        <p className="hint import-file">
          <code>{client.file}</code>
        </p>
      ) : null}
      <fieldset className="import-servers">
        <legend className="visually-hidden">The servers of {client.label} to move behind Airlock</legend>
        <ul>
          {client.servers.map((s) => {
            const boxId = `${id}-${s.from}`.replace(/[^A-Za-z0-9_-]/g, '_');
            const nameTaken = !s.problem && taken.includes(s.name);
            return (
              <li key={s.from} className={s.problem ? 'import-server cannot' : 'import-server'}>
                <label className="inline-check" htmlFor={boxId}>
                  <input
                    id={boxId}
                    type="checkbox"
                    disabled={Boolean(s.problem) || busy === 'move'}
                    checked={chosen.includes(s.from)}
                    aria-describedby={`${boxId}-facts`}
                    onChange={(e) => pick(s.from, e.target.checked)}
                  />{' '}
                  <strong>{printable(s.from)}</strong>
                  {s.name !== s.from ? <span className="muted"> (behind Airlock as {s.name})</span> : null}
                </label>
                <div id={`${boxId}-facts`} className="import-facts">
                  {s.target ? (
                    <p>
                      Runs <code className="server-target">{printable(s.target)}</code>
                    </p>
                  ) : null}
                  {s.problem ? (
                    <p className="warning-text">
                      Cannot move: <InlineText text={printable(s.problem)} />
                    </p>
                  ) : (
                    <p>
                      {s.secrets.length > 0 ? (
                        <>
                          {plural(s.secrets.length, 'value')} written in the file {s.secrets.length === 1 ? 'moves' : 'move'} into the key store:{' '}
                          {s.secrets.map((n, i) => (
                            <span key={n}>
                              {i > 0 ? ', ' : ''}
                              <code>{printable(n)}</code>
                            </span>
                          ))}
                          .
                        </>
                      ) : (
                        'No value written in the file: nothing moves into the key store.'
                      )}
                    </p>
                  )}
                  {nameTaken ? <p className="warning-text">A server named {s.name} is behind Airlock already: it cannot move under that name.</p> : null}
                  {s.notes.map((n) => (
                    <p key={n} className="hint">
                      {printable(n)}
                    </p>
                  ))}
                </div>
              </li>
            );
          })}
        </ul>
      </fieldset>
      <p className="toolbar">
        <button type="button" disabled={chosen.length === 0 || busy !== undefined} onClick={() => void run(true)}>
          Preview<span className="visually-hidden"> the move from {client.label}</span>
        </button>
        <span className="hint">
          {movable.length === 0
            ? 'None of them can move.'
            : chosen.length === 0
              ? 'Pick the servers to move, then preview the change to its file: nothing moves before.'
              : `${plural(chosen.length, 'server')} picked.`}
        </span>
      </p>
      {busy === 'preview' ? <p role="status">Preparing the preview…</p> : null}
      <ErrorAlert error={error} />
      {preview ? (
        <div role="group" aria-label={`The preview of the move from ${client.label}`} className="import-preview">
          {preview.moved.length > 0 ? (
            <p>
              <strong>Moving behind Airlock: {list(preview.moved)}.</strong> Their values written inline go into the key store, then {client.label}
              &apos;s file keeps one entry, Airlock{preview.refused.length > 0 ? ', and what cannot move' : ''}. The file is backed up first.
            </p>
          ) : (
            <p>
              <strong>Nothing can move</strong>: {client.label}&apos;s file stays as it is.
            </p>
          )}
          {preview.refused.length > 0 ? (
            <div>
              <p>Cannot move (they stay in {client.label}):</p>
              <ul className="import-refused">
                {preview.refused.map((r) => (
                  <li key={r.from}>
                    <strong>{printable(r.from)}</strong>: {printable(r.problem)}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {preview.diff ? <DiffView diff={printable(preview.diff)} label={`${client.label}'s file afterwards`} /> : null}
          {preview.moved.length > 0 ? (
            <p className="toolbar">
              <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void run(false)}>
                Move behind Airlock<span className="visually-hidden"> from {client.label}</span>
              </button>
              <button
                type="button"
                disabled={busy !== undefined}
                onClick={() => {
                  asked.current++;
                  setPreview(undefined);
                }}
              >
                Cancel<span className="visually-hidden"> the move from {client.label}</span>
              </button>
              {busy === 'move' ? <span role="status">Moving…</span> : null}
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** What a move did, said once it is done (the client may be gone from the list: all its servers moved). */
function MoveOutcome({ label, done }: { label: string; done: ImportResult }) {
  const outcome = useRef<HTMLDivElement>(null);
  // The person's focus was on Move, which is gone: it goes to what the move did.
  useEffect(() => outcome.current?.focus(), [done]);
  return (
    <div role="status" className="import-done" tabIndex={-1} ref={outcome} aria-label={`The move from ${label}`}>
      <p>
        <strong>
          Moved behind Airlock from {label}: {list(done.moved)}.
        </strong>{' '}
        Their tools wait for your review above: nothing of them runs until you accept them.
        {done.refused.length > 0 ? ` Not moved: ${list(done.refused.map((r) => r.from))}.` : ''}
      </p>
      <p>
        {done.backup ? (
          <>
            The client&apos;s file was backed up (<code>{done.backup}</code>); Undo on the Clients screen restores it (the servers stay here until you remove
            them).
          </>
        ) : (
          <>Undo on the Clients screen restores the client&apos;s file (the servers stay here until you remove them).</>
        )}
      </p>
      {done.afterwards ? (
        <p>
          Then: <InlineText text={done.afterwards} />.
        </p>
      ) : null}
    </div>
  );
}

/** `taken`: the names already behind Airlock. */
export function ImportServers({ taken }: { taken: readonly string[] }) {
  const importable = useCall('servers.importable', {}, { refreshOn: ['servers-changed'] });
  const clients = importable.data ?? [];
  /** Each client's last move, by its id, with its label. */
  const [moved, setMoved] = useState<Record<string, { label: string; done: ImportResult }>>({});
  const onMoved = (client: ImportableClient) => (done: ImportResult | undefined) =>
    setMoved((m) => {
      const { [client.client]: _, ...rest } = m;
      return done ? { ...rest, [client.client]: { label: client.label, done } } : rest;
    });
  // Said below them all: a client whose servers all moved is no longer listed, and what the move did stays said.
  const gone = Object.keys(moved).some((id) => !clients.some((c) => c.client === id));
  return (
    <section className="card import-servers-card" aria-labelledby="import-servers">
      <h2 id="import-servers">Move your clients&apos; servers behind Airlock</h2>
      <p>
        The MCP servers each client on this machine runs itself. Moved behind Airlock, a server is started by Airlock and reached through it, every call through
        the same gate; the values written in the client&apos;s file go into the key store, and the client keeps one entry: Airlock.
      </p>
      {importable.error ? (
        <p role="alert">
          <InlineText text={importable.error.message} />
        </p>
      ) : null}
      {importable.data === undefined && !importable.error ? <p role="status">Reading the clients&apos; files…</p> : null}
      {importable.data && clients.length === 0 ? <p className="hint">No client on this machine runs an MCP server of its own{gone ? ' now' : ''}.</p> : null}
      {clients.map((c) => (
        <ImportClient key={c.client} client={c} taken={taken} onMoved={onMoved(c)} />
      ))}
      {Object.entries(moved).map(([id, m]) => (
        <MoveOutcome key={id} {...m} />
      ))}
    </section>
  );
}
