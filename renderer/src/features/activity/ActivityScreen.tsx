// Activity: the audit log, newest first — tool calls with the API calls of
// their run nested under them — in a virtualised list (only the visible
// rows are in the page, so 100,000 records scroll smoothly), with filters,
// text search, a detail pane (the selected record with its run: client,
// tool, engine, the API calls and their decisions, the script, the log
// lines), live updates, export of the filtered view (JSONL or CSV, with
// progress) and Verify chain.
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { GATE_DECISIONS, type AuditFilters, type AuditRecord } from '../../../../contract/audit.ts';
import { CALL_KIND_LABEL, callKindOf, callLine } from '../../../../contract/calls.ts';
import { exportRecords, type ExportFormat } from './exportRecords.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';
import { RecordDetail } from './RecordDetail.tsx';
import { groupByRun, stoppedCalls } from './groupRecords.ts';
import './Activity.css';
import { messageOf } from '../../../../contract/values.ts';

const EMPTY = { text: '', client: '', tool: '', profile: '', operation: '', callKind: '', method: '', outcome: '', decision: '', from: '', to: '', runId: '' };
/** A link from elsewhere (the Answered list: `#/activity?run=<runId>&seq=<seq>`): that run's records, the one named selected. */
const linked = () => new URLSearchParams(location.hash.split('?')[1] ?? '');
type Filters = typeof EMPTY;
/** The kinds of call the audit keeps a record of (a server switch is the record of the tool call that asked for it). */
const GATED_KINDS = ['api-call', 'tool-call'] as const;

/** The filters as the control API takes them: empty fields left out, local date-times as ISO. */
function toQuery(f: Filters): AuditFilters {
  const q: Record<string, string> = {};
  for (const [key, value] of Object.entries(f)) {
    if (!value.trim()) continue;
    q[key] = key === 'from' || key === 'to' ? new Date(value).toISOString() : value.trim();
  }
  return q as AuditFilters;
}

function TextFilter({ label, value, onChange, placeholder }: { label: string; value: string; onChange(v: string): void; placeholder?: string }) {
  return (
    <label>
      {label}
      <input value={value} onChange={(e) => onChange(e.target.value)} {...(placeholder ? { placeholder } : {})} />
    </label>
  );
}

function ChoiceFilter({
  label,
  value,
  choices,
  onChange,
  labels,
}: {
  label: string;
  value: string;
  choices: readonly string[];
  onChange(v: string): void;
  /** How a choice reads, where its value is not for people. */
  labels?: Readonly<Record<string, string>>;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">any</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {labels?.[c] ?? c}
          </option>
        ))}
      </select>
    </label>
  );
}

function download(parts: string[], name: string, type: string): void {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** One row's words; a run's own outcome, then what the gate did not let through among its calls (`stopped`). */
function summary(r: AuditRecord, stopped = ''): string {
  if (r.kind === 'tool') return `${r.tool} by ${r.clientName ?? 'unnamed client'} — ${r.outcome}${stopped ? ` (${stopped})` : ''}`;
  if (r.kind === 'api') {
    const who = [r.clientName, r.profile ? `profile ${r.profile}` : undefined].filter(Boolean).join(' · ');
    // The origin is always the profile's: the path says which resource, and the detail has the full URL.
    const what = callKindOf(r) === 'api-call' ? `${r.method} ${pathOf(r.url)}` : callLine(r);
    return `${what} → ${r.status || '—'} (${r.decision}${r.approval ? `, ${r.approval.by}` : ''})${who ? ` · ${who}` : ''}`;
  }
  return `pruned ${r.pruned} records`;
}

export default function ActivityScreen() {
  const { api } = useControl();
  const [records, setRecords] = useState<AuditRecord[]>([]);
  const [next, setNext] = useState<number | undefined>();
  const [filters, setFilters] = useState<Filters>(() => ({ ...EMPTY, runId: linked().get('run') ?? '' }));
  const deferred = useDeferredValue(filters);
  const [exporting, setExporting] = useState<{ format: ExportFormat; records: number; controller: AbortController }>();
  const [exported, setExported] = useState<string>();
  const [selected, setSelected] = useState<AuditRecord>();
  const [verify, setVerify] = useState<string>();
  const parent = useRef<HTMLDivElement>(null);
  const query = useMemo(() => toQuery(deferred), [deferred]);
  const filtered = Object.keys(query).length > 0;
  const set = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }));
  const startExport = async (format: ExportFormat) => {
    const controller = new AbortController();
    setExported(undefined);
    setExporting({ format, records: 0, controller });
    try {
      const { parts, records: count } = await exportRecords(api, query, format, (n) => setExporting((e) => e && { ...e, records: n }), controller.signal);
      const name = `airlock-audit-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${format}`;
      download(parts, name, format === 'csv' ? 'text/csv' : 'application/x-ndjson');
      setExported(`Exported ${count} records to ${name}.`);
    } catch (error) {
      setExported(controller.signal.aborted ? 'Export cancelled.' : `Export failed: ${messageOf(error)}`);
    } finally {
      setExporting(undefined);
    }
  };
  const load = useCallback(
    async (before?: number) => {
      const page = await api.call('audit.query', { ...query, limit: 200, ...(before !== undefined ? { before } : {}) });
      setRecords((current) => (before === undefined ? page.records : [...current, ...page.records]));
      setNext(page.next);
    },
    [api, query],
  );
  useEffect(() => void load(), [load]);
  const [linkedSeq] = useState(() => Number(linked().get('seq')) || undefined);
  useEffect(() => {
    const r = linkedSeq !== undefined ? records.find((x) => x.seq === linkedSeq) : undefined;
    if (r) setSelected((s) => s ?? r);
  }, [records, linkedSeq]);
  useControlEvents((events) => {
    const fresh = events.flatMap((e) => (e.type === 'audit' ? [e.record] : []));
    if (fresh.length > 0 && !filtered) setRecords((current) => [...fresh.reverse(), ...current]);
  });
  // Each call under its run (groupRecords.ts): the rows, in the order shown.
  const shown = useMemo(() => groupByRun(records), [records]);
  const rows = useVirtualizer({ count: shown.length, getScrollElement: () => parent.current, estimateSize: () => 32, overscan: 12 });
  return (
    <div className="screen activity">
      <h1>Activity</h1>
      <form className="filters" role="search" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <TextFilter label="Search" value={filters.text} onChange={set('text')} />
        <TextFilter label="Client" value={filters.client} onChange={set('client')} />
        <ChoiceFilter
          label="Tool"
          value={filters.tool}
          choices={['execute', 'search_docs', 'server_log', 'web_log', 'health', 'get_config']}
          onChange={set('tool')}
        />
        {/* An API's profile, or another MCP server as mcp:<name> (its calls are kept under that name). */}
        <TextFilter label="API or server" placeholder="demo, mcp:fs" value={filters.profile} onChange={set('profile')} />
        <TextFilter label="Operation" value={filters.operation} onChange={set('operation')} />
        <ChoiceFilter label="Call" value={filters.callKind} choices={GATED_KINDS} labels={CALL_KIND_LABEL} onChange={set('callKind')} />
        <ChoiceFilter label="Method" value={filters.method} choices={['GET', 'POST', 'PUT', 'PATCH', 'DELETE']} onChange={set('method')} />
        <ChoiceFilter label="Outcome" value={filters.outcome} choices={['ok', 'denied', 'refused', 'error', 'timeout', 'capacity']} onChange={set('outcome')} />
        <ChoiceFilter label="Decision" value={filters.decision} choices={GATE_DECISIONS} onChange={set('decision')} />
        <label>
          From
          <input type="datetime-local" value={filters.from} onChange={(e) => set('from')(e.target.value)} />
        </label>
        <label>
          To
          <input type="datetime-local" value={filters.to} onChange={(e) => set('to')(e.target.value)} />
        </label>
        {filtered ? (
          <button type="button" onClick={() => setFilters(EMPTY)}>
            Clear filters
          </button>
        ) : null}
      </form>
      <div className="toolbar">
        <button type="button" disabled={!!exporting} onClick={() => void startExport('jsonl')}>
          Export JSONL
        </button>
        <button type="button" disabled={!!exporting} onClick={() => void startExport('csv')}>
          Export CSV
        </button>
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
        {exporting ? (
          <>
            <progress aria-label={`Exporting ${exporting.format.toUpperCase()}`} />
            <span role="status">
              Exporting… {exporting.records} records{filtered ? ' (filtered view)' : ''}
            </span>
            <button type="button" onClick={() => exporting.controller.abort()}>
              Cancel export
            </button>
          </>
        ) : null}
        {exported ? <span role="status">{exported}</span> : null}
      </div>
      {verify ? <p role="status">{verify}</p> : null}
      <div className="split">
        <div ref={parent} className="rows" role="list" aria-label={`Audit records (${records.length} loaded)`} tabIndex={0}>
          <div style={{ height: rows.getTotalSize(), position: 'relative' }}>
            {rows.getVirtualItems().map((v) => {
              const r = shown[v.index]!;
              return (
                <div
                  key={r.seq}
                  role="listitem"
                  className={`row ${r.kind}${selected?.seq === r.seq ? ' selected' : ''}${r.outcome === 'ok' ? '' : ' failed'}`}
                  style={{ position: 'absolute', top: 0, transform: `translateY(${v.start}px)`, width: '100%' }}
                >
                  <button type="button" className="row-button" aria-pressed={selected?.seq === r.seq} onClick={() => setSelected(r)}>
                    <span className="muted">
                      #{r.seq} {new Date(r.time).toLocaleTimeString()}
                    </span>{' '}
                    {r.kind === 'api' ? '↳ ' : ''}
                    {summary(r, r.kind === 'tool' ? stoppedCalls(records, r.runId) : '')}
                  </button>
                </div>
              );
            })}
          </div>
        </div>
        <aside className="detail" aria-label="Record detail" tabIndex={0}>
          {selected ? <RecordDetail record={selected} /> : <p>Select a record to see its detail.</p>}
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
