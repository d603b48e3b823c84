// The audit store's vocabulary: what callers hand in (a tool call, an API
// call), what comes back out (entries with their place in the hash chain),
// and the filters that queries and exports share. Every entry is flat JSON,
// so the same object is what the chain hashes, what a JSONL export holds and
// what the control API shows.
import type { Caller, ApproveScope } from '../../../contract/approvals.ts';
import type { CallKind } from '../../../contract/calls.ts';

/** The scope an approval had, as the record of an API call keeps it ('policy': no person asked, a policy allowed it). */
export type ApprovalScope = ApproveScope | 'policy';

/** evidence: a read the gate made for the person's prompt (the run never sees it). */
/** pending: held for a person (recorded when held; its outcome is a later record with the same approval id); interrupted: its companion ended first. */
export type GateDecision = 'read' | 'allowed' | 'approved' | 'denied' | 'refused' | 'evidence' | 'pending' | 'interrupted';

export interface ApiCallRecord {
  runId: string;
  callerKey: string;
  /** The client's self-declared name, for people reading the log (grants bind to callerKey). */
  clientName?: string;
  /** The API profile the call went through. */
  profile?: string;
  /** The operation's id; for a tool of another MCP server, the tool's name. */
  operationId: string;
  /** What was called: an API's operation over HTTP (also when absent), or a tool of another MCP server. */
  callKind?: Extract<CallKind, 'api-call' | 'tool-call'>;
  /** An API call's HTTP method; a tool call has none. */
  method?: string;
  /** A tool call's server. */
  server?: string;
  /** Origin + path + query, the credential removed; a tool call's `mcp://<server>/<tool>`. */
  url: string;
  status: number;
  durationMs: number;
  bytes: number;
  decision: GateDecision;
  approval?: { by: string; at: string; scope?: ApprovalScope; reason?: string; code?: string; grantId?: string; id?: string };
  /** pending: the pid of the companion holding it. */
  heldBy?: number;
  error?: string;
  startedAt: string;
  /** A tool call's arguments as JSON, redacted, capped. */
  arguments?: string;
  /**
   * A client's direct call of another server's tool: its record is flushed to disk with its run's tool record (which
   * always waits for the disk, and comes before the client hears back), not on its own first. Not part of the record.
   */
  flushedWithRun?: boolean;
}

export type AuditKind = 'tool' | 'api' | 'prune';
export const AUDIT_KINDS: readonly AuditKind[] = ['tool', 'api', 'prune'];

/** One MCP tool call, as the caller reports it before the result goes back to the client. */
export interface ToolCallInput {
  /** When the call started; defaults to the store's clock at recording time. */
  time?: string | Date;
  clientName?: string;
  clientVersion?: string;
  transport: Caller['transport'];
  sessionId?: string;
  /** `search_docs`, `execute`, … */
  tool: string;
  /** `ok` or an error kind. */
  outcome: string;
  durationMs: number;
  /** execute: the code (a string); other tools: their arguments (stored as JSON). */
  input: unknown;
  bytesOut: number;
  error?: string;
  /** A fingerprint such as `sha256:1a2b3c4d5e6f`, never the secret; anything else is not stored. */
  credentialFingerprint?: string;
  profile?: string;
  /** execute: the sandbox engine that ran the code (`quickjs`, `subprocess`, …). */
  engine?: string;
  /** Links the tool call to the API calls its run made. */
  runId?: string;
}

interface EntryBase {
  /** Position in the chain: 1, 2, 3… never reused, not even after a prune. */
  seq: number;
  /** When the event happened (a tool call's start, an API call's start, a prune). */
  time: string;
  /** The store's clock when the record was written. */
  recordedAt: string;
  /** `ok` or what went wrong (tool: the caller's error kind; API: denied, refused, http_error, error). */
  outcome: string;
  /** The previous record's hash (the anchor for the first record after a prune). */
  prevHash: string;
  /** sha256 over prevHash and this record's canonical serialisation. */
  hash: string;
}

export interface ToolCallEntry extends EntryBase, Omit<ToolCallInput, 'time' | 'outcome' | 'input'> {
  kind: 'tool';
  /** The input, redacted, then capped at INPUT_CAP_BYTES (UTF-8, whole characters). */
  input: string;
  /** sha256 (hex) of the full input as received (for execute, the script hash the run reports). */
  inputSha256: string;
  /** Size of the full input in bytes. */
  inputBytes: number;
  inputTruncated: boolean;
}

export interface ApiCallEntry extends EntryBase, ApiCallRecord {
  // callKind is absent in records written before the kinds (their method said TOOL for a tool call): read it with callKindOf.
  kind: 'api';
}

/** Written by prune(): how much was removed and the anchor the chain now starts from. */
export interface PruneEntry extends EntryBase {
  kind: 'prune';
  olderThanDays: number;
  /** Records whose time was before this were eligible. */
  cutoff: string;
  pruned: number;
  /** The last removed seq: the chain now starts at throughSeq + 1. */
  throughSeq: number;
  /** The hash of record throughSeq, which the first remaining record links to. */
  anchorHash: string;
}

export type AuditEntry = ToolCallEntry | ApiCallEntry | PruneEntry;

export interface AuditFilter {
  /** Inclusive, on `time` (ISO string or Date). */
  from?: string | Date;
  /** Inclusive, on `time`. */
  to?: string | Date;
  /** Tool records of this client, and the API calls of their runs. */
  client?: string;
  /** Tool records of this tool, and the API calls of their runs. */
  tool?: string;
  /** Exact outcome (`ok`, `denied`, an error kind…). */
  outcome?: string;
  /** Only records whose outcome is not `ok`. */
  failed?: boolean;
  /** Case-insensitive substring of input, error, url or operationId. */
  text?: string;
  kind?: AuditKind | readonly AuditKind[];
  runId?: string;
  /** Tool records run against this API profile, and the API calls of their runs. */
  profile?: string;
  /** API calls of this operationId. */
  operation?: string;
  /** API calls with this HTTP method. */
  method?: string;
  /** Calls of this kind (API calls, tool calls of other MCP servers), records of any age. */
  callKind?: string;
  /** API calls the gate decided this way (read, allowed, approved, denied, refused). */
  decision?: string;
}

export type AuditOrder = 'newest' | 'oldest';

export interface AuditQuery extends AuditFilter {
  /** Newest first (the default) pages with `before`; oldest first with `after`. */
  order?: AuditOrder;
  /** Only records with seq < before (newest-first paging: pass the previous page's `next`). */
  before?: number;
  /** Only records with seq > after (oldest-first paging: pass the previous page's `next`). */
  after?: number;
  /** 1…MAX_PAGE, default DEFAULT_PAGE. */
  limit?: number;
}

export interface AuditPage {
  records: AuditEntry[];
  /** Pass as `before` (newest first) or `after` (oldest first) for the next page; absent on the last page. */
  next?: number;
}

export type VerifyResult = { ok: true; records: number } | { ok: false; records: number; firstBad: { seq: number; reason: string } };

export interface ChainHead {
  /** The last record's seq (0 for an empty store). */
  seq: number;
  /** The last record's hash (the anchor hash when no record follows it). */
  hash: string;
  /** Records held: seq - anchorSeq. */
  records: number;
  /** The last pruned seq (0 when nothing was pruned). */
  anchorSeq: number;
  anchorHash: string;
  /** Records removed by prune() over the store's life. */
  pruned: number;
}

export interface PruneResult {
  pruned: number;
  /** The last removed seq (the previous anchor when nothing was removed). */
  throughSeq: number;
  /** The prune record, when something was removed. */
  record?: PruneEntry;
}

export type ExportFormat = 'jsonl' | 'csv';
