// The approvals room's vocabulary: who is calling (the MCP session as the
// contract describes it), how the gate asks for a decision (ApprovalHook),
// and how a question reaches the person at the MCP client (Elicit).
import type {
  Caller,
  ApprovalDecision,
  ApprovalRequest,
  ApiCallApprovalRequest,
  ToolCallApprovalRequest,
  ServerSwitchApprovalRequest,
} from '../../../contract/approvals.ts';

export type { ApprovalDecision, ApprovalRequest, ApiCallApprovalRequest, ToolCallApprovalRequest, ServerSwitchApprovalRequest };
export type CallerInfo = Caller;

/** Asks the person at the MCP client a yes/no question; undefined when they dismissed it. */
export type Elicit = (message: string, signal?: AbortSignal) => Promise<{ approved: boolean; reason?: string } | undefined>;

/** A call as the gate asks about it before reading its evidence: its run, operation and caller. */
export interface AsksPersonQuery {
  runId: string;
  profile: string;
  operationId: string;
  callerKey: string;
  clientName?: string;
  clientTokenId?: string;
  overridden?: boolean;
}

export interface ApprovalHook {
  /**
   * Whether a request for this operation would be put to a person now (no grant answers it, and someone can
   * answer in Airlock): the gate reads the evidence a prompt shows only then. Absent: assume it would.
   */
  asksPerson?(q: AsksPersonQuery): boolean;
  /** Resolves when a decision is made (or the request times out, or its client withdraws it: a denial). */
  request(req: ApprovalRequest, options?: { signal?: AbortSignal; elicit?: Elicit }): Promise<ApprovalDecision>;
}
