// One audit record as a person reads it, with its run around it: who called
// (client, transport, session), which tool on which engine and profile, the
// outcome, the run's calls (API and MCP tool calls) with their status, decision and who decided
// (a grant named as such) — the selected one marked — the script,
// highlighted, and the run's log lines while the live log still holds them.
// The raw record is folded at the end.
import { Fragment, useEffect, useState } from 'react';
import type { AuditRecord } from '../../../../contract/audit.ts';
import type { LogEntry } from '../../../../contract/logs.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';
import { ScriptView } from '../../components/ScriptView.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { callRows, decisionText } from './decisionText.ts';
import { CALL_KIND_LABEL, callKindOf, callLine, serverOfProfile } from '../../../../contract/calls.ts';

type ToolRecord = Extract<AuditRecord, { kind: 'tool' }>;
type ApiRecord = Extract<AuditRecord, { kind: 'api' }>;

/** The run's records (oldest first) and log lines, refreshed when new audit records arrive for it. */
function useRun(runId: string | undefined): { records: AuditRecord[]; logs: LogEntry[]; loaded: boolean } {
  const { api } = useControl();
  const [state, setState] = useState<{ runId?: string; records: AuditRecord[]; logs: LogEntry[]; loaded: boolean }>({ records: [], logs: [], loaded: false });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!runId) return;
    let live = true;
    void Promise.all([
      api.call('audit.query', { runId, order: 'oldest', limit: 500 }).then((p) => p.records),
      api.call('logs.query', { runId }).catch(() => [] as LogEntry[]),
    ]).then(
      ([records, logs]) => live && setState({ runId, records, logs, loaded: true }),
      () => live && setState({ runId, records: [], logs: [], loaded: true }),
    );
    return () => {
      live = false;
    };
  }, [api, runId, tick]);
  useControlEvents((events) => {
    if (runId && events.some((e) => e.type === 'audit' && 'runId' in e.record && e.record.runId === runId)) setTick((t) => t + 1);
  });
  return state.runId === runId ? state : { records: [], logs: [], loaded: !runId };
}

function clientOf(r: ToolRecord | ApiRecord): string {
  if (r.kind === 'api') return r.clientName ?? `unnamed client (${r.callerKey})`;
  const name = r.clientName ?? 'unnamed client';
  return `${name}${r.clientVersion ? ` ${r.clientVersion}` : ''} over ${r.transport}${r.sessionId ? `, session ${r.sessionId.slice(0, 8)}` : ''}`;
}

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

function Facts({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="facts">
      {rows
        .filter(([, v]) => v !== undefined && v !== null && v !== '')
        .map(([k, v]) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </Fragment>
        ))}
    </dl>
  );
}

function Outcome({ outcome }: { outcome: string }) {
  return <span className={`outcome outcome-${outcome === 'ok' ? 'ok' : 'bad'}`}>{outcome}</span>;
}

function CallsTable({ calls, selected }: { calls: ApiRecord[]; selected: number | undefined }) {
  return (
    <table className="grid run-calls">
      <caption className="visually-hidden">The run's calls (to APIs and to other MCP servers' tools), oldest first</caption>
      <thead>
        <tr>
          <th scope="col">Request</th>
          <th scope="col">Status</th>
          <th scope="col">Decision</th>
        </tr>
      </thead>
      <tbody>
        {callRows(calls).map(({ call: c, seqs }) => {
          const current = selected !== undefined && seqs.includes(selected);
          return (
            <tr key={c.seq} aria-current={current ? 'true' : undefined} className={current ? 'current' : undefined}>
              <th scope="row">
                <code>{callLine(c)}</code>
                {c.error && c.decision !== 'denied' ? (
                  <div className="call-error">
                    <InlineText text={c.error} />
                  </div>
                ) : null}
              </th>
              <td>{c.status || '—'}</td>
              <td>
                <span className={`decision decision-${c.decision}`}>{decisionText(c)}</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function LogLines({ logs }: { logs: LogEntry[] }) {
  if (logs.length === 0) return <p className="muted">No log lines of this run are in memory (the live log keeps the latest lines only).</p>;
  return (
    <ol className="run-logs">
      {logs.map((l) => (
        <li key={l.seq} className={`log-${l.level}`}>
          <span className="muted">{new Date(l.time).toLocaleTimeString()}</span> <span className="log-level">{l.level}</span>{' '}
          <span className="muted">[{l.source}]</span> <InlineText text={l.message} />
        </li>
      ))}
    </ol>
  );
}

function inputText(tool: ToolRecord): string {
  if (tool.tool === 'execute') return tool.input;
  try {
    return JSON.stringify(JSON.parse(tool.input), null, 2);
  } catch {
    return tool.input;
  }
}

export function RecordDetail({ record }: { record: AuditRecord }) {
  const runId = record.kind === 'prune' ? undefined : record.runId;
  const run = useRun(runId);
  if (record.kind === 'prune') {
    return (
      <div className="record-detail">
        <h2>Pruned {record.pruned} records</h2>
        <Facts
          rows={[
            ['When', when(record.time)],
            ['Older than', `${record.olderThanDays} days (before ${when(record.cutoff)})`],
            ['Through record', `#${record.throughSeq}`],
          ]}
        />
        <Raw record={record} />
      </div>
    );
  }
  const tool = record.kind === 'tool' ? record : run.records.find((r): r is ToolRecord => r.kind === 'tool');
  const calls = run.records.filter((r): r is ApiRecord => r.kind === 'api');
  if (record.kind === 'api' && !calls.some((c) => c.seq === record.seq)) calls.push(record);
  const api = record.kind === 'api' ? record : undefined;
  // What a gated call was: an API's operation (its method), or a tool of another MCP server (records of any age).
  const toolCall = api !== undefined && callKindOf(api) === 'tool-call';
  const heading = !api
    ? `${record.kind === 'tool' ? record.tool : ''} by ${(record.kind === 'tool' ? record.clientName : undefined) ?? 'an unnamed client'}`
    : toolCall
      ? `${CALL_KIND_LABEL['tool-call']} ${api.operationId}`
      : `${api.method} ${api.operationId}`;
  return (
    <div className="record-detail">
      <h2>
        {heading} <Outcome outcome={record.outcome} />
      </h2>
      <Facts
        rows={[
          ['Client', tool ? clientOf(tool) : api ? clientOf(api) : undefined],
          ['Tool', tool?.tool ?? (api ? 'execute' : undefined)],
          ['Engine', tool?.engine],
          [toolCall ? 'Server' : 'Profile', toolCall ? (api.server ?? serverOfProfile(api.profile)) : (api?.profile ?? tool?.profile)],
          ['When', when(record.time)],
          ['Duration', `${Math.round(record.durationMs)} ms`],
          ...(api
            ? ([
                [toolCall ? 'Tool' : 'Request', <code key="r">{toolCall ? api.url : `${api.method} ${api.url}`}</code>],
                // Another MCP server's tool: the arguments it was called with (redacted, capped).
                [
                  'Arguments',
                  api.arguments ? (
                    <pre key="a" className="wrapped">
                      {api.arguments}
                    </pre>
                  ) : undefined,
                ],
                ['Status', api.status || '—'],
                ['Decision', decisionText(api)],
                ['Error', api.error],
              ] as [string, React.ReactNode][])
            : ([['Error', record.error]] as [string, React.ReactNode][])),
          ['Run', runId ? <code key="run">{runId}</code> : undefined],
        ]}
      />
      {runId ? (
        <section aria-label="API calls of this run">
          <h3>API calls of this run</h3>
          {calls.length === 0 ? (
            <p className="muted">{run.loaded ? 'None: the run made no API call.' : 'Loading…'}</p>
          ) : (
            <CallsTable calls={calls} selected={api?.seq} />
          )}
        </section>
      ) : null}
      {tool ? (
        <section aria-label={tool.tool === 'execute' ? 'Script' : 'Input'}>
          <h3>
            {tool.tool === 'execute' ? 'Script' : 'Input'}
            {tool.inputTruncated ? <span className="muted"> (the first 8 KB of {tool.inputBytes} bytes)</span> : null}
          </h3>
          {tool.tool === 'execute' ? <ScriptView code={tool.input} label="Script of this run" /> : <pre className="wrapped">{inputText(tool)}</pre>}
        </section>
      ) : runId && run.loaded ? (
        <p className="muted">The run's tool record is not written yet (it is, once the run ends).</p>
      ) : null}
      {runId ? (
        <section aria-label="Log lines of this run">
          <h3>Log lines of this run</h3>
          <LogLines logs={run.logs} />
        </section>
      ) : null}
      <Raw record={record} />
    </div>
  );
}

function Raw({ record }: { record: AuditRecord }) {
  return (
    <details className="raw">
      <summary>Raw record (JSON, as the chain holds it)</summary>
      <pre className="wrapped">{JSON.stringify(record, null, 2)}</pre>
    </details>
  );
}
