// What the gate knows of the run whose call it handles, whatever the call
// is for (an API's operation, another MCP server's tool): who runs it, its
// script, how to stop it, and the calls it made so far.
import type { RunControl } from '../sandbox/engine.ts';
import type { CallerInfo, Elicit } from '../approvals/types.ts';
import type { TraceParent } from '../telemetry/telemetry.ts';

/** One call a run made, as later approval requests list it (a tool call has its `mcp://` address and no method). */
export interface RunCallSummary {
  callKind?: 'api-call' | 'tool-call';
  method?: string;
  url: string;
  status: number;
  decision: string;
}

export interface RunContext {
  runId: string;
  caller: CallerInfo;
  scriptSha256: string;
  /** The whole script, as the approval dialog shows it (redacted there). */
  script: string;
  control: RunControl;
  /** Aborted when the run ends or its client gives up: in-flight upstream calls and pending approvals stop with it. */
  signal?: AbortSignal;
  /** Asks the person through the MCP client (elicitation), when the client supports it. */
  elicit?: Elicit;
  /** The run's calls so far, API and tool calls alike (the gate appends). */
  calls: RunCallSummary[];
  /** Called when the run starts waiting for a person (what it waits for); the returned function, when the wait is over. */
  onWaiting?(what: string): () => void;
  /** The MCP request that started the run, whose span its calls' spans hang under (telemetry on). */
  trace?: TraceParent;
  /**
   * A client's direct call of another server's tool: the gate hands its call's audit record here instead of waiting
   * for its commit, and the client's tool record — written next, committed with it — waits for both before the result
   * goes back (withheld if either fails). One commit where there were two, each waited for in turn.
   */
  deferRecord?(recorded: Promise<unknown>): void;
}
