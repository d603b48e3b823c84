// The core's logger. Lines go to a sink (stderr by default, never stdout:
// in stdio mode stdout carries the MCP protocol only) and to the log buffer.
// A redactor runs on every message before it is stored or written.
import { type LogBuffer, type LogLevel, levelRank } from './logBuffer.ts';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
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

export const stderrSink = (line: string): void => {
  process.stderr.write(line + '\n');
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const sink = options.sink ?? stderrSink;
  const min = levelRank(options.level ?? 'info');
  const redact = options.redact ?? ((s: string) => s);
  const make = (source: string): Logger => {
    const log = (level: LogLevel, raw: string) => {
      const message = redact(raw);
      options.buffer?.append({ level, source, message });
      if (levelRank(level) >= min) sink(`airlock ${level.padEnd(5)} [${source}] ${message}`);
    };
    return {
      debug: (m) => log('debug', m),
      info: (m) => log('info', m),
      warn: (m) => log('warn', m),
      error: (m) => log('error', m),
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
