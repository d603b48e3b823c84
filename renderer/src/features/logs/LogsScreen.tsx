// Logs: the live log buffer in xterm.js — replayed on open, then live —
// written in batches so thousands of lines a second do not freeze the page;
// filter by level and source, search with highlight, pause and resume.
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

function line(e: LogEntry): string {
  return `${COLORS[e.level]}${e.time.slice(11, 23)} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId.slice(0, 8)})` : ''} ${e.message.replace(/\r?\n/g, '\r\n    ')}\x1b[0m`;
}

export default function LogsScreen() {
  const { api } = useControl();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal>(null);
  const search = useRef<SearchAddon>(null);
  const pending = useRef<string[]>([]);
  const [level, setLevel] = useState<LogLevel>('debug');
  const [source, setSource] = useState('');
  const [paused, setPaused] = useState(false);
  const [needle, setNeedle] = useState('');
  const keep = (e: LogEntry) => RANK[e.level] >= RANK[level] && (!source || e.source === source);

  useEffect(() => {
    const t = new Terminal({ convertEol: false, disableStdin: true, scrollback: 10_000, screenReaderMode: true, fontSize: 13 });
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
      if (pending.current.length > 0) t.write(pending.current.splice(0).join('\r\n') + '\r\n');
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
    void api.call('logs.query', { limit: 5000 }).then((entries) => pending.current.push(...entries.filter(keep).map(line)));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, level, source]);

  useControlEvents((events) => {
    if (paused) return;
    for (const e of events) if (e.type === 'log' && keep(e.entry)) pending.current.push(line(e.entry));
    if (pending.current.length > 20_000) pending.current.splice(0, pending.current.length - 20_000);
  });

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
            <option value="sandbox">sandbox (runs)</option>
            <option value="ui">ui</option>
            <option value="gate">gate</option>
            <option value="approvals">approvals</option>
          </select>
        </label>
        <label>
          Find
          <input value={needle} onChange={(e) => setNeedle(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && search.current?.findNext(needle)} />
        </label>
        <button type="button" onClick={() => search.current?.findNext(needle)}>
          Find next
        </button>
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </form>
      <div ref={host} className="terminal" aria-label="Live log" />
    </div>
  );
}
