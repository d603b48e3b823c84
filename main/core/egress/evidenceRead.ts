// The read behind the evidence a person sees beside a held PATCH, PUT or
// DELETE (evidence.ts decides what to read and what to show): a GET to the
// profile's own origin and pinned address, with the call's key in its place,
// no redirect followed, a short deadline and a size cap. Its answer goes to
// the prompt only, never back to the script; it is audited like any request
// that carries the key (decision "evidence"), before the prompt shows it.
import { performance } from 'node:perf_hooks';
import { classifyRequest } from './classify.ts';
import { credentialProblem, injectCredential } from './credentialPlacement.ts';
import { gatherEvidence, type EvidenceRead, type EvidenceRun, type EvidenceSource } from './evidence.ts';
import { callRecord } from '../gate/callRecords.ts';
import type { GateContext } from './gateContext.ts';
import type { Redactor } from '../log/redactor.ts';
import { messageOf } from '../../../contract/values.ts';

/** The evidence of one call's held hops, read with that call's key. */
export function evidenceSource(gate: GateContext, credential: string | undefined): EvidenceSource {
  return async (hop, method, redact, run) => {
    // Only for a person who will see it: not when a grant answers, nor when nobody can be asked in Airlock.
    const asks = gate.options.approvals?.asksPerson?.({
      runId: run.runId,
      profile: gate.api.profile.name,
      operationId: hop.op.id,
      callerKey: run.caller.key,
      ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}),
      ...(run.caller.clientToken ? { clientTokenId: run.caller.clientToken.id } : {}),
      ...(hop.override ? { overridden: true } : {}),
    });
    if (asks === false) return undefined;
    return gatherEvidence(hop, method, {
      catalogue: gate.api.catalogue,
      isPlainRead: (read) => classifyRequest({ op: read, method: 'GET', profile: gate.policyProfile }).kind === 'read',
      basePath: gate.basePath,
      redact,
      log: gate.log,
      runId: run.runId,
      ...(run.signal ? { signal: run.signal } : {}),
      read: evidenceRead(gate, credential, redact, run),
    });
  };
}

function evidenceRead(gate: GateContext, credential: string | undefined, redact: Redactor, run: EvidenceRun): EvidenceRead {
  return async (pathAndQuery, { operationId, ...limits }) => {
    const problem = credentialProblem(gate.placement, credential, gate.api.profile.name);
    if (problem) throw new Error(problem);
    const request = injectCredential(gate.placement, { headers: { accept: 'application/json' }, pathAndQuery }, credential);
    const startedAt = gate.now().toISOString();
    const started = performance.now();
    const audit = (status: number, bytes: number, error?: string) =>
      Promise.resolve(
        gate.options.onApiCall?.(
          callRecord(run, gate.api.profile.name, {
            operationId,
            callKind: 'api-call',
            method: 'GET',
            url: redact(new URL(pathAndQuery, gate.origin).href),
            status,
            durationMs: performance.now() - started,
            bytes,
            decision: 'evidence',
            ...(error ? { error } : {}),
            startedAt,
          }),
        ),
      ).catch((e: unknown) => gate.log.error(`recording the evidence read failed: ${messageOf(e)}`));
    try {
      const pinned = await gate.pin(gate.origin.hostname);
      const response = await gate.transport({ origin: gate.origin, pinned, method: 'GET', ...request, ...limits });
      await audit(response.status, response.body.length);
      return response;
    } catch (error) {
      await audit(0, 0, messageOf(error));
      throw error;
    }
  };
}
