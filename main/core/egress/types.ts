// The vocabulary the egress gate shares with the execute tool, the approval
// broker and the audit store. What crosses a process boundary comes from the
// contract; the rest (run context, hooks) is in-process only.
import type { RunControl } from '../sandbox/engine.ts';
import type { Caller, ApprovalDecision, MutationApprovalRequest, ApproveScope } from '../../../contract/approvals.ts';

export type { ApprovalDecision, MutationApprovalRequest };
export type CallerInfo = Caller;
export type ApprovalScope = ApproveScope | 'policy';

/** One API call a run made, as later approval requests list it. */
export interface RunCallSummary {
  method: string;
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
  /** The run's API calls so far (the gate appends). */
  calls: RunCallSummary[];
  /** Called when the run starts waiting for a person (what it waits for); the returned function, when the wait is over. */
  onWaiting?(what: string): () => void;
}

/** Asks the person at the MCP client a yes/no question; undefined when they dismissed it. */
export type Elicit = (message: string, signal?: AbortSignal) => Promise<{ approved: boolean; reason?: string } | undefined>;

export interface ApprovalHook {
  /**
   * Whether a request for this operation would be put to a person now (no grant answers it, and someone can
   * answer in Airlock): the gate reads the evidence a prompt shows only then. Absent: assume it would.
   */
  asksPerson?(q: { runId: string; profile: string; operationId: string; callerKey: string; clientName?: string; overridden?: boolean }): boolean;
  /** Resolves when a decision is made (or the request times out, or its client withdraws it: a denial). */
  request(req: MutationApprovalRequest, options?: { signal?: AbortSignal; elicit?: Elicit }): Promise<ApprovalDecision>;
}

/** evidence: a read the gate made for the person's prompt (the run never sees it). */
export type GateDecision = 'read' | 'allowed' | 'approved' | 'denied' | 'refused' | 'evidence';

export interface ApiCallRecord {
  runId: string;
  callerKey: string;
  /** The client's self-declared name, for people reading the log (grants bind to callerKey). */
  clientName?: string;
  /** The API profile the call went through. */
  profile?: string;
  operationId: string;
  method: string;
  /** Origin + path + query, the credential removed. */
  url: string;
  status: number;
  durationMs: number;
  bytes: number;
  decision: GateDecision;
  approval?: { by: string; at: string; scope?: ApprovalScope; reason?: string; code?: string; grantId?: string };
  error?: string;
  startedAt: string;
}
