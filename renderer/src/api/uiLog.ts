// The renderer's console output, errors and uncaught exceptions, batched
// into the live log buffer (source `ui`) where `web_log` and the Logs screen
// read them. Bounded: at most 200 lines per batch, 8 KB per line.
import type { ControlApi } from '../../../contract/controlApi.ts';
import type { LogLevel } from '../../../contract/logs.ts';

export function forwardConsole(api: ControlApi): void {
  let queue: { level: LogLevel; message: string }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    const lines = queue.splice(0, 200);
    queue = queue.slice(-1000);
    if (lines.length > 0) api.call('logs.append', { lines }).catch(() => undefined);
    if (queue.length > 0) timer = setTimeout(flush, 100);
  };
  const push = (level: LogLevel, parts: unknown[]) => {
    const message = parts.map((p) => (typeof p === 'string' ? p : p instanceof Error ? `${p.name}: ${p.message}` : safeJson(p))).join(' ');
    queue.push({ level, message: message.slice(0, 8000) });
    timer ??= setTimeout(flush, 100);
  };
  for (const [method, level] of [
    ['log', 'info'],
    ['info', 'info'],
    ['warn', 'warn'],
    ['error', 'error'],
    ['debug', 'debug'],
  ] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      original(...args);
      push(level, args);
    };
  }
  addEventListener('error', (e) => push('error', [`uncaught: ${e.message} (${e.filename}:${e.lineno})`]));
  addEventListener('unhandledrejection', (e) => push('error', [`unhandled rejection: ${e.reason instanceof Error ? e.reason.message : safeJson(e.reason)}`]));
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
