// The core's logger. Lines go to a sink (stderr by default, never stdout:
// in stdio mode stdout carries the MCP protocol only) and to the log buffer.
// A redactor runs on every message before it is stored or written. A line
// about a run (the gate's decision on one of its calls, an approval it waits
// for) carries the run's id, so the Logs screen's run filter shows all of it.
//
// stderr gets the lines of one turn of the event loop in one write: a write to
// a pipe or a file is a system call that blocks the event loop (and wakes the
// reader), and a call the gate lets through logs a line or two; one write per
// line was ~0.15 ms of the main thread per `execute` with an API call (a
// profile, joined stdio, the companion's stderr a pipe). Order is kept; what
// is waiting is written at exit (a thrown error included), synchronously.
import { writeSync } from 'node:fs';
import { type LogBuffer, type LogLevel, levelRank } from './logBuffer.ts';

/** What a line can say besides its text: the run it is about. */
export interface LogFields {
  runId?: string;
}

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(source: string): Logger;
}

export interface LoggerOptions {
  buffer?: LogBuffer;
  /** Where formatted lines go; defaults to stderr. */
  sink?: (line: string) => void;
  /** Minimum level written to the sink (the buffer keeps everything from debug up). */
  level?: LogLevel;
  source?: string;
  redact?: (text: string) => string;
}

let waiting: string[] = [];
let flushing: NodeJS.Immediate | undefined;

/** The waiting lines, taken (none left waiting, no write scheduled). */
function takeWaiting(): string | undefined {
  if (flushing) clearImmediate(flushing);
  flushing = undefined;
  if (waiting.length === 0) return undefined;
  const text = waiting.join('');
  waiting = [];
  return text;
}

/** Writes the lines still waiting now: before something another process can see (a shutdown removing server.json). */
export function flushStderr(): void {
  const text = takeWaiting();
  if (text !== undefined) process.stderr.write(text);
}

/** At exit, synchronously whatever stderr is (a pipe on Windows is asynchronous otherwise). */
function flushStderrAtExit(): void {
  const text = takeWaiting();
  if (text === undefined) return;
  try {
    writeSync(2, text);
  } catch {
    // stderr is gone (closed by the parent): nothing to write to
  }
}

let exitHooked = false;

/** Writes a line to stderr with the rest of this turn's lines (see the top of this file). */
export const stderrSink = (line: string): void => {
  waiting.push(line + '\n');
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', flushStderrAtExit);
  }
  flushing ??= setImmediate(flushStderr).unref();
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const sink = options.sink ?? stderrSink;
  const min = levelRank(options.level ?? 'info');
  const redact = options.redact ?? ((s: string) => s);
  const make = (source: string): Logger => {
    const log = (level: LogLevel, raw: string, fields?: LogFields) => {
      const message = redact(raw);
      const runId = fields?.runId;
      options.buffer?.append({ level, source, message, ...(runId ? { runId } : {}) });
      if (levelRank(level) >= min) sink(`airlock ${level.padEnd(5)} [${source}]${runId ? ` (run ${runId.slice(0, 8)})` : ''} ${message}`);
    };
    return {
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (s) => make(s),
    };
  };
  return make(options.source ?? 'core');
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
