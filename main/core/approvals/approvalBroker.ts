// The approval broker owns the queue of requests that wait for a person.
// Requests are a discriminated union (today: an API mutation) carrying what a
// person needs to decide. Answers come from any channel (desktop, web UI,
// CLI, MCP elicitation) and the first one wins: a later answer to the same
// id is refused with what happened to it. No answer before the timeout is a
// denial ("timed out"), distinct from "denied by you". A request whose run
// is cancelled (the companion stops) is withdrawn, and a yes after that runs
// nothing; a client that cancels its call or goes away while its run waits
// for a person only marks the request (clientStoppedWaiting): the person can
// still decide, and the run's result waits for `execute {resume}`.
// Grants: "rest of this run" lives here; the others ({this client | every
// client} × {this session | until revoked}) live in the grant store: "this
// client, this session" is bound to the caller key (never the client's name).
import { randomBytes } from 'node:crypto';
import {
  APPROVE_SCOPES,
  GRANT_SCOPE_INFO,
  scopeWithheld,
  RUN_GRANT_BY,
  grantBy,
  isGrantScope,
  requestLine,
  requestPayload,
  untilRevoked,
  answerProblem,
  type QuestionAnswer,
  type ApprovalDecision,
  type ApprovalRequest,
  type ApproveScope,
  type PendingApproval,
} from '../../../contract/approvals.ts';
import type { ApprovalHook, AsksPersonQuery, Elicit } from './types.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { OrganisationRefusal } from '../config/managedPolicy.ts';
import { AirlockError } from '../util/errors.ts';
import { GrantStore, grantCovers } from './grantStore.ts';
import { messageOf } from '../../../contract/values.ts';

export type { PendingApproval, ApprovalRequest };

/** A person's answer: yes (with, for a server's question, what they answered) or no. */
export type Decision = { approve: true; scope: ApproveScope; answer?: QuestionAnswer } | { approve: false; reason?: string };

export type BrokerEvent =
  | { type: 'approval-requested'; approval: PendingApproval }
  | { type: 'approval-updated'; approval: PendingApproval }
  | { type: 'approval-decided'; id: string; decision: ApprovalDecision; request: ApprovalRequest };

export interface BrokerOptions {
  /** How long a request waits for a person; a function when the setting may change while the companion runs (it is read per request). */
  timeoutMs: number | (() => number);
  /** Whether a person can answer through the control API (desktop, web UI, `airlock approvals`). */
  approversAvailable: () => boolean;
  /** What a denial for lack of an approver tells the code (how to approve in this mode). */
  noApproverMessage: string;
  grants?: GrantStore;
  now?: () => Date;
  logger?: Logger;
  /** Why a scope is refused beyond the request's own rules (the organisation's managed policy), or undefined. */
  scopeRefusal?(scope: ApproveScope): string | undefined;
}

interface Waiting {
  pending: Omit<PendingApproval, 'secondsLeft'>;
  finish: (d: ApprovalDecision) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** How many answered ids are remembered, so a late answer is told what happened. */
const REMEMBERED = 500;

/** What the question asked through the client shows of what would be sent: the body, the arguments, or the switch. */
function elicitedPayload(req: ApprovalRequest): string {
  const payload = requestPayload(req);
  if (!payload) return '';
  const label = { 'api-call': 'Body', 'tool-call': 'Arguments', 'server-switch': 'Change', 'server-question': 'Question' }[req.kind];
  return `\n\n${label}:\n${payload.slice(0, 2000)}`;
}

function clientOf(req: ApprovalRequest): string {
  return req.caller.clientName ?? req.caller.key;
}

export class ApprovalBroker implements ApprovalHook {
  private readonly options: BrokerOptions;
  private readonly waiting = new Map<string, Waiting>();
  private readonly finished = new Map<string, ApprovalDecision>();
  /** "The rest of this run" grants, each for one run and one API (`runId` NUL `profile`): an allow for one API never covers another. */
  private readonly runGrants = new Set<string>();
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  private readonly now: () => Date;
  private readonly log: Logger;
  readonly grants: GrantStore;

  constructor(options: BrokerOptions) {
    this.options = options;
    this.now = options.now ?? (() => new Date());
    this.log = options.logger ?? silentLogger;
    this.grants = options.grants ?? new GrantStore();
  }

  async request(req: ApprovalRequest, options: { signal?: AbortSignal; elicit?: Elicit } = {}): Promise<ApprovalDecision> {
    const at = () => this.now().toISOString();
    if (options.signal?.aborted) return this.withdrawnDecision(at());
    if (this.runGrants.has(runGrantKey(req.runId, req.profile))) return { approved: true, by: RUN_GRANT_BY, scope: 'run', at: at() };
    // A grant is for the operation as the document describes it: a call that overrides its method is never covered;
    // and a call that may destroy is never covered by a grant "until revoked" (one given before it became so).
    const found =
      (req.kind === 'api-call' && req.override) || req.kind === 'server-switch' || req.kind === 'server-question'
        ? undefined
        : this.grants.use({
            profile: req.profile,
            operationId: req.operationId,
            callerKey: req.caller.key,
            ...(req.caller.clientName ? { clientName: req.caller.clientName } : {}),
            ...(req.caller.clientToken ? { clientTokenId: req.caller.clientToken.id } : {}),
          });
    const grant = found && !(req.reason === 'destructive' && untilRevoked(found.scope)) ? found : undefined;
    if (grant) {
      return {
        approved: true,
        by: grantBy(grant.id, `${GRANT_SCOPE_INFO[grant.scope].label}, given by ${grant.grantedBy}`),
        scope: grant.scope,
        at: at(),
        grantId: grant.id,
      };
    }
    if (!this.options.approversAvailable()) {
      if (options.elicit) {
        const answer = await options.elicit(`Airlock: allow ${requestLine(req, 'url')}?${elicitedPayload(req)}`, options.signal).catch(() => undefined);
        if (options.signal?.aborted) return this.withdrawnDecision(at());
        if (answer?.approved) return { approved: true, by: `${clientOf(req)} (elicitation)`, scope: 'once', at: at() };
        return {
          approved: false,
          by: `${clientOf(req)} (elicitation)`,
          reason: answer ? (answer.reason ?? 'declined by the person') : 'the person dismissed the question',
          at: at(),
          code: 'denied',
        };
      }
      return { approved: false, by: 'airlock', reason: this.options.noApproverMessage, at: at(), code: 'no_approver' };
    }
    const id = `apr_${randomBytes(6).toString('hex')}`;
    const timeoutMs = typeof this.options.timeoutMs === 'function' ? this.options.timeoutMs() : this.options.timeoutMs;
    const created = this.now();
    const pending: Omit<PendingApproval, 'secondsLeft'> = {
      id,
      request: req,
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + timeoutMs).toISOString(),
    };
    return new Promise<ApprovalDecision>((resolve) => {
      const onAbort = () => finish(this.withdrawnDecision(at()));
      const finish = (answer: ApprovalDecision) => {
        const w = this.waiting.get(id);
        if (!w) return;
        // The outcome names the approval it answers: its audit record follows the one written when it was held.
        const decision = { ...answer, id };
        clearTimeout(w.timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
        this.remember(id, decision);
        this.emit({ type: 'approval-decided', id, decision, request: req });
        this.log.info(`approval ${id} ${decision.approved ? `approved (${decision.scope})` : `${decision.code}: ${decision.reason}`} by ${decision.by}`, {
          runId: req.runId,
        });
        resolve(decision);
      };
      const seconds = Math.round(timeoutMs / 1000);
      const timer = setTimeout(
        () =>
          finish({
            approved: false,
            by: 'timeout',
            reason: `timed out: no one answered within ${seconds} s (open Airlock, or run \`airlock approvals list\`, to answer in time)`,
            at: at(),
            code: 'timeout',
          }),
        timeoutMs,
      );
      timer.unref?.();
      this.waiting.set(id, { pending, finish, timer });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.log.info(`approval ${id} requested: ${requestLine(req, 'url')} from ${clientOf(req)}`, { runId: req.runId });
      this.emit({ type: 'approval-requested', approval: this.view(pending) });
    });
  }

  /** Whether request() would wait for a person in Airlock (not a grant, nor elicitation, nor "no approver"): evidence is read only then. */
  asksPerson(q: AsksPersonQuery): boolean {
    if (this.runGrants.has(runGrantKey(q.runId, q.profile)) || !this.options.approversAvailable()) return false;
    if (q.overridden) return true;
    return !this.grants.list().some((g) => g.profile === q.profile && g.operationId === q.operationId && grantCovers(g, q));
  }

  /** The request a run waits on, if any. */
  pendingFor(runId: string): PendingApproval | undefined {
    for (const w of this.waiting.values()) if (w.pending.request.runId === runId) return this.view(w.pending);
    return undefined;
  }

  /**
   * The run's client stopped waiting (it cancelled the call, went away, or
   * was answered "held"): the request stays, and says so; the person can
   * still decide it, and the run's result waits for `execute {resume}`.
   */
  clientStoppedWaiting(runId: string, canResume = false): void {
    for (const w of this.waiting.values()) {
      if (w.pending.request.runId !== runId || w.pending.clientStoppedWaitingAt) continue;
      w.pending.clientStoppedWaitingAt = this.now().toISOString();
      w.pending.clientCanResume = canResume;
      this.log.info(`approval ${w.pending.id}: the client stopped waiting; it stays for a person to decide`, { runId });
      this.emit({ type: 'approval-updated', approval: this.view(w.pending) });
    }
  }

  /** Pending requests, oldest first, with the seconds each has left. */
  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => this.view(w.pending));
  }

  /**
   * Answers a pending request. The first answer wins: answering one that is
   * already settled (by someone else, the timeout, or its client withdrawing
   * it) is a conflict that says what happened.
   */
  decide(id: string, decision: Decision, by: string): ApprovalDecision {
    const w = this.waiting.get(id);
    if (!w) {
      const earlier = this.finished.get(id);
      if (earlier) {
        const what = earlier.approved
          ? `approved by ${earlier.by}`
          : earlier.code === 'withdrawn'
            ? 'withdrawn by its client'
            : earlier.code === 'timeout'
              ? 'timed out'
              : `denied by ${earlier.by}`;
        throw new AirlockError('conflict', `approval ${id} was already ${what}; nothing was changed`);
      }
      throw new AirlockError('not_found', `no pending approval ${id}`, { hint: '`airlock approvals list` shows the pending ones' });
    }
    const at = this.now().toISOString();
    const req = w.pending.request;
    let result: ApprovalDecision;
    if (decision.approve) {
      // One rule for what may be granted (scopeWithheld), which the prompt and the CLI show too.
      const withheld = scopeWithheld(req, decision.scope);
      if (withheld) throw new AirlockError('usage', withheld);
      const refused = this.options.scopeRefusal?.(decision.scope);
      if (refused) throw new OrganisationRefusal(`${id}: ${refused}; nothing was decided`, 'allow it once, or for a narrower scope');
      // A server's question is answered with what it asks for, which must fit its fields; nothing else carries an answer.
      if (req.kind === 'server-question') {
        const problem = answerProblem(req.fields, decision.answer ?? {});
        if (problem) throw new AirlockError('usage', `the answer to ${id} does not fit the question: ${problem}; nothing was sent`);
      } else if (decision.answer) throw new AirlockError('usage', `${id} is not a question: approve or deny it, with no answer`);
      let grantId: string | undefined;
      if (decision.scope === 'run') this.runGrants.add(runGrantKey(req.runId, req.profile));
      const scope = decision.scope;
      if (isGrantScope(scope) && req.kind !== 'server-question') {
        grantId = this.grants.add({
          scope,
          profile: req.profile,
          operationId: req.operationId,
          callKind: req.kind,
          ...(req.kind === 'api-call' ? { method: req.method, pathTemplate: req.pathTemplate } : {}),
          ...(scope === 'session' ? { callerKey: req.caller.key } : {}),
          // A client with a token of its own is named by it (the name the person gave), not by what it declares.
          ...(req.caller.clientToken
            ? { clientName: req.caller.clientToken.name, clientTokenId: req.caller.clientToken.id }
            : req.caller.clientName
              ? { clientName: req.caller.clientName }
              : {}),
          grantedBy: by,
        }).id;
      }
      result = {
        approved: true,
        by,
        scope: decision.scope,
        at,
        ...(grantId ? { grantId } : {}),
        ...(req.kind === 'server-question' ? { answer: decision.answer ?? {} } : {}),
      };
    } else {
      result = { approved: false, by, reason: decision.reason?.trim() || `denied by ${by}`, at, code: 'denied' };
    }
    w.finish(result);
    return result;
  }

  /** Denies every pending request (the queue's "Deny all", quitting the app). */
  denyAll(reason: string | undefined, by: string): number {
    const ids = [...this.waiting.keys()];
    for (const id of ids) this.decide(id, { approve: false, ...(reason ? { reason } : {}) }, by);
    return ids.length;
  }

  /** Forgets a run's "rest of run" grant once the run is over. */
  endRun(runId: string): void {
    for (const key of this.runGrants) if (key.startsWith(`${runId}\u0000`)) this.runGrants.delete(key);
  }

  subscribe(listener: (e: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private withdrawnDecision(at: string): ApprovalDecision {
    return { approved: false, by: 'client', reason: 'withdrawn: the client cancelled the call or went away before anyone answered', at, code: 'withdrawn' };
  }

  private view(p: Omit<PendingApproval, 'secondsLeft'>): PendingApproval {
    // What the organisation refuses is not offered (the prompt and the CLI leave it out, saying why).
    const refused = APPROVE_SCOPES.flatMap((scope) => {
      const why = this.options.scopeRefusal?.(scope);
      return why ? [[scope, why] as const] : [];
    });
    return {
      ...p,
      secondsLeft: Math.max(0, (Date.parse(p.expiresAt) - this.now().getTime()) / 1000),
      ...(refused.length > 0 ? { scopesRefused: Object.fromEntries(refused) } : {}),
    };
  }

  private remember(id: string, decision: ApprovalDecision): void {
    this.finished.set(id, decision);
    if (this.finished.size > REMEMBERED) this.finished.delete(this.finished.keys().next().value!);
  }

  private emit(e: BrokerEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (error) {
        this.log.error(`approval listener failed: ${messageOf(error)}`);
      }
    }
  }
}

function runGrantKey(runId: string, profile: string): string {
  return `${runId}\u0000${profile}`;
}
