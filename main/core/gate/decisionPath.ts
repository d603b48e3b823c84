// The one path every call through Airlock takes, whatever it calls (issue
// 37): an operation of an API (egress/, one hop at a time) or a tool of
// another MCP server (upstream/toolGate.ts). Each kind of source is an
// adapter that answers the steps for one call; this file asks them, in this
// order, and nowhere else:
//
//   scope → rate limit → policy → evidence → approval → send → record
//
// - scope: the kill switch is off, and the call is one that may be made at
//   all (well-formed, within the caps, a known operation or server, an
//   address the policy allows). Cheap and local: nothing is started for it.
// - rate limit: the client's rate, one budget for its API and tool calls.
// - policy: read, allowed, refused, denied, or ask a person.
// - evidence: what the person is shown (the adapter reads it only now, when
//   one will be asked).
// - approval: a grant or a person's yes, bound to what was shown; then the
//   adapter checks nothing changed since.
// - send: the kill switch once more, the run still going, the adapter's own
//   last check; then the adapter sends.
// - record: one audit record for every call (gate/callRecords.ts). A call
//   stopped on the path is recorded here, through the adapter; a sent one by
//   the adapter, which alone reads its answer.
//
// A third kind of source is one more adapter: the path does not change.
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { ApprovalDecision, ApprovalHook, ApprovalRequest } from '../approvals/types.ts';
import { notApprovedCode } from '../approvals/notApproved.ts';
import type { GateDecision } from '../audit/types.ts';
import type { Refusal } from './callRecords.ts';
import type { RunContext } from './runContext.ts';
import type { AskFloor } from '../config/managedPolicy.ts';
import type { CallEnd, CallInfo, CallTelemetry, Telemetry } from '../telemetry/telemetry.ts';

/** What the caller is told when a call does not go out: `{ data: null, error: { code, message }, status }`. */
export function gateError(code: string, message: string, status = 0): ApiCallResult {
  return { data: null, error: { code, message }, status };
}

/** A stop on the path: what the caller gets and how the record reads. */
export function stop(code: string, message: string, decision: 'refused' | 'denied', status = 0): Refusal {
  return { result: gateError(code, message, status), decision };
}

/** What a source's policy says of one call. */
export type Verdict = { send: 'read' | 'allowed' } | { stop: Refusal } | { ask: true };

/** How a call that passed went out: its record's decision, and the answer that let it (none for a read or an allow). */
export interface Passed {
  decision: Extract<GateDecision, 'read' | 'allowed' | 'approved'>;
  approval?: ApprovalDecision;
}

/** One call as its kind of source answers the path's steps. */
export interface GateSource<Sent> {
  /** The call in a few words, for messages and the client's waiting note: `POST /events (events.create)`, `fs/write_file`. */
  readonly what: string;
  /** The call as the client's waiting note names it (`DELETE /items/{id}`); absent: `what`. */
  readonly waitingFor?: string;
  /** The code of a person's "no" for this kind of call (`airlock_mutation_denied`, `airlock_tool_denied`). */
  readonly deniedCode: string;
  /** 1. Whether the call may be made at all (undefined: it may). */
  scope(): Refusal | undefined | Promise<Refusal | undefined>;
  /** 3. What the policy says of it. */
  policy(): Verdict | Promise<Verdict>;
  /** 4. The request a person is shown, with the evidence read for it (a read too, when the organisation's floor asks of every call). */
  approvalRequest(): Promise<ApprovalRequest>;
  /** After a yes: what stops the call still (it changed since it was shown); undefined: it goes. */
  afterApproval?(approval: ApprovalDecision, shown: ApprovalRequest): Refusal | undefined | Promise<Refusal | undefined>;
  /** 6. The source's own last check before sending (the key's form); undefined: send. */
  lastCheck?(): Refusal | undefined;
  /** 6. Sends the call, records what came back (7) and returns what the caller gets. */
  send(passed: Passed): Promise<Sent>;
  /** 7. Records a call stopped on the path, and returns what the caller gets (redacted). */
  refuse(refusal: Refusal): Promise<ApiCallResult>;
  /** The call as telemetry names it (its operation, method and host; its server and tool), once its scope is known. */
  describe?(): CallInfo | undefined;
  /** What telemetry says of a sent call's answer: its status, or that it failed. */
  outcomeOf?(sent: Sent): Pick<CallEnd, 'status' | 'error'>;
}

/** What the path needs of the companion: who answers, the client's rate, the kill switch, the organisation's floor on asking. */
export interface PathOptions {
  approvals?: ApprovalHook | undefined;
  /** The client's rate, shared by its API and tool calls: false when this call is over it. */
  rateLimit?: ((callerKey: string) => boolean) | undefined;
  /** The kill switch: while on, no call goes out. */
  killSwitch?: (() => boolean) | undefined;
  /** The organisation's floor, as it is now: every mutation asks (an "allow" no longer sends one unasked), or every call. */
  askFloor?: (() => AskFloor | undefined) | undefined;
  /** Where each call's span and counts go (telemetry on). */
  telemetry?: Telemetry | undefined;
}

/** Why the organisation's floor puts a call the policy would send to a person, or undefined. */
function floorAsks(verdict: Verdict, floor: AskFloor | undefined): string | undefined {
  if (!('send' in verdict) || !floor) return undefined;
  if (floor === 'every-call') return 'every call asks a person (set by your organisation)';
  return verdict.send === 'allowed' ? 'every mutation asks a person (set by your organisation)' : undefined;
}

/** What the path came to: the source's answer to a sent call, or what the caller gets instead. */
export type PathResult<Sent> = { sent: Sent } | { refused: ApiCallResult };

const KILL_SWITCH = 'the kill switch is on in Airlock: no call goes out until a person turns it off';
const OVER_RATE = 'too many calls from this client: slow down and retry (the limit is a setting: --rate-limit)';

/** Takes one call down the path, step by step; the first step that stops it is recorded and its refusal returned. */
export async function passGate<Sent>(path: PathOptions, source: GateSource<Sent>, run: RunContext): Promise<PathResult<Sent>> {
  // Telemetry's span of the call, opened once what it calls is known (after its scope), or at its refusal.
  let traced: CallTelemetry | undefined;
  const span = () => {
    if (traced || !path.telemetry?.enabled) return traced;
    const info = source.describe?.();
    return info ? (traced = path.telemetry.call(run.trace, info)) : undefined;
  };
  const refused = async (refusal: Refusal): Promise<PathResult<Sent>> => {
    const result = await source.refuse(refusal);
    span()?.end({
      decision: refusal.decision,
      status: result.status,
      ...(codeOf(refusal) ? { error: codeOf(refusal)! } : {}),
      ...(refusal.approval ? { decidedBy: refusal.approval.by } : {}),
    });
    return { refused: result };
  };
  // 1. Scope.
  if (path.killSwitch?.()) return await refused(stop('airlock_kill_switch', KILL_SWITCH, 'refused'));
  const outOfScope = await source.scope();
  if (outOfScope) return await refused(outOfScope);
  span();
  // 2. Rate limit: over it, nothing more happens — no evidence is read, no server started, no person asked.
  if (path.rateLimit && !path.rateLimit(run.caller.key)) return await refused(stop('airlock_rate_limited', OVER_RATE, 'refused', 429));
  // 3. Policy.
  const verdict = await source.policy();
  if ('stop' in verdict) return await refused(verdict.stop);
  const floor = floorAsks(verdict, path.askFloor?.());
  let passed: Passed;
  if ('send' in verdict && !floor) passed = { decision: verdict.send };
  else {
    // 4 and 5. Evidence, then a grant or a person's answer.
    const asked = await approve(path.approvals, source, run, floor, traced);
    if ('refusal' in asked) return await refused(asked.refusal);
    passed = { decision: 'approved', approval: asked.approval };
  }
  // 6. Send: nothing that turned since the policy or the person's yes lets it out.
  const late = lastChecks(path, source, run, passed.approval);
  if (late) return await refused(late);
  const sent = await source.send(passed);
  traced?.end({ decision: passed.decision, ...(passed.approval ? { decidedBy: passed.approval.by } : {}), ...source.outcomeOf?.(sent) });
  return { sent };
}

/** A refusal's code (airlock_kill_switch, …), as its result carries it. */
function codeOf(refusal: Refusal): string | undefined {
  const code = (refusal.result.error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Steps 4 and 5: the request with its evidence, a grant or a person's answer, and the check that what was shown is what goes. */
async function approve<Sent>(
  approvals: ApprovalHook | undefined,
  source: GateSource<Sent>,
  run: RunContext,
  floor: string | undefined,
  traced: CallTelemetry | undefined,
): Promise<{ approval: ApprovalDecision } | { refusal: Refusal }> {
  if (!approvals) return { refusal: stop('airlock_approval_required', `${source.what} needs a person's approval, and no approver is attached.`, 'denied') };
  const asked = await source.approvalRequest();
  // Asked because the organisation says so: the person is told, before the rule that would have let it through.
  const request = floor ? { ...asked, rule: `${floor}; ${asked.rule}` } : asked;
  // The client hears that the call waits (progress notifications), so it does not give up on a silent call.
  const waited = run.onWaiting?.(`Waiting for your approval in Airlock: ${source.waitingFor ?? source.what}`);
  const answered = traced?.waiting();
  const approval = await run.control
    .whilePaused(() => approvals.request(request, { ...(run.signal ? { signal: run.signal } : {}), ...(run.elicit ? { elicit: run.elicit } : {}) }))
    .finally(() => waited?.());
  answered?.(approval);
  if (!approval.approved) {
    const text = approval.code === 'no_approver' ? `${source.what} ${approval.reason}` : `${source.what} was not approved: ${approval.reason}`;
    return { refusal: { ...stop(notApprovedCode(approval.code, source.deniedCode), text, 'denied'), approval } };
  }
  const changed = await source.afterApproval?.(approval, request);
  return changed ? { refusal: { ...changed, approval } } : { approval };
}

/** Why a call that passed is still not sent: the kill switch turned on, the run ended, the source's own last check. */
function lastChecks<Sent>(path: PathOptions, source: GateSource<Sent>, run: RunContext, approval: ApprovalDecision | undefined): Refusal | undefined {
  const late = path.killSwitch?.()
    ? stop('airlock_kill_switch', KILL_SWITCH, 'refused')
    : run.signal?.aborted
      ? stop('airlock_run_ended', 'the run ended before the call was sent', 'refused')
      : source.lastCheck?.();
  return late && approval ? { ...late, approval } : late;
}
