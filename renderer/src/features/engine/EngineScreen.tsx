// Engine and egress: the engine × egress grid (each cell valid, invalid with
// its reason, needs-install with the hint, or needs an acknowledgement), the
// policy a cell derives shown before it is applied, the boundary the running
// companion enforces, and the caps — all applied to the next run, no restart.
import { useState } from 'react';
import type { EngineCell } from '../../../../contract/engine.ts';
import { NETWORK_MODES, ENGINES } from '../../../../contract/engine.ts';
import { useCall } from '../../api/hooks.ts';
import { useStatus } from '../../api/StatusProvider.tsx';
import { useControl } from '../../api/ControlProvider.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { messageOf } from '../../../../contract/values.ts';
import { TableScroll } from '../../components/TableScroll.tsx';

const ENGINE_LABEL: Record<string, string> = { quickjs: 'QuickJS', deno: 'Deno', node: 'Node' };
const EGRESS_LABEL: Record<string, string> = { executor: 'Engine bounds it', wrapper: 'srt wrapper', none: 'Unbounded' };
const STATE_LABEL: Record<EngineCell['state'], string> = {
  valid: 'Valid',
  invalid: 'Invalid',
  'needs-install': 'Needs install',
  'needs-acknowledgement': 'Needs your acknowledgement',
  'not-allowed': 'Not allowed by your organisation',
};
const STATE_MARK: Record<EngineCell['state'], string> = { valid: '✓', invalid: '✕', 'needs-install': '↓', 'needs-acknowledgement': '!', 'not-allowed': '⊘' };

function CellDetails({ cell, locked, onApplied }: { cell: EngineCell; locked: string | undefined; onApplied(text: string): void }) {
  const { api } = useControl();
  const [acknowledged, setAcknowledged] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const name = `${ENGINE_LABEL[cell.engine]} with egress ${cell.egress}`;
  const canApply = !locked && !cell.current && (cell.state === 'valid' || (cell.state === 'needs-acknowledgement' && acknowledged));
  const apply = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await api.call('engine.apply', {
        engine: cell.engine,
        egress: cell.egress,
        ...(cell.state === 'needs-acknowledgement' ? { acknowledgeUnrestricted: true } : {}),
      });
      onApplied(`Applied: the next run uses ${ENGINE_LABEL[r.engine]} with egress ${r.egress}${r.saved ? '' : ' (for this session only: not saved)'}.`);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="cell-title">
      <h2 id="cell-title">
        {name}
        {cell.current ? ' (current)' : ''}
      </h2>
      <p>
        <span className={`badge cell-${cell.state}`}>{STATE_LABEL[cell.state]}</span>
      </p>
      {cell.state === 'invalid' ? <p role="alert">Refused: {cell.reason}</p> : null}
      {cell.state === 'not-allowed' ? <p role="alert">Not allowed: {cell.reason}</p> : null}
      {cell.state === 'needs-install' ? (
        <p role="alert">
          Not on this machine: <InlineText text={cell.reason} />
          {cell.installHint ? (
            <>
              {' '}
              To get it: <code>{cell.installHint}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {cell.banner ? (
        <p className="warning">
          <InlineText text={cell.banner} />
        </p>
      ) : null}
      <h3>What the sandbox can reach</h3>
      <dl className="facts">
        <dt>Enforced by</dt>
        <dd>{cell.policy.enforcedBy}</dd>
        <dt>Allowed</dt>
        <dd>{cell.policy.allow.length === 0 ? 'nothing' : cell.policy.allow.map((a) => `${a.host}:${a.port} — ${a.purpose}`).join('; ')}</dd>
        <dt>Denied</dt>
        <dd>{cell.policy.deny}</dd>
        <dt>Policy fingerprint</dt>
        <dd>
          <code>{cell.policy.fingerprint}</code>
        </dd>
      </dl>
      {cell.state === 'needs-acknowledgement' && !cell.current ? (
        <label>
          <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} /> I accept that sandboxed code can reach any host
          this machine can (the API key still never enters the sandbox)
        </label>
      ) : null}
      {cell.current ? (
        <p className="hint">This is what the companion runs now.</p>
      ) : cell.state === 'valid' || cell.state === 'needs-acknowledgement' ? (
        <p>
          <button type="button" disabled={!canApply || busy} onClick={() => void apply()}>
            {busy ? 'Applying…' : `Apply ${name}`}
          </button>
        </p>
      ) : null}
      {error ? (
        <p role="alert">
          <InlineText text={error} />
        </p>
      ) : null}
    </section>
  );
}

export function EngineScreen() {
  const status = useStatus();
  const matrix = useCall('engine.matrix', {});
  const [chosen, setChosen] = useState<{ engine: string; egress: string }>();
  const [applied, setApplied] = useState<string>();
  const s = status.data;
  const m = matrix.data;
  const cellOf = (engine: string, egress: string) => m?.cells.find((c) => c.engine === engine && c.egress === egress);
  const selected = chosen ? cellOf(chosen.engine, chosen.egress) : m ? cellOf(m.current.engine, m.current.egress) : undefined;
  return (
    <div className="screen">
      <h1>Engine</h1>
      {applied ? <p role="status">{applied}</p> : null}
      {!m ? (
        <p role="status">
          <InlineText text={matrix.error ? matrix.error.message : 'Loading…'} />
        </p>
      ) : (
        <>
          {m.lockedBy?.startsWith('your organisation') ? (
            <p className="warning">The engine is set by your organisation (its managed policy): it cannot be changed here.</p>
          ) : m.lockedBy ? (
            <p className="warning">
              The engine is set by <code>{m.lockedBy}</code> for this run of the companion; remove it to choose here.
            </p>
          ) : m.cells.some((cell) => cell.state === 'not-allowed') ? (
            <p className="hint">Some engines or boundaries are not allowed by your organisation (its managed policy): they cannot be chosen.</p>
          ) : null}
          <TableScroll label="Engine × network boundary">
            <table className="engine-grid">
              <caption>Engine × network boundary (choose a cell to see what it allows)</caption>
              <thead>
                <tr>
                  <th scope="col">Engine</th>
                  {NETWORK_MODES.map((egress) => (
                    <th scope="col" key={egress}>
                      {EGRESS_LABEL[egress]} <span className="muted">({egress})</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {ENGINES.map((engine) => (
                  <tr key={engine}>
                    <th scope="row">{ENGINE_LABEL[engine]}</th>
                    {NETWORK_MODES.map((egress) => {
                      const cell = cellOf(engine, egress)!;
                      const isSelected = selected === cell;
                      return (
                        <td key={egress} className={`cell-${cell.state}${cell.current ? ' current' : ''}`}>
                          <button
                            type="button"
                            className="cell-button"
                            aria-pressed={isSelected}
                            aria-label={`${ENGINE_LABEL[engine]} with egress ${egress}: ${STATE_LABEL[cell.state]}${cell.current ? ', current' : ''}`}
                            onClick={() => setChosen({ engine, egress })}
                          >
                            <span aria-hidden="true">{STATE_MARK[cell.state]}</span> {STATE_LABEL[cell.state]}
                            {cell.current ? <strong> · current</strong> : null}
                          </button>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          {selected ? (
            <CellDetails
              key={`${selected.engine}/${selected.egress}`}
              cell={selected}
              locked={m.lockedBy}
              onApplied={(text) => {
                setApplied(text);
                setChosen(undefined);
                matrix.reload();
                status.reload();
              }}
            />
          ) : null}
        </>
      )}
      {s ? (
        <section aria-labelledby="boundary-title">
          <h2 id="boundary-title">What the running companion enforces</h2>
          {s.banner ? (
            <p className="warning">
              <InlineText text={s.banner} />
            </p>
          ) : null}
          {s.boundary.split('\n').map((line) => (
            <p key={line}>{line}</p>
          ))}
        </section>
      ) : null}
      <section aria-labelledby="caps-title">
        <h2 id="caps-title">Caps</h2>
        <p className="hint">
          The caps on each run (time, memory, output, runs at once, queue, rate) have one place: <a href="#/settings">Settings</a>, under Sandbox and limits.
          Each applies to the next run, without a restart.
        </p>
      </section>
    </div>
  );
}
