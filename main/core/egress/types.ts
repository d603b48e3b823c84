// The vocabulary the egress gate shares with the execute tool, the approval
// broker and the audit store.
import type { RunControl } from '../sandbox/engine.ts';

export interface CallerInfo {
  /** Stable key for per-caller limits: transport + session (or client name for stdio). */
  key: string;
  clientName?: string;
  clientVersion?: string;
  transport: 'stdio' | 'http' | 'internal';
  sessionId?: string;
}

export interface RunContext {
  runId: string;
  caller: CallerInfo;
  scriptSha256: string;
  scriptExcerpt: string;
  control: RunControl;
  /** Aborted when the run ends: in-flight upstream calls stop with it. */
  signal?: AbortSignal;
  /** Asks the person through the MCP client (elicitation), when the client supports it. */
  elicit?: Elicit;
}

/** Asks the person at the MCP client a yes/no question; undefined when they dismissed it. */
export type Elicit = (message: string, signal?: AbortSignal) => Promise<{ approved: boolean; reason?: string } | undefined>;

export type ApprovalScope = 'once' | 'run' | 'session' | 'policy';

export interface MutationApprovalRequest {
  kind: 'api-mutation';
  runId: string;
  caller: CallerInfo;
  profile: string;
  operationId: string;
  method: string;
  /** The operation's path template and the concrete path (no secrets). */
  pathTemplate: string;
  url: string;
  query: Record<string, unknown>;
  /** Pretty-printed body, secrets redacted, capped. */
  bodyPreview: string;
  scriptSha256: string;
  scriptExcerpt: string;
}

export type ApprovalDecision =
  | { approved: true; by: string; scope: ApprovalScope; at: string }
  | { approved: false; by: string; reason: string; at: string; code?: 'no_approver' | 'timeout' };

export interface ApprovalHook {
  /** Resolves when a decision is made (or the request times out: a denial). */
  request(req: MutationApprovalRequest, options?: { signal?: AbortSignal; elicit?: Elicit }): Promise<ApprovalDecision>;
}

export type GateDecision = 'read' | 'allowed' | 'approved' | 'denied' | 'refused';

export interface ApiCallRecord {
  runId: string;
  callerKey: string;
  operationId: string;
  method: string;
  /** Origin + path + query, the credential removed. */
  url: string;
  status: number;
  durationMs: number;
  bytes: number;
  decision: GateDecision;
  approval?: { by: string; at: string; scope?: ApprovalScope; reason?: string };
  error?: string;
  startedAt: string;
}
