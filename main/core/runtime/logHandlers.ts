// The Logs screen's methods: the ring buffer by filter, and the lines the UI
// itself appends (its errors, with source `ui`).
import type { ControlHandlers } from '../control/dispatch.ts';
import type { Services } from './services.ts';

export type LogHandlerServices = Pick<Services, 'logs'>;

export function createLogHandlers(c: LogHandlerServices): Pick<ControlHandlers, 'logs.query' | 'logs.append'> {
  return {
    'logs.query': (q) => {
      // The newest `limit` lines that match every filter, the run's included.
      const matches = c.logs.buffer
        .query({
          ...(q.level ? { level: q.level } : {}),
          ...(q.source ? { source: q.source } : {}),
          ...(q.grep ? { grep: q.grep } : {}),
          ...(q.since !== undefined ? { since: q.since } : {}),
        })
        .filter((e) => !q.runId || e.runId === q.runId);
      return q.limit ? matches.slice(-q.limit) : matches;
    },

    'logs.append': ({ lines }) => {
      for (const line of lines) c.logs.buffer.append({ level: line.level, source: 'ui', message: line.message });
      return { appended: lines.length };
    },
  };
}
