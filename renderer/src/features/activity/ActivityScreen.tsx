// Activity: the audit log, newest first — tool calls with the API calls of
// their run nested under them — in a virtualised list (only the visible
// rows are in the page, so 100,000 records scroll smoothly), with filters,
// text search, a detail pane, live updates and Verify chain.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { AuditRecord } from '../../../../contract/audit.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';

type Filters = { text: string; tool: string; outcome: string };

function summary(r: AuditRecord): string {
  if (r.kind === 'tool') return `${r.tool} by ${r.clientName ?? 'unnamed client'} — ${r.outcome}`;
  if (r.kind === 'api') return `${r.method} ${r.url} → ${r.status || '—'} (${r.decision}${r.approval ? `, ${r.approval.by}` : ''})`;
  return `pruned ${r.pruned} records`;
}

export default function ActivityScreen() {
  const { api } = useControl();
  const [records, setRecords] = useState<AuditRecord[]>([]);
  const [next, setNext] = useState<number | undefined>();
  const [filters, setFilters] = useState<Filters>({ text: '', tool: '', outcome: '' });
  const [selected, setSelected] = useState<AuditRecord>();
  const [verify, setVerify] = useState<string>();
  const parent = useRef<HTMLDivElement>(null);
  const query = useMemo(
    () => ({
      ...(filters.text ? { text: filters.text } : {}),
      ...(filters.tool ? { tool: filters.tool } : {}),
      ...(filters.outcome ? { outcome: filters.outcome } : {}),
    }),
    [filters],
  );
  const load = useCallback(
    async (before?: number) => {
      const page = await api.call('audit.query', { ...query, limit: 200, ...(before !== undefined ? { before } : {}) });
      setRecords((current) => (before === undefined ? page.records : [...current, ...page.records]));
      setNext(page.next);
    },
    [api, query],
  );
  useEffect(() => void load(), [load]);
  useControlEvents((events) => {
    const fresh = events.flatMap((e) => (e.type === 'audit' ? [e.record] : []));
    if (fresh.length > 0 && !query.text && !query.tool && !query.outcome) setRecords((current) => [...fresh.reverse(), ...current]);
  });
  const rows = useVirtualizer({ count: records.length, getScrollElement: () => parent.current, estimateSize: () => 32, overscan: 12 });
  return (
    <div className="screen activity">
      <h1>Activity</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input value={filters.text} onChange={(e) => setFilters({ ...filters, text: e.target.value })} />
        </label>
        <label>
          Tool
          <select value={filters.tool} onChange={(e) => setFilters({ ...filters, tool: e.target.value })}>
            <option value="">any</option>
            <option>execute</option>
            <option>search_docs</option>
          </select>
        </label>
        <label>
          Outcome
          <select value={filters.outcome} onChange={(e) => setFilters({ ...filters, outcome: e.target.value })}>
            <option value="">any</option>
            <option>ok</option>
            <option>denied</option>
            <option>refused</option>
            <option>error</option>
          </select>
        </label>
        <button
          type="button"
          onClick={() =>
            void api
              .call('audit.verify', {})
              .then((v) => setVerify(v.ok ? `Chain intact: ${v.records} records.` : `Chain broken at #${v.firstBad?.seq}: ${v.firstBad?.reason}`))
          }
        >
          Verify chain
        </button>
      </form>
      {verify ? <p role="status">{verify}</p> : null}
      <div className="split">
        <div ref={parent} className="rows" role="list" aria-label={`Audit records (${records.length} loaded)`} tabIndex={0}>
          <div style={{ height: rows.getTotalSize(), position: 'relative' }}>
            {rows.getVirtualItems().map((v) => {
              const r = records[v.index]!;
              return (
                <div
                  key={r.seq}
                  role="listitem"
                  className={`row ${r.kind}`}
                  style={{ position: 'absolute', top: 0, transform: `translateY(${v.start}px)`, width: '100%' }}
                >
                  <button type="button" className="row-button" aria-pressed={selected?.seq === r.seq} onClick={() => setSelected(r)}>
                    <span className="muted">
                      #{r.seq} {new Date(r.time).toLocaleTimeString()}
                    </span>{' '}
                    {r.kind === 'api' ? '↳ ' : ''}
                    {summary(r)}
                  </button>
                </div>
              );
            })}
          </div>
        </div>
        <aside className="detail" aria-label="Record detail">
          {selected ? <pre>{JSON.stringify(selected, null, 2)}</pre> : <p>Select a record to see its detail.</p>}
        </aside>
      </div>
      {next !== undefined ? (
        <button type="button" onClick={() => void load(next)}>
          Load older records
        </button>
      ) : null}
    </div>
  );
}
