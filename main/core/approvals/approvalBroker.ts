// The approval broker owns the queue of requests that wait for a person.
// Requests are a discriminated union (today: an API mutation); each is shown
// with its client, profile, operation, method, path, query, redacted body
// preview, script hash and excerpt, and the time left. Decisions: approve
// once, approve the rest of the run, allow this operation for this client
// until restart, or deny with a reason that reaches the code as the API error.
// No decision before the timeout is a denial. With no approver attached (no
// control API, e.g. standalone stdio), the broker asks through the MCP
// client's elicitation when it can, and otherwise denies with instructions.
import { randomBytes } from 'node:crypto';
import type { ApprovalDecision, ApprovalHook, ApprovalScope, CallerInfo, Elicit, MutationApprovalRequest } from '../egress/types.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { NO_APPROVER_MESSAGE } from '../egress/egressGate.ts';

export type ApprovalRequest = MutationApprovalRequest;

export interface PendingApproval {
  id: string;
  request: ApprovalRequest;
  createdAt: string;
  expiresAt: string;
}

export type Decision = { approve: true; scope: Exclude<ApprovalScope, 'policy'> } | { approve: false; reason?: string };

export type BrokerEvent =
  { type: 'approval-requested'; approval: PendingApproval } | { type: 'approval-decided'; id: string; decision: ApprovalDecision; request: ApprovalRequest };

export interface BrokerOptions {
  timeoutMs: number;
  /** Whether a person can answer through the control API (desktop, web UI, `airlock approvals`). */
  approversAvailable: () => boolean;
  now?: () => Date;
  logger?: Logger;
}

interface Waiting {
  pending: PendingApproval;
  resolve: (d: ApprovalDecision) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class UnknownApprovalError extends Error {}

function describe(req: ApprovalRequest): string {
  switch (req.kind) {
    case 'api-mutation':
      return `${req.method} ${req.url} (${req.operationId})`;
    default: {
      const never: never = req.kind;
      return never;
    }
  }
}

function clientOf(caller: CallerInfo): string {
  return caller.clientName ?? caller.key;
}

export class ApprovalBroker implements ApprovalHook {
  private readonly options: BrokerOptions;
  private readonly waiting = new Map<string, Waiting>();
  private readonly runGrants = new Set<string>();
  private readonly sessionGrants = new Set<string>();
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  private readonly now: () => Date;
  private readonly log: Logger;

  constructor(options: BrokerOptions) {
    this.options = options;
    this.now = options.now ?? (() => new Date());
    this.log = options.logger ?? silentLogger;
  }

  async request(req: ApprovalRequest, options: { signal?: AbortSignal; elicit?: Elicit } = {}): Promise<ApprovalDecision> {
    const at = () => this.now().toISOString();
    if (this.runGrants.has(req.runId)) return { approved: true, by: 'earlier approval (rest of run)', scope: 'run', at: at() };
    if (this.sessionGrants.has(`${clientOf(req.caller)}\u0000${req.operationId}`)) {
      return { approved: true, by: 'earlier approval (this client, until restart)', scope: 'session', at: at() };
    }
    if (!this.options.approversAvailable()) {
      if (options.elicit) {
        const answer = await options
          .elicit(`Airlock: allow ${describe(req)}?${req.bodyPreview ? `\n\nBody:\n${req.bodyPreview.slice(0, 2000)}` : ''}`, options.signal)
          .catch(() => undefined);
        if (answer?.approved) return { approved: true, by: `${clientOf(req.caller)} (elicitation)`, scope: 'once', at: at() };
        return {
          approved: false,
          by: `${clientOf(req.caller)} (elicitation)`,
          reason: answer ? (answer.reason ?? 'declined by the person') : 'the person dismissed the question',
          at: at(),
        };
      }
      return { approved: false, by: 'airlock', reason: NO_APPROVER_MESSAGE, at: at(), code: 'no_approver' };
    }
    const id = `apr_${randomBytes(4).toString('hex')}`;
    const created = this.now();
    const pending: PendingApproval = {
      id,
      request: req,
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + this.options.timeoutMs).toISOString(),
    };
    return new Promise<ApprovalDecision>((resolve) => {
      const finish = (decision: ApprovalDecision) => {
        const w = this.waiting.get(id);
        if (!w) return;
        clearTimeout(w.timer);
        this.waiting.delete(id);
        this.emit({ type: 'approval-decided', id, decision, request: req });
        this.log.info(`approval ${id} ${decision.approved ? `approved (${decision.scope})` : `denied: ${decision.reason}`} by ${decision.by}`);
        resolve(decision);
      };
      const timer = setTimeout(
        () =>
          finish({
            approved: false,
            by: 'timeout',
            reason: `no decision within ${Math.round(this.options.timeoutMs / 1000)} s (open Airlock or run \`airlock approvals list\` to answer in time)`,
            at: at(),
            code: 'timeout',
          }),
        this.options.timeoutMs,
      );
      timer.unref?.();
      this.waiting.set(id, { pending, resolve: finish, timer });
      options.signal?.addEventListener('abort', () => finish({ approved: false, by: 'airlock', reason: 'the run ended before a decision', at: at() }));
      this.log.info(`approval ${id} requested: ${describe(req)} from ${clientOf(req.caller)}`);
      this.emit({ type: 'approval-requested', approval: pending });
    });
  }

  /** Pending requests, oldest first. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.pending);
  }

  decide(id: string, decision: Decision, by: string): ApprovalDecision {
    const w = this.waiting.get(id);
    if (!w) throw new UnknownApprovalError(`no pending approval ${id} (already decided, timed out, or never existed)`);
    const at = this.now().toISOString();
    const req = w.pending.request;
    let result: ApprovalDecision;
    if (decision.approve) {
      if (decision.scope === 'run') this.runGrants.add(req.runId);
      if (decision.scope === 'session') this.sessionGrants.add(`${clientOf(req.caller)}\u0000${req.operationId}`);
      result = { approved: true, by, scope: decision.scope, at };
    } else {
      result = { approved: false, by, reason: decision.reason?.trim() || `denied by ${by}`, at };
    }
    w.resolve(result);
    return result;
  }

  /** Forgets a run's "rest of run" grant once the run is over. */
  endRun(runId: string): void {
    this.runGrants.delete(runId);
  }

  subscribe(listener: (e: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private emit(e: BrokerEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (error) {
        this.log.error(`approval listener failed: ${(error as Error).message}`);
      }
    }
  }
}
