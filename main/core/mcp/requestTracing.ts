// A span for every MCP request a client sends (issue 40 §2), whichever way it
// comes — an HTTP POST of either revision, a line on a stdio pipe — and
// however it is answered (by the SDK's server, or from a prepared reply):
// `initialize`, `tools/list`, `server/discover`, `ping`, …, each named by its
// method. A `tools/call` is the exception: its span is opened by the audited
// tool itself (auditedTools.ts), so that the calls its run makes through the
// gate hang below it.
import type { CallerInfo } from '../approvals/types.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

type Id = string | number;

/** The requests of a message (one, or a batch) traced here: each with an id and a method, but tools/call. */
function requests(body: unknown): { id: Id; method: string }[] {
  const list = Array.isArray(body) ? body : [body];
  const out: { id: Id; method: string }[] = [];
  for (const m of list) {
    if (!m || typeof m !== 'object') continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method !== 'string' || method === 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    out.push({ id, method: method.slice(0, 100) });
  }
  return out;
}

/**
 * HTTP: the requests of one POST, each a span from now until the POST is answered (`done`, with the response's
 * status: 400 and over mark them failed).
 */
export function traceExchange(telemetry: Telemetry | undefined, body: unknown, caller: CallerInfo): (status?: number) => void {
  if (!telemetry?.enabled) return () => undefined;
  const ends = requests(body).map((r) => telemetry.begin({ method: r.method, caller }));
  return (status) => {
    for (const end of ends) end(status !== undefined && status >= 400 ? String(status) : undefined);
  };
}

/** A stdio connection: each request a span from the line that brings it to the line that answers it. */
export class MessageTracer {
  private readonly open = new Map<Id, (error?: string) => void>();
  private readonly telemetry: Telemetry;
  private readonly caller: () => CallerInfo;

  constructor(telemetry: Telemetry, caller: () => CallerInfo) {
    this.telemetry = telemetry;
    this.caller = caller;
  }

  received(raw: unknown): void {
    for (const r of requests(raw)) {
      // A repeated id closes the span it would shadow (a client's mistake, never a leak).
      this.open.get(r.id)?.();
      this.open.set(r.id, this.telemetry.begin({ method: r.method, caller: this.caller() }));
    }
  }

  sent(raw: unknown): void {
    if (!raw || typeof raw !== 'object') return;
    const { id, error } = raw as { id?: unknown; error?: { code?: unknown } };
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const end = this.open.get(id);
    if (!end) return;
    this.open.delete(id);
    end(error ? String(error.code ?? 'error') : undefined);
  }
}
