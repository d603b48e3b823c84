// What the gate does with one hop: send it as a read, send it as allowed,
// refuse it (read-only), deny it by policy, or — under "ask" — what a person
// answered, after being shown the exact request: every header it will send
// (the key masked in its place), the override or redirect that made it a
// mutation, the run's earlier calls and the whole script. An approval is
// bound to the hash of method, full URL and body, checked again before
// anything is sent.
import { createHash } from 'node:crypto';
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { ClassifyInput, RequestClass } from './classify.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';
import { classifyHop, type Hop } from './hop.ts';
import { maskedCredential, type CredentialPlacement } from './credentialPlacement.ts';
import { evidenceFor, type EvidenceSource } from './evidence.ts';
import type { ApprovalDecision, ApprovalHook, MutationApprovalRequest } from '../approvals/types.ts';
import type { GateDecision } from '../audit/types.ts';
import { notApprovedCode } from '../approvals/notApproved.ts';
import type { RunContext } from './types.ts';

const BODY_PREVIEW_CHARS = 16_384;

/** The gate's decision on one hop: how it is recorded, the person's answer if one was asked, and what the script gets if it is not sent. */
export interface HopDecision {
  decision: GateDecision;
  approval?: ApprovalDecision;
  refusal?: ApiCallResult;
}

export interface DecisionContext {
  profile: ClassifyInput['profile'];
  /** Where the key goes (credentialPlacement.ts), shown masked. */
  placement: CredentialPlacement;
  origin: URL;
  approvals: ApprovalHook | undefined;
  /** keychain, file or env: how the dialog names where the key comes from. */
  credentialSource(): string;
  /** Reads the resource a held PATCH, PUT or DELETE targets, for the person (evidence.ts); absent: nothing is read. */
  evidence?: EvidenceSource;
}

export function gateError(code: string, message: string, status = 0): ApiCallResult {
  return { data: null, error: { code, message }, status };
}

/** What an approval is bound to: method, full URL and body bytes. */
export function requestHash(method: string, url: string, body: Buffer | undefined): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n`)
    .update(body ?? Buffer.alloc(0))
    .digest('hex');
}

/** The headers the hop will send, as a person sees them: the credential masked, never shown. */
function shownHeaders(ctx: DecisionContext, hop: Hop, hasCredential: boolean, redact: Redactor): MutationApprovalRequest['headers'] {
  const out: MutationApprovalRequest['headers'] = [{ name: 'host', value: ctx.origin.host }];
  for (const [name, value] of Object.entries(hop.headers)) out.push({ name, value: redact(value) });
  const masked = hasCredential ? maskedCredential(ctx.placement) : undefined;
  if (masked) out.push({ name: masked.name, value: `${masked.value} (from ${ctx.credentialSource()}: ${ctx.profile.name})`, credential: true });
  return out;
}

export async function decideHop(ctx: DecisionContext, hop: Hop, url: string, run: RunContext, redact: Redactor, hasCredential: boolean): Promise<HopDecision> {
  const cls = classifyHop(hop, ctx.profile);
  if (cls.kind === 'read') return { decision: 'read' };
  const what = `${cls.effectiveMethod} ${hop.op.path} (${hop.op.id})`;
  switch (cls.kind) {
    case 'read-only':
      return { decision: 'refused', refusal: gateError('airlock_read_only', `${what} changes data, and ${cls.rule}.`) };
    case 'allow':
      return { decision: 'allowed' };
    case 'deny':
      return {
        decision: 'denied',
        refusal: gateError('airlock_mutation_denied', `${what} is refused: ${cls.rule}. A person can change the policy in Airlock.`),
      };
    case 'ask':
      break;
  }
  if (!ctx.approvals)
    return { decision: 'denied', refusal: gateError('airlock_approval_required', `${what} needs a person's approval, and no approver is attached.`) };
  const request = await approvalRequest(ctx, { hop, url, run, redact, hasCredential }, cls);
  const approvals = ctx.approvals;
  // The client hears that the call waits (progress notifications), so it does not give up on a silent call.
  const waited = run.onWaiting?.(`Waiting for your approval in Airlock: ${cls.effectiveMethod} ${hop.op.path}`);
  const decision = await run.control
    .whilePaused(() => approvals.request(request, { ...(run.signal ? { signal: run.signal } : {}), ...(run.elicit ? { elicit: run.elicit } : {}) }))
    .finally(() => waited?.());
  return answered(decision, hop, url, what, request.requestHash);
}

/** What a person is asked about one hop: the exact request, redacted, with the run it belongs to and the evidence read for it. */
async function approvalRequest(
  ctx: DecisionContext,
  at: { hop: Hop; url: string; run: RunContext; redact: Redactor; hasCredential: boolean },
  cls: Exclude<RequestClass, { kind: 'read' }>,
): Promise<MutationApprovalRequest> {
  const { hop, url, run, redact } = at;
  return {
    kind: 'api-mutation',
    runId: run.runId,
    caller: run.caller,
    profile: ctx.profile.name,
    reason: cls.reason,
    rule: cls.rule,
    operationId: hop.op.id,
    call: hop.op.call,
    ...(hop.op.summary ? { summary: hop.op.summary } : {}),
    method: cls.effectiveMethod,
    pathTemplate: hop.op.path,
    url: redact(url),
    query: redactDeep(hop.query, redact) as Record<string, unknown>,
    headers: shownHeaders(ctx, hop, at.hasCredential, redact),
    bodyPreview: hop.bodyValue === undefined ? '' : redact(JSON.stringify(hop.bodyValue, null, 2) ?? '').slice(0, BODY_PREVIEW_CHARS),
    requestHash: requestHash(hop.method, url, hop.body),
    ...(hop.override && cls.effectiveMethod !== hop.method.toUpperCase() ? { override: { from: hop.method.toUpperCase(), via: hop.override.via } } : {}),
    callIndex: run.calls.length + 1,
    earlierCalls: run.calls.slice(-20).map((c) => ({ ...c, url: redact(c.url) })),
    scriptSha256: run.scriptSha256,
    script: redact(run.script),
    ...(await evidenceFor(ctx.evidence, hop, cls.effectiveMethod, redact, run)),
  };
}

/** The decision a person's answer makes: approved only for the request that was shown (same hash), else denied with why. */
function answered(decision: ApprovalDecision, hop: Hop, url: string, what: string, shownHash: string): HopDecision {
  if (decision.approved) {
    // Bound to what was shown: the request about to leave must hash the same.
    if (requestHash(hop.method, url, hop.body) !== shownHash) {
      return {
        decision: 'refused',
        approval: decision,
        refusal: gateError('airlock_approval_mismatch', `${what}: the request changed after it was approved; nothing was sent`),
      };
    }
    return { decision: 'approved', approval: decision };
  }
  const code = notApprovedCode(decision.code, 'airlock_mutation_denied');
  const text = decision.code === 'no_approver' ? `${what} ${decision.reason}` : `${what} was not approved: ${decision.reason}`;
  return { decision: 'denied', approval: decision, refusal: gateError(code, text) };
}
