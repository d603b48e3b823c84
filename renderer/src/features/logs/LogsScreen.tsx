// Logs: the live log buffer in xterm.js — replayed on open, then live —
// written in batches so thousands of lines a second do not freeze the page;
// filter by level, source and run id, search with highlight (next and
// previous), pause (lines are kept, not dropped) and resume, follow the tail,
// copy and save the filtered log as text.
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

function bounded(list: string[]): void {
  if (list.length > KEEP) list.splice(0, list.length - KEEP);
}

function line(e: LogEntry): string {
  return `${COLORS[e.level]}${e.time.slice(11, 23)} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId.slice(0, 8)})` : ''} ${e.message.replace(/\r?\n/g, '\r\n    ')}\x1b[0m`;
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
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);
  const [runId, setRunId] = useState('');
  const [notice, setNotice] = useState<string>();
  const [level, setLevel] = useState<LogLevel>('debug');
  const [source, setSource] = useState('');
  const [paused, setPaused] = useState(false);
  const [needle, setNeedle] = useState('');
  const keep = (e: LogEntry) => RANK[e.level] >= RANK[level] && (!source || e.source === source) && (!runId.trim() || (e.runId ?? '').startsWith(runId.trim()));
  const show = (entries: LogEntry[]) => {
    const kept = entries.filter(keep);
    pending.current.push(...kept.map(line));
    text.current.push(...kept.map(plain));
    bounded(pending.current);
    bounded(text.current);
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
    // Batched writes: at most one write per animation frame.
    const pump = () => {
      if (pending.current.length > 0) {
        t.write(pending.current.splice(0).join('\r\n') + '\r\n');
        if (follow.current) t.scrollToBottom();
      }
      frame = requestAnimationFrame(pump);
    };
    frame = requestAnimationFrame(pump);
    return () => {
      cancelAnimationFrame(frame);
      removeEventListener('resize', onResize);
      t.dispose();
    };
  }, []);

  useEffect(() => {
    term.current?.clear();
    pending.current = [];
    text.current = [];
    void api.call('logs.query', { limit: 5000 }).then(show);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, level, source, runId]);

  useControlEvents((events) => {
    const entries = events.flatMap((e) => (e.type === 'log' ? [e.entry] : []));
    if (paused) {
      held.current.push(...entries);
      if (held.current.length > KEEP) held.current.splice(0, held.current.length - KEEP);
    } else show(entries);
  });

  const togglePause = () => {
    if (paused) {
      show(held.current.splice(0));
      setNotice(undefined);
    }
    setPaused(!paused);
  };
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
            <option value="core">core</option>
            <option value="sandbox">sandbox (runs)</option>
            <option value="ui">ui</option>
            <option value="gate">gate</option>
            <option value="approvals">approvals</option>
          </select>
        </label>
        <label>
          Run id
          <input value={runId} onChange={(e) => setRunId(e.target.value)} spellCheck={false} />
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
        <button type="button" aria-pressed={paused} onClick={togglePause}>
          {paused ? 'Resume' : 'Pause'}
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
      {paused ? <p className="hint">Paused: new lines are kept and shown when you resume.</p> : null}
      <div ref={host} className="terminal" aria-label="Live log" />
    </div>
  );
}
