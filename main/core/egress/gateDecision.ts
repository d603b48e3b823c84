// What the decision path (gate/decisionPath.ts) is told of one hop of an API
// call: the policy's verdict — a read, allowed, refused (read-only), denied,
// or ask — and, under "ask", the request a person is shown: every header it
// will send (the key masked in its place), the override or redirect that made
// it a mutation, the evidence read for it, the run's earlier calls and the
// whole script. An approval is bound to the hash of method, full URL and
// body, checked again after the yes, before anything is sent.
import { createHash } from 'node:crypto';
import type { ClassifyInput, RequestClass } from './classify.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';
import { classifyHop, type Hop } from './hop.ts';
import { maskedCredential, type CredentialPlacement } from './credentialPlacement.ts';
import { evidenceFor, type EvidenceSource } from './evidence.ts';
import type { ApiCallApprovalRequest, ApprovalHook } from '../approvals/types.ts';
import { stop, type Verdict } from '../gate/decisionPath.ts';
import type { Refusal } from '../gate/callRecords.ts';
import type { RunContext } from '../gate/runContext.ts';

const BODY_PREVIEW_CHARS = 16_384;

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

/** What an approval is bound to: method, full URL and body bytes. */
export function requestHash(method: string, url: string, body: Buffer | undefined): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n`)
    .update(body ?? Buffer.alloc(0))
    .digest('hex');
}

/** The headers the hop will send, as a person sees them: the credential masked, never shown. */
function shownHeaders(ctx: DecisionContext, hop: Hop, hasCredential: boolean, redact: Redactor): ApiCallApprovalRequest['headers'] {
  const out: ApiCallApprovalRequest['headers'] = [{ name: 'host', value: ctx.origin.host }];
  for (const [name, value] of Object.entries(hop.headers)) out.push({ name, value: redact(value) });
  const masked = hasCredential ? maskedCredential(ctx.placement) : undefined;
  if (masked) out.push({ name: masked.name, value: `${masked.value} (from ${ctx.credentialSource()}: ${ctx.profile.name})`, credential: true });
  return out;
}

/**
 * A hop as the policy reads it: its class, the request as a waiting client is told it (`POST /events`), and in a
 * few words for messages (`POST /events (events.create)`).
 */
export function hopPolicy(ctx: DecisionContext, hop: Hop): { cls: RequestClass; request: string; what: string; verdict: Verdict } {
  const cls = classifyHop(hop, ctx.profile);
  const request = `${cls.kind === 'read' ? hop.method.toUpperCase() : cls.effectiveMethod} ${hop.op.path}`;
  const what = `${request} (${hop.op.id})`;
  if (cls.kind === 'read') return { cls, request, what, verdict: { send: 'read' } };
  switch (cls.kind) {
    case 'allow':
      return { cls, request, what, verdict: { send: 'allowed' } };
    case 'read-only':
      return { cls, request, what, verdict: { stop: stop('airlock_read_only', `${what} changes data, and ${cls.rule}.`, 'refused') } };
    case 'deny':
      return {
        cls,
        request,
        what,
        verdict: { stop: stop('airlock_mutation_denied', `${what} is refused: ${cls.rule}. A person can change the policy in Airlock.`, 'denied') },
      };
    case 'ask':
      return { cls, request, what, verdict: { ask: true } };
  }
}

/** What a person is asked about one hop: the exact request, redacted, with the run it belongs to and the evidence read for it. */
export async function hopApprovalRequest(
  ctx: DecisionContext,
  at: { hop: Hop; url: string; run: RunContext; redact: Redactor; hasCredential: boolean },
  cls: Exclude<RequestClass, { kind: 'read' }>,
): Promise<ApiCallApprovalRequest> {
  const { hop, url, run, redact } = at;
  return {
    kind: 'api-call',
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

/** After a yes: the request about to leave must hash as the one shown, else nothing is sent. */
export function approvedAsShown(hop: Hop, url: string, what: string, shown: ApiCallApprovalRequest): Refusal | undefined {
  if (requestHash(hop.method, url, hop.body) === shown.requestHash) return undefined;
  return stop('airlock_approval_mismatch', `${what}: the request changed after it was approved; nothing was sent`, 'refused');
}
