// The egress gate: the API adapter of the one decision path every call
// takes (gate/decisionPath.ts: scope → rate limit → policy → evidence →
// approval → send → record), the module every API call from sandboxed code
// goes through, whatever the engine. Its scope maps the call to a catalogue
// operation, builds the request for the profile's origin only and checks and
// pins the address; its policy classifies the concrete request (method
// overrides included); under `ask` a person sees every header the call will
// send, the approval bound to a hash of method, URL and body; it adds the
// credential (the sandbox never holds it), follows a same-origin redirect
// only when a read leads to a read (any other redirect comes back to the
// script unfollowed, with its status and Location: an approval never carries
// over to a request nobody saw), never follows another origin, scrubs the
// credential from everything it hands back, and records every request. It
// never throws at the sandbox: failures are `{ error }`.
//
// This file is the entry and the call's scope (the key, the operation, the
// request, the address); the rest has a file per job: where the key goes
// (credentialPlacement.ts), the hops and redirects (hopLoop.ts, hop.ts), the
// policy and the prompt on each hop (gateDecision.ts), the evidence read
// (evidenceRead.ts) and what all calls share (gateContext.ts); the records
// are the path's (gate/callRecords.ts).
import { performance } from 'node:perf_hooks';
import type { ApiOperation } from '../openapi/catalogue.ts';
import type { ApiCallRequest, ApiCallResult } from '../sandbox/engine.ts';
import { createRedactor, type Redactor } from '../log/redactor.ts';
import { isMutation } from './classify.ts';
import { gateError, stop } from '../gate/decisionPath.ts';
import { firstHop } from './hop.ts';
import { failure, passHop, type CallInFlight, type Opening } from './hopLoop.ts';
import { AuditWriteError, callRecorder } from '../gate/callRecords.ts';
import { messageOf } from '../../../contract/values.ts';
import { apiKeyEnv } from '../secrets/resolveCredential.ts';
import { FILE_STORE_FLAG } from '../secrets/secretStoreView.ts';
import { gateContext, type EgressGateOptions, type GateContext } from './gateContext.ts';
import type { RunContext } from '../gate/runContext.ts';

export type { GateApi, EgressGateOptions } from './gateContext.ts';
export { MASK } from './credentialPlacement.ts';
export { requestHash } from './gateDecision.ts';

export interface EgressGate {
  call(request: ApiCallRequest, run: RunContext): Promise<ApiCallResult>;
  /** Whether an operation is treated as a mutation under this profile. */
  isMutation(op: ApiOperation): boolean;
  /** A redactor for the current credential (logs, audit, errors). */
  redactor(): Promise<Redactor>;
}

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const gate = gateContext(options);
  return {
    call: async (request, run) => {
      try {
        return await handleCall(gate, request, run);
      } catch (error) {
        if (error instanceof AuditWriteError)
          return gateError('airlock_audit_failed', 'the audit log could not record this call, so its result is withheld; see the Airlock log');
        gate.log.error(`egress gate failure: ${(error as Error).stack ?? error}`);
        return gateError('airlock_internal_error', 'the gate failed to handle this call; see the Airlock log');
      }
    },
    isMutation: (op) => isMutation(op, options.api.profile),
    // The key is resolved first: resolving it is what tells the shared redactor about it.
    redactor: async () => redactorFor(options.redactor(), (await options.getCredential()) || undefined),
  };
}

/**
 * The process-wide redactor, which knows the key once it was resolved; if it somehow does not, one for the key
 * alone, so an answer never goes back unscrubbed (a second layer: the gate does not trust its wiring).
 */
function redactorFor(shared: Redactor, credential: string | undefined): Redactor {
  return !credential || shared.leaks(credential) ? shared : createRedactor([credential]);
}

/** One call: its key and recorder, then its first hop down the decision path, whose scope is the call's. */
async function handleCall(gate: GateContext, call: ApiCallRequest, run: RunContext): Promise<ApiCallResult> {
  const started = performance.now();
  const startedAt = gate.now().toISOString();
  let credential: string | undefined;
  let unavailable: Unavailable | undefined;
  try {
    credential = (await gate.options.getCredential()) || undefined;
  } catch (error) {
    const { line, store } = error as { line?: string; store?: string };
    unavailable = { line: line ?? messageOf(error), ...(store !== undefined ? { store } : {}) };
  }
  const redact = redactorFor(gate.options.redactor(), credential);
  const recorder = callRecorder(gate.records, { run, operationId: call?.operationId, redact, started, startedAt });
  const inFlight = { run, credential, redact, recorder };
  return await passHop(gate, () => callScope(gate, call, inFlight, unavailable), 0, inFlight);
}

/** The key could not be read: the store's error line, and which store it was (the advice differs). */
interface Unavailable {
  line: string;
  store?: string;
}

/** What the person running Airlock can do when an API's key cannot be read: what works for this API, with this store. */
function credentialFix(profile: string, store: string | undefined): string {
  const variable = `start Airlock with this API's key in ${apiKeyEnv(profile)}`;
  if (store === 'file') return `The person running Airlock can fix the key file, or ${variable}.`;
  return (
    `The person running Airlock can fix the keychain, or ${variable}, ` +
    `or with \`${FILE_STORE_FLAG}\` (keys kept in a plaintext file) and set it with \`airlock keys set ${profile}\`.`
  );
}

/**
 * The scope of an API call (the path's first step, after the kill switch): the key can be read, the operation is
 * the document's, the request is well-formed, and its origin's address is one the policy lets the gate reach.
 */
async function callScope(gate: GateContext, call: ApiCallRequest, inFlight: CallInFlight, unavailable: Unavailable | undefined): ReturnType<Opening> {
  if (unavailable !== undefined) {
    // The store is down and no variable holds this API's key: say so, never send unauthenticated behind the person's back.
    const fix = credentialFix(gate.api.profile.name, unavailable.store);
    return {
      refusal: stop('airlock_credential_unavailable', `${unavailable.line}. ${fix}`, 'refused'),
      recorded: { error: unavailable.line, durationMs: 0 },
    };
  }
  const op = typeof call?.operationId === 'string' ? gate.api.catalogue.byId(call.operationId) : undefined;
  if (!op) return { refusal: stop('airlock_unknown_operation', `unknown operation '${String(call?.operationId)}'`, 'refused') };
  const first = firstHop(op, call, gate.basePath, gate.placement);
  if (!first.ok) return { refusal: stop('airlock_invalid_request', inFlight.redact(first.message), 'refused'), op };
  try {
    const pinned = await gate.pin(gate.origin.hostname);
    if (gate.api.auth.type !== 'none' && !inFlight.credential)
      gate.log.warn(`${op.id}: no API key configured; sending without credentials`, { runId: inFlight.run.runId });
    return { hop: first.hop, pinned };
  } catch (error) {
    return { refusal: failure(gate, error as Error, inFlight), hop: first.hop };
  }
}
