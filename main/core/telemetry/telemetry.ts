// The seam between the companion and an organisation's monitoring (issue 40
// §2–3): what the MCP layer and the gate tell it — a request begins and ends,
// a call goes through the gate (and may wait for a person), a run ends — and
// nothing else. Off, it is NO_TELEMETRY, which costs a function call. On, it
// is otelTelemetry.ts (the official OpenTelemetry SDK). What it is told is
// names, codes and numbers: never keys, bodies, scripts or URLs.
import type { ApprovalDecision, CallerInfo } from '../approvals/types.ts';

/** Where a call's span hangs: the MCP request in flight when its run started (opaque outside the telemetry). */
export type TraceParent = { readonly __trace: unique symbol };

/** One MCP request. */
export interface RequestInfo {
  /** `tools/call`, … (mcp.method.name). */
  method: string;
  /** The tool called (gen_ai.tool.name), when it is a tools/call. */
  tool?: string;
  caller: CallerInfo;
}

/** A session as it ended: its transport and revision, and when it connected. */
export interface EndedSession {
  transport: string;
  protocolVersion?: string;
  connectedAt: string;
}

/** One call through the gate: an API's operation or another MCP server's tool. */
export type CallInfo =
  { source: 'api'; api: string; operation: string; method: string; host: string; pathTemplate: string } | { source: 'tool'; server: string; tool: string };

/** How a call through the gate ended. */
export interface CallEnd {
  /** The gate's decision: read, allowed, approved, refused, denied. */
  decision: string;
  /** The API's HTTP status (0: none came back). */
  status?: number;
  /** The refusal's code (airlock_mutation_denied, …), or that the tool answered with an error. */
  error?: string;
  /** Who decided, when a person or a grant did. */
  decidedBy?: string;
}

export interface CallTelemetry {
  /** The call waits for an answer from now (a person's, or a grant's); the returned function ends the wait with it. */
  waiting(): (decision: ApprovalDecision) => void;
  end(end: CallEnd): void;
}

export interface Telemetry {
  readonly enabled: boolean;
  /** Runs one MCP request under its span; what starts inside it (a run and its calls) hangs below. `failed` reads an error kind off the result. */
  request<T>(info: RequestInfo, fn: () => Promise<T>, failed?: (result: T) => string | undefined): Promise<T>;
  /** One MCP request whose span begins now and ends when the returned function is called (with an error kind, if it failed). */
  begin(info: RequestInfo): (error?: string) => void;
  /** The request in flight here, for a run to carry to its calls. */
  current(): TraceParent | undefined;
  /** One call through the gate, under the request that started its run. */
  call(parent: TraceParent | undefined, info: CallInfo): CallTelemetry;
  /** A run of execute ended with this outcome (ok, timeout, …). */
  run(outcome: string): void;
  /** An MCP session (a client's connection, or a stateless caller gone idle) ended: how long it lasted. */
  session(ended: EndedSession): void;
  /** Flushes what is queued (bounded in time) and stops. */
  shutdown(): Promise<void>;
}

const NO_CALL: CallTelemetry = { waiting: () => () => undefined, end: () => undefined };

/** Telemetry off: nothing is recorded, nothing is kept. */
export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  request: (_info, fn) => fn(),
  begin: () => () => undefined,
  current: () => undefined,
  call: () => NO_CALL,
  run: () => undefined,
  session: () => undefined,
  shutdown: async () => undefined,
};
