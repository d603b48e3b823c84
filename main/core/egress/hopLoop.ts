// The hops of one call: the request the script asked for, then each
// same-origin redirect it may lead to. Every hop is decided on its own
// (gateDecision.ts) once it is within the caller's rate, checked once more
// just before it leaves (the run still going, the key's form), sent to the pinned address with
// the key in its place, and recorded. A redirect is followed only when a read
// leads to a read, at most MAX_REDIRECTS times, and never to another origin:
// the key goes nowhere else. Any other redirect comes back to the script
// unfollowed, with its status and Location: an approval never carries over to
// a request nobody saw.
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { Redactor } from '../log/redactor.ts';
import type { UpstreamResponse } from './upstream.ts';
import { BlockedAddressError, type PinnedAddress } from '../util/addressPolicy.ts';
import { credentialProblem, injectCredential } from './credentialPlacement.ts';
import { decideHop, gateError, type HopDecision } from './gateDecision.ts';
import { isPlainRead, redirectHop, redirectNotFollowed, type Hop } from './hop.ts';
import { responseView } from './responseView.ts';
import { evidenceSource } from './evidenceRead.ts';
import { approvalField, AuditWriteError, type CallRecorder, type Refusal } from './callRecords.ts';
import type { GateContext } from './gateContext.ts';
import type { RunContext } from './types.ts';

const MAX_REDIRECTS = 3;

/** One call on its way through the gate. */
export interface CallInFlight {
  run: RunContext;
  credential: string | undefined;
  redact: Redactor;
  recorder: CallRecorder;
}

/** A hop that was sent, and what came back. */
interface Answered {
  hop: Hop;
  url: string;
  decision: HopDecision;
  response: UpstreamResponse;
}

/** The end of the call (its result), or the hop a redirect leads to. */
type Step = { result: ApiCallResult } | { next: Hop };

/** Sends the first hop and each redirect hop it leads to; a failure on the way (address, network, run ended) is a refusal. */
export async function sendHops(gate: GateContext, first: Hop, call: CallInFlight): Promise<ApiCallResult> {
  let hop = first;
  try {
    const pinned = await gate.pin(gate.origin.hostname);
    for (let hops = 0; ; hops++) {
      const step = await sendHop(gate, hop, hops, pinned, call);
      if ('result' in step) return step.result;
      hop = step.next;
    }
  } catch (error) {
    if (error instanceof AuditWriteError) throw error;
    return await call.recorder.refuse(hop.op, hop.method, failure(gate, error as Error, call), shownUrl(gate, hop));
  }
}

/** The hop's full URL as records and people see it: the profile's origin, the hop's path and query, no key. */
function shownUrl(gate: GateContext, hop: Hop): string {
  return `${gate.origin.origin}${hop.pathAndQuery}`;
}

async function sendHop(gate: GateContext, hop: Hop, hops: number, pinned: PinnedAddress, call: CallInFlight): Promise<Step> {
  const url = shownUrl(gate, hop);
  // Over the client's rate, nothing more happens: no evidence is read, no person is asked (as for a tool call).
  const overRate = rateRefusal(gate, call);
  if (overRate) return { result: await call.recorder.refuse(hop.op, hop.method, overRate, url) };
  const context = { ...gate.decision, evidence: evidenceSource(gate, call.credential) };
  const decision = await decideHop(context, hop, url, call.run, call.redact, call.credential !== undefined);
  const held = decision.refusal ? { result: decision.refusal, decision: decision.decision, approval: decision.approval } : lastCheck(gate, decision, call);
  if (held) return { result: await call.recorder.refuse(hop.op, hop.method, held, url) };
  const request = injectCredential(gate.placement, hop, call.credential);
  const response = await gate.transport({
    origin: gate.origin,
    pinned,
    method: hop.method,
    ...request,
    ...(hop.body ? { body: hop.body } : {}),
    maxBytes: gate.maxBytes,
    timeoutMs: gate.timeoutMs,
    ...(call.run.signal ? { signal: call.run.signal } : {}),
  });
  const answered: Answered = { hop, url, decision, response };
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400 && response.status !== 304 && typeof location === 'string')
    return await redirected(gate, answered, location, hops, call);
  if (response.truncated) {
    const message = `the response of ${hop.op.id} is larger than ${gate.maxBytes} bytes; ask for less (filters, limit, fields)`;
    return { result: await refuseAnswered(answered, gateError('airlock_response_too_large', message, response.status), decision.decision, call) };
  }
  const result = responseView(response, call.redact);
  await recordAnswered(answered, call);
  return { result };
}

/** A hop over the caller's rate: refused before anything else is done for it. */
function rateRefusal(gate: GateContext, call: CallInFlight): Refusal | undefined {
  if (!gate.options.rateLimit || gate.options.rateLimit(call.run.caller.key)) return undefined;
  const message = 'too many API calls from this client: slow down and retry (the limit is a setting: --rate-limit)';
  return { result: gateError('airlock_rate_limited', message, 429), decision: 'refused' };
}

/** Why a hop the decision lets through is still not sent: the run ended, the key is not in the scheme's form. */
function lastCheck(gate: GateContext, decision: HopDecision, call: CallInFlight): Refusal | undefined {
  if (call.run.signal?.aborted)
    return { result: gateError('airlock_run_ended', 'the run ended before the call was sent'), decision: 'refused', approval: decision.approval };
  const problem = credentialProblem(gate.placement, call.credential, gate.api.profile.name);
  return problem ? { result: gateError('airlock_credential_format', problem, 401), decision: 'refused' } : undefined;
}

/** A redirect: refused when it leads nowhere valid or to another origin; handed back unless a read leads to a read; else followed. */
async function redirected(gate: GateContext, answered: Answered, location: string, hops: number, call: CallInFlight): Promise<Step> {
  const { hop, url, decision, response } = answered;
  const refuse = async (message: string, as = decision.decision) => ({
    result: await refuseAnswered(answered, gateError('airlock_redirect_refused', message, response.status), as, call),
  });
  let next: URL;
  try {
    next = new URL(location, url);
  } catch {
    return await refuse('the API answered with a redirect to an invalid location');
  }
  // The key never follows a redirect to another origin: nothing is sent there.
  if (next.origin !== gate.origin.origin) {
    const message = `the API redirected to another origin (${call.redact(next.origin)}); the gate only talks to ${gate.origin.origin}`;
    return await refuse(message, decision.decision === 'read' ? 'refused' : decision.decision);
  }
  const following = redirectHop(hop, response.status, next, gate.api.catalogue, gate.basePath, gate.placement);
  // Only a read that leads to a read is followed: a redirect of anything that may change data (by method, override, document
  // mark or policy), or one that makes a read something else, is handed back unfollowed — a grant or an approval given for
  // this request never carries over to another.
  const unfollowed =
    decision.decision !== 'read' || !isPlainRead(following, gate.policyProfile) ? redirectNotFollowed(hop, following, response.status) : undefined;
  if (unfollowed || hops >= MAX_REDIRECTS) {
    const hint = unfollowed ?? `the API redirected more than ${MAX_REDIRECTS} times; the last redirect (to ${following.pathAndQuery}) was not followed`;
    return { result: await handBack(answered, next, hint, call) };
  }
  // This hop is done: record it, then send the read it leads to (itself decided again).
  await recordAnswered(answered, call);
  return { next: following };
}

/** A redirect not followed: the response as the script would see it, with why and where it pointed. */
async function handBack(answered: Answered, next: URL, hint: string, call: CallInFlight): Promise<ApiCallResult> {
  const result = responseView(answered.response, call.redact);
  await recordAnswered(answered, call, call.redact(hint));
  return {
    ...result,
    error: { code: 'airlock_redirect_not_followed', message: call.redact(hint), location: call.redact(next.href), body: result.error },
  };
}

/** Records a hop that was sent and answered (with the error the script is told, if any). */
async function recordAnswered({ hop, url, decision, response }: Answered, call: CallInFlight, error?: string): Promise<void> {
  await call.recorder.record(hop.op, hop.method, {
    decision: decision.decision,
    status: response.status,
    url,
    bytes: response.body.length,
    ...(error !== undefined ? { error } : {}),
    ...approvalField(decision.approval),
  });
}

/** Refuses what a sent hop's answer leads to (a bad redirect, a response too large), with the hop's decision and approval. */
async function refuseAnswered(answered: Answered, result: ApiCallResult, decision: HopDecision['decision'], call: CallInFlight): Promise<ApiCallResult> {
  return await call.recorder.refuse(answered.hop.op, answered.hop.method, { result, decision, approval: answered.decision.approval }, answered.url);
}

/** A hop that failed on the way: the address is not allowed, the run ended, or the API could not be reached. */
function failure(gate: GateContext, error: Error, call: CallInFlight): Refusal {
  if (error instanceof BlockedAddressError) return { result: gateError('airlock_blocked_address', call.redact(error.message)), decision: 'refused' };
  const aborted = call.run.signal?.aborted || error.name === 'AbortError';
  const message = aborted ? 'the run ended before the API answered' : `could not reach ${gate.origin.origin}: ${error.message}`;
  return { result: gateError(aborted ? 'airlock_run_ended' : 'airlock_network_error', call.redact(message)), decision: 'refused' };
}
