// Logs: the live log buffer in xterm.js — replayed on open, then live —
// written in batches so thousands of lines a second do not freeze the page;
// filter by level, source (the sources the lines carry, as they appear) and
// run id (every line of a run: its console output, the gate's decision on
// each API call, its approvals), search with highlight (next and previous),
// pause (lines are kept, not dropped, and the screen says how many) and
// resume, follow the tail, copy and save the filtered log as text.
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import '@xterm/xterm/css/xterm.css';
import type { LogEntry, LogLevel } from '../../../../contract/logs.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';

const COLORS: Record<LogLevel, string> = { debug: '\x1b[90m', info: '', warn: '\x1b[33m', error: '\x1b[31m' };
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Lines kept for copy and save, and while paused: the newest this many. */
const KEEP = 20_000;
const DECORATIONS = {
  matchBackground: '#ffe08a',
  activeMatchBackground: '#ff9632',
  matchOverviewRuler: '#ffe08a',
  activeMatchColorOverviewRuler: '#ff9632',
};

function plain(e: LogEntry): string {
  return `${e.time} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId})` : ''} ${e.message}`;
}

/** What a source is, for the ones every companion has; any other source is listed by its name. */
const SOURCE_HINTS: Record<string, string> = {
  core: 'start-up, settings',
  sandbox: 'console output of runs',
  gate: 'API calls of runs',
  approvals: 'approval requests and answers',
  execute: 'runs',
  ui: 'this window',
};

function bounded(list: string[]): void {
  if (list.length > KEEP) list.splice(0, list.length - KEEP);
}

/** A line for the terminal: coloured by level, `code` in bold instead of between backticks. */
function line(e: LogEntry): string {
  return `${COLORS[e.level]}${e.time.slice(11, 23)} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId.slice(0, 8)})` : ''} ${e.message.replace(/`([^`\n]+)`/g, '\x1b[1m$1\x1b[22m').replace(/\r?\n/g, '\r\n    ')}\x1b[0m`;
}

export default function LogsScreen() {
  const { api } = useControl();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal>(null);
  const search = useRef<SearchAddon>(null);
  const pending = useRef<string[]>([]);
  /** The filtered log as text (copy, save). */
  const text = useRef<string[]>([]);
  /** Lines that arrived while paused, written on resume. */
  const held = useRef<LogEntry[]>([]);
  /** Asks for the lines waiting in `pending` to be written at the next frame (set while the terminal is open). */
  const writeSoon = useRef<() => void>(() => undefined);
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);
  const [runId, setRunId] = useState('');
  const [notice, setNotice] = useState<string>();
  const [level, setLevel] = useState<LogLevel>('debug');
  const [source, setSource] = useState('');
  const [paused, setPaused] = useState(false);
  /** Re-renders when lines are held back while paused (their count is shown). */
  const [, setHeldTick] = useState(0);
  const [needle, setNeedle] = useState('');
  /** The sources lines have carried so far, for the source filter. */
  const [sources, setSources] = useState<string[]>([]);
  const seen = useRef(new Set<string>());
  /** The newest line written: a line the replay and the live stream both bring is written once. */
  const lastSeq = useRef(0);
  /** The replay is on its way: live lines wait in `early` so they come after it. */
  const querying = useRef(false);
  const early = useRef<LogEntry[]>([]);
  /** The newest line shown when Pause was pressed. */
  const pausedAt = useRef(0);
  const run = runId.trim().toLowerCase();
  const keep = (e: LogEntry) => RANK[e.level] >= RANK[level] && (!source || e.source === source) && (!run || (e.runId ?? '').toLowerCase().startsWith(run));
  const learn = (entries: LogEntry[]) => {
    const before = seen.current.size;
    for (const e of entries) seen.current.add(e.source);
    if (seen.current.size !== before) setSources([...seen.current].sort());
  };
  const show = (all: LogEntry[]) => {
    const fresh = all.filter((e) => e.seq > lastSeq.current);
    if (fresh.length === 0) return;
    lastSeq.current = fresh.at(-1)!.seq;
    const kept = fresh.filter(keep);
    pending.current.push(...kept.map(line));
    text.current.push(...kept.map(plain));
    bounded(pending.current);
    bounded(text.current);
    writeSoon.current();
  };

  useEffect(() => {
    const t = new Terminal({ convertEol: false, disableStdin: true, scrollback: 10_000, screenReaderMode: true, fontSize: 13, allowProposedApi: true });
    const fit = new FitAddon();
    const s = new SearchAddon();
    t.loadAddon(fit);
    t.loadAddon(s);
    t.open(host.current!);
    fit.fit();
    term.current = t;
    search.current = s;
    const onResize = () => fit.fit();
    addEventListener('resize', onResize);
    let frame = 0;
    // Batched writes: at most one write per animation frame, and no frame asked for while no line waits (an idle
    // screen draws nothing).
    const write = () => {
      frame = 0;
      if (pending.current.length === 0) return;
      t.write(pending.current.splice(0).join('\r\n') + '\r\n');
      if (follow.current) t.scrollToBottom();
    };
    writeSoon.current = () => {
      if (frame === 0) frame = requestAnimationFrame(write);
    };
    writeSoon.current();
    return () => {
      writeSoon.current = () => undefined;
      cancelAnimationFrame(frame);
      removeEventListener('resize', onResize);
      t.dispose();
    };
  }, []);

  useEffect(() => {
    term.current?.clear();
    pending.current = [];
    text.current = [];
    lastSeq.current = 0;
    querying.current = true;
    early.current = [];
    void api.call('logs.query', { limit: 5000 }).then((replayed) => {
      querying.current = false;
      // Lines that arrived live while the replay was on its way come after it.
      const entries = [...replayed, ...early.current.splice(0).filter((e) => e.seq > (replayed.at(-1)?.seq ?? 0))];
      learn(entries);
      if (!paused) return show(entries);
      // Paused: what was on screen is shown again with the new filter; what came later stays held.
      show(entries.filter((e) => e.seq <= pausedAt.current));
      held.current = entries.filter((e) => e.seq > pausedAt.current);
      setHeldTick((n) => n + 1);
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, level, source, runId]);

  useControlEvents((events) => {
    const entries = events.flatMap((e) => (e.type === 'log' ? [e.entry] : []));
    if (entries.length === 0) return;
    learn(entries);
    if (querying.current) {
      early.current.push(...entries);
      return;
    }
    if (paused) {
      held.current.push(...entries.filter((e) => e.seq > pausedAt.current && e.seq > (held.current.at(-1)?.seq ?? 0)));
      if (held.current.length > KEEP) held.current.splice(0, held.current.length - KEEP);
      setHeldTick((n) => n + 1);
    } else show(entries);
  });

  const togglePause = () => {
    if (paused) {
      show(held.current.splice(0));
      setNotice(undefined);
    } else pausedAt.current = lastSeq.current;
    setPaused(!paused);
  };
  /** Lines held back by Pause that the filters will show on resume. */
  const heldBack = paused ? held.current.filter(keep).length : 0;
  const lines = (n: number) => `${n} ${n === 1 ? 'line' : 'lines'}`;
  const find = (forward: boolean) => {
    if (!needle) return;
    const found = forward ? search.current?.findNext(needle, { decorations: DECORATIONS }) : search.current?.findPrevious(needle, { decorations: DECORATIONS });
    setNotice(found ? undefined : `"${needle}" is not in the log shown.`);
  };
  const copy = async () => {
    const selection = term.current?.getSelection();
    const body = selection || text.current.join('\n');
    try {
      await navigator.clipboard.writeText(body);
      setNotice(selection ? 'Selection copied.' : `${text.current.length} lines copied.`);
    } catch {
      setNotice('The clipboard is not available here: use Save instead.');
    }
  };
  const save = () => {
    const url = URL.createObjectURL(new Blob([text.current.join('\n') + '\n'], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `airlock-log-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.log`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setNotice(`${text.current.length} lines saved to ${a.download}.`);
  };

  return (
    <div className="screen logs">
      <h1>Logs</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Level
          <select value={level} onChange={(e) => setLevel(e.target.value as LogLevel)}>
            <option value="debug">debug and up</option>
            <option value="info">info and up</option>
            <option value="warn">warnings and errors</option>
            <option value="error">errors</option>
          </select>
        </label>
        <label>
          Source
          <select value={source} onChange={(e) => setSource(e.target.value)}>
            <option value="">all</option>
            {(source && !sources.includes(source) ? [...sources, source].sort() : sources).map((s) => (
              <option key={s} value={s}>
                {SOURCE_HINTS[s] ? `${s} (${SOURCE_HINTS[s]})` : s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Run id
          <input
            value={runId}
            onChange={(e) => setRunId(e.target.value)}
            spellCheck={false}
            autoComplete="off"
            placeholder="all runs"
            aria-describedby="run-hint"
            className="run-id"
          />
          <span id="run-hint" className="visually-hidden">
            The whole id or its first characters, as a line shows them: the run&apos;s output, its API calls and its approvals.
          </span>
        </label>
        <label>
          Find
          <input value={needle} onChange={(e) => setNeedle(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && find(!e.shiftKey)} />
        </label>
        <button type="button" onClick={() => find(true)}>
          Find next
        </button>
        <button type="button" onClick={() => find(false)}>
          Find previous
        </button>
        <button type="button" onClick={togglePause}>
          {paused ? `Resume (${lines(heldBack)} held back)` : 'Pause'}
        </button>
        <label className="inline-check">
          <input
            type="checkbox"
            checked={following}
            onChange={(e) => {
              follow.current = e.target.checked;
              setFollowing(e.target.checked);
              if (e.target.checked) term.current?.scrollToBottom();
            }}
          />{' '}
          Follow the tail
        </label>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={save}>
          Save…
        </button>
      </form>
      {notice ? <p role="status">{notice}</p> : null}
      {paused ? (
        <p className="hint paused-note">
          Paused: new lines are kept and shown when you resume. <strong>{lines(heldBack)} held back</strong>
          {held.current.length > heldBack ? ` (and ${lines(held.current.length - heldBack)} the filters hide)` : ''}.
        </p>
      ) : null}
      <div ref={host} className="terminal" aria-label="Live log" />
    </div>
  );
}
