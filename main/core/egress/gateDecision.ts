// The gate's verdict on one hop: read, allowed, refused (read-only), denied
// by policy, or — under "ask" — what a person answered, after being shown
// the exact request: every header it will send (the key masked), the
// override or redirect that made it a mutation, the run's earlier calls and
// the whole script. An approval is bound to the hash of method, full URL and
// body, checked again before anything is sent.
import { createHash } from 'node:crypto';
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { AuthScheme } from '../config/auth.ts';
import { classifyRequest, type ClassifyInput } from './classify.ts';
import { redactDeep, type Redactor } from './redactor.ts';
import type { Hop } from './hop.ts';
import { evidenceFor, type EvidenceSource } from './evidence.ts';
import type { ApprovalDecision, ApprovalHook, GateDecision, MutationApprovalRequest, RunContext } from './types.ts';

export const MASK = '••••';
const BODY_PREVIEW_CHARS = 16_384;

export interface Verdict {
  decision: GateDecision;
  approval?: ApprovalDecision;
  refusal?: ApiCallResult;
}

export interface DecisionContext {
  profile: ClassifyInput['profile'];
  auth: AuthScheme;
  credentialHeader: string | undefined;
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
  if (hasCredential && ctx.credentialHeader) {
    const prefix = ctx.auth.type === 'bearer' ? 'Bearer ' : ctx.auth.type === 'basic' ? 'Basic ' : ctx.auth.type === 'cookie' ? `${ctx.auth.name}=` : '';
    out.push({ name: ctx.credentialHeader, value: `${prefix}${MASK} (from ${ctx.credentialSource()}: ${ctx.profile.name})`, credential: true });
  }
  return out;
}

export async function decideHop(ctx: DecisionContext, hop: Hop, url: string, run: RunContext, redact: Redactor, hasCredential: boolean): Promise<Verdict> {
  const verdict = classifyRequest({
    op: hop.op,
    method: hop.method,
    ...(hop.override ? { override: hop.override } : {}),
    profile: ctx.profile,
  });
  if (verdict.kind === 'read') return { decision: 'read' };
  const what = `${verdict.effectiveMethod} ${hop.op.path} (${hop.op.id})`;
  switch (verdict.kind) {
    case 'read-only':
      return { decision: 'refused', refusal: gateError('airlock_read_only', `${what} changes data, and ${verdict.rule}.`) };
    case 'allow':
      return { decision: 'allowed' };
    case 'deny':
      return {
        decision: 'denied',
        refusal: gateError('airlock_mutation_denied', `${what} is refused: ${verdict.rule}. A person can change the policy in Airlock.`),
      };
    case 'ask':
      break;
  }
  if (!ctx.approvals)
    return { decision: 'denied', refusal: gateError('airlock_approval_required', `${what} needs a person's approval, and no approver is attached.`) };
  const request: MutationApprovalRequest = {
    kind: 'api-mutation',
    runId: run.runId,
    caller: run.caller,
    profile: ctx.profile.name,
    reason: verdict.reason,
    rule: verdict.rule,
    operationId: hop.op.id,
    call: hop.op.call,
    ...(hop.op.summary ? { summary: hop.op.summary } : {}),
    method: verdict.effectiveMethod,
    pathTemplate: hop.op.path,
    url: redact(url),
    query: redactDeep(hop.query, redact) as Record<string, unknown>,
    headers: shownHeaders(ctx, hop, hasCredential, redact),
    bodyPreview: hop.bodyValue === undefined ? '' : redact(JSON.stringify(hop.bodyValue, null, 2) ?? '').slice(0, BODY_PREVIEW_CHARS),
    requestHash: requestHash(hop.method, url, hop.body),
    ...(hop.override && verdict.effectiveMethod !== hop.method.toUpperCase() ? { override: { from: hop.method.toUpperCase(), via: hop.override.via } } : {}),
    callIndex: run.calls.length + 1,
    earlierCalls: run.calls.slice(-20).map((c) => ({ ...c, url: redact(c.url) })),
    scriptSha256: run.scriptSha256,
    script: redact(run.script),
    ...(await evidenceFor(ctx.evidence, hop, verdict.effectiveMethod, redact, run)),
  };
  const approvals = ctx.approvals;
  // The client hears that the call waits (progress notifications), so it does not give up on a silent call.
  const waited = run.onWaiting?.(`Waiting for your approval in Airlock: ${verdict.effectiveMethod} ${hop.op.path}`);
  const decision = await run.control
    .whilePaused(() => approvals.request(request, { ...(run.signal ? { signal: run.signal } : {}), ...(run.elicit ? { elicit: run.elicit } : {}) }))
    .finally(() => waited?.());
  if (decision.approved) {
    // Bound to what was shown: the request about to leave must hash the same.
    if (requestHash(hop.method, url, hop.body) !== request.requestHash) {
      return {
        decision: 'refused',
        approval: decision,
        refusal: gateError('airlock_approval_mismatch', `${what}: the request changed after it was approved; nothing was sent`),
      };
    }
    return { decision: 'approved', approval: decision };
  }
  const code = {
    no_approver: 'airlock_approval_required',
    timeout: 'airlock_approval_timeout',
    withdrawn: 'airlock_approval_withdrawn',
    denied: 'airlock_mutation_denied',
  }[decision.code];
  const text = decision.code === 'no_approver' ? `${what} ${decision.reason}` : `${what} was not approved: ${decision.reason}`;
  return { decision: 'denied', approval: decision, refusal: gateError(code, text) };
}
