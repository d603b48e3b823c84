// The hops of one call, each taken down the one decision path every call
// takes (gate/decisionPath.ts): the request the script asked for — its scope
// is the call's: the key at hand, a known operation, a well-formed request,
// an address the policy allows — then each same-origin redirect it leads to.
// This file is the API adapter's send step: the pinned address, the key in
// its place, the answer recorded. A redirect is followed only when a read
// leads to a read, at most MAX_REDIRECTS times, and never to another origin:
// the key goes nowhere else. Any other redirect comes back to the script
// unfollowed, with its status and Location: an approval never carries over to
// a request nobody saw.
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { ApiOperation } from '../openapi/catalogue.ts';
import type { Redactor } from '../log/redactor.ts';
import type { UpstreamResponse } from './upstream.ts';
import { BlockedAddressError, type PinnedAddress } from '../util/addressPolicy.ts';
import { credentialProblem, injectCredential } from './credentialPlacement.ts';
import { approvedAsShown, hopApprovalRequest, hopPolicy } from './gateDecision.ts';
import { isPlainRead, redirectHop, redirectNotFollowed, type Hop } from './hop.ts';
import { responseView } from './responseView.ts';
import { evidenceSource } from './evidenceRead.ts';
import { approvalField, AuditWriteError, type CallRecorder, type Refusal } from '../gate/callRecords.ts';
import { gateError, passGate, stop, type GateSource, type Passed } from '../gate/decisionPath.ts';
import type { ApiCallApprovalRequest } from '../approvals/types.ts';
import type { GateContext } from './gateContext.ts';
import type { RunContext } from '../gate/runContext.ts';

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
  pinned: PinnedAddress;
  passed: Passed;
  response: UpstreamResponse;
}

/** Where a hop comes from: the script's call, whose scope checks build it (or refuse it), or a redirect the gate checked already. */
export type Opening = () => Promise<OutOfScope | { hop: Hop; pinned: PinnedAddress }>;

/** A call its scope refuses, with as much of it as was known by then (its record names the operation, and the request once built). */
export interface OutOfScope {
  refusal: Refusal;
  op?: ApiOperation;
  hop?: Hop;
  /** What the record says instead of the refusal's message and the time taken (the key could not be read: why, and no duration). */
  recorded?: { error: string; durationMs: number };
}

/** Takes one hop down the decision path (the first of a call, or one a redirect leads to) and returns what the script gets. */
export async function passHop(gate: GateContext, opening: Opening, hops: number, call: CallInFlight): Promise<ApiCallResult> {
  const outcome = await passGate(gate.path, hopSource(gate, opening, hops, call), call.run);
  return 'refused' in outcome ? outcome.refused : outcome.sent;
}

/** The API adapter of the decision path, for one hop. */
function hopSource(gate: GateContext, opening: Opening, hops: number, call: CallInFlight): GateSource<ApiCallResult> {
  let hop: Hop | undefined;
  let pinned: PinnedAddress | undefined;
  let known: Omit<OutOfScope, 'refusal'> = {};
  let policy: ReturnType<typeof hopPolicy> | undefined;
  const opened = (): Hop => {
    if (!hop) throw new Error('a hop is decided before its scope was checked');
    return hop;
  };
  const decided = (): NonNullable<typeof policy> => (policy ??= hopPolicy(gate.decision, opened()));
  return {
    get what() {
      return hop ? decided().what : 'this call';
    },
    get waitingFor() {
      return decided().request;
    },
    deniedCode: 'airlock_mutation_denied',
    describe() {
      const at = hop ?? known.hop;
      const op = at?.op ?? known.op;
      if (!op) return undefined;
      // The method the policy read (an override's, for a mutation sent as POST), once the hop is built.
      const method = hop ? decided().request.split(' ')[0]! : (at?.method ?? op.method).toUpperCase();
      return { source: 'api', api: gate.api.profile.name, operation: op.id, method, host: gate.origin.host, pathTemplate: op.path };
    },
    outcomeOf: (result) => ({
      status: result.status,
      ...(result.status >= 400 || result.status === 0 ? { error: String(result.status || 'no_response') } : {}),
    }),
    async scope() {
      const start = await opening();
      if ('refusal' in start) {
        known = start;
        return start.refusal;
      }
      ({ hop, pinned } = start);
      return undefined;
    },
    policy: () => decided().verdict,
    async approvalRequest() {
      const { cls: read } = decided();
      // A read is put to a person only when the organisation asks of every call.
      const cls =
        read.kind === 'read'
          ? { kind: 'ask' as const, reason: 'outside-policy' as const, rule: read.rule, effectiveMethod: opened().method.toUpperCase() }
          : read;
      const context = { ...gate.decision, evidence: evidenceSource(gate, call.credential) };
      return await hopApprovalRequest(
        context,
        { hop: opened(), url: shownUrl(gate, opened()), run: call.run, redact: call.redact, hasCredential: call.credential !== undefined },
        cls,
      );
    },
    afterApproval: (_approval, shown) => approvedAsShown(opened(), shownUrl(gate, opened()), decided().what, shown as ApiCallApprovalRequest),
    lastCheck() {
      const problem = credentialProblem(gate.placement, call.credential, gate.api.profile.name);
      return problem ? stop('airlock_credential_format', problem, 'refused', 401) : undefined;
    },
    async send(passed) {
      const sending = opened();
      try {
        return await sendHop(gate, { hop: sending, pinned: pinned!, passed }, hops, call);
      } catch (error) {
        if (error instanceof AuditWriteError) throw error;
        return await call.recorder.refuse(sending.op, sending.method, failure(gate, error as Error, call), shownUrl(gate, sending));
      }
    },
    refuse: async (refusal) => {
      const at = hop ?? known.hop;
      const op = at?.op ?? known.op;
      const method = at?.method ?? op?.method ?? '';
      if (!known.recorded) return await call.recorder.refuse(op, method, refusal, at ? shownUrl(gate, at) : '');
      await call.recorder.record(op, method, { decision: refusal.decision, status: 0, ...known.recorded });
      return refusal.result;
    },
  };
}

/** The hop's full URL as records and people see it: the profile's origin, the hop's path and query, no key. */
function shownUrl(gate: GateContext, hop: Hop): string {
  return `${gate.origin.origin}${hop.pathAndQuery}`;
}

/** Sends a hop that passed, to the pinned address with the key in its place; reads the answer: a result, or a redirect. */
async function sendHop(gate: GateContext, at: { hop: Hop; pinned: PinnedAddress; passed: Passed }, hops: number, call: CallInFlight): Promise<ApiCallResult> {
  const { hop, pinned, passed } = at;
  const url = shownUrl(gate, hop);
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
  const answered: Answered = { hop, url, pinned, passed, response };
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400 && response.status !== 304 && typeof location === 'string')
    return await redirected(gate, answered, location, hops, call);
  if (response.truncated) {
    const message = `the response of ${hop.op.id} is larger than ${gate.maxBytes} bytes; ask for less (filters, limit, fields)`;
    return await refuseAnswered(answered, gateError('airlock_response_too_large', message, response.status), passed.decision, call);
  }
  const result = responseView(response, call.redact);
  await recordAnswered(answered, call);
  return result;
}

/** A redirect: refused when it leads nowhere valid or to another origin; handed back unless a read leads to a read; else the hop it leads to, down the path in turn. */
async function redirected(gate: GateContext, answered: Answered, location: string, hops: number, call: CallInFlight): Promise<ApiCallResult> {
  const { hop, url, passed, response } = answered;
  const refuse = async (message: string, as: Refusal['decision'] = passed.decision) =>
    await refuseAnswered(answered, gateError('airlock_redirect_refused', message, response.status), as, call);
  let next: URL;
  try {
    next = new URL(location, url);
  } catch {
    return await refuse('the API answered with a redirect to an invalid location');
  }
  // The key never follows a redirect to another origin: nothing is sent there.
  if (next.origin !== gate.origin.origin) {
    const message = `the API redirected to another origin (${call.redact(next.origin)}); the gate only talks to ${gate.origin.origin}`;
    return await refuse(message, passed.decision === 'read' ? 'refused' : passed.decision);
  }
  const following = redirectHop(hop, response.status, next, gate.api.catalogue, gate.basePath, gate.placement);
  // Only a read that leads to a read is followed: a redirect of anything that may change data (by method, override, document
  // mark or policy), or one that makes a read something else, is handed back unfollowed — a grant or an approval given for
  // this request never carries over to another.
  const unfollowed =
    passed.decision !== 'read' || !isPlainRead(following, gate.policyProfile) ? redirectNotFollowed(hop, following, response.status) : undefined;
  if (unfollowed || hops >= MAX_REDIRECTS) {
    const hint = unfollowed ?? `the API redirected more than ${MAX_REDIRECTS} times; the last redirect (to ${following.pathAndQuery}) was not followed`;
    return await handBack(answered, next, hint, call);
  }
  // This hop is done: record it, then take the read it leads to down the path (same origin, same pinned address).
  await recordAnswered(answered, call);
  const pinned = answered.pinned;
  return await passHop(gate, async () => ({ hop: following, pinned }), hops + 1, call);
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
async function recordAnswered({ hop, url, passed, response }: Answered, call: CallInFlight, error?: string): Promise<void> {
  await call.recorder.record(hop.op, hop.method, {
    decision: passed.decision,
    status: response.status,
    url,
    bytes: response.body.length,
    ...(error !== undefined ? { error } : {}),
    ...approvalField(passed.approval),
  });
}

/** Refuses what a sent hop's answer leads to (a bad redirect, a response too large), with the hop's decision and approval. */
async function refuseAnswered(answered: Answered, result: ApiCallResult, decision: Refusal['decision'], call: CallInFlight): Promise<ApiCallResult> {
  return await call.recorder.refuse(answered.hop.op, answered.hop.method, { result, decision, approval: answered.passed.approval }, answered.url);
}

/** A hop that failed on the way: the address is not allowed, the run ended, or the API could not be reached. */
export function failure(gate: GateContext, error: Error, call: CallInFlight): Refusal {
  if (error instanceof BlockedAddressError) return { result: gateError('airlock_blocked_address', call.redact(error.message)), decision: 'refused' };
  const aborted = call.run.signal?.aborted || error.name === 'AbortError';
  const message = aborted ? 'the run ended before the API answered' : `could not reach ${gate.origin.origin}: ${error.message}`;
  return { result: gateError(aborted ? 'airlock_run_ended' : 'airlock_network_error', call.redact(message)), decision: 'refused' };
}
