// The record step of the decision path (decisionPath.ts): how a call is
// written down, whatever its kind — the record's who (run, caller, profile)
// and the person's answer built in one place; for an API call, one record per
// hop, sent, handed back or refused, its URL and error redacted, added to the
// run's calls (later approval requests list them), logged in one line (the
// path only: the log is readable by every client), and given to the audit. A
// record the audit cannot take withholds the call's result (AuditWriteError:
// fail closed).
import { performance } from 'node:perf_hooks';
import type { ApiOperation } from '../openapi/catalogue.ts';
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { Logger } from '../log/logger.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';
import type { ApiCallRecord, GateDecision } from '../audit/types.ts';
import type { ApprovalDecision } from '../approvals/types.ts';
import type { RunContext } from './runContext.ts';
import { messageOf } from '../../../contract/values.ts';

/** The audit could not record a call: its result is withheld. */
export class AuditWriteError extends Error {}

/** Where a gate's records go. */
export interface RecordSink {
  profile: string;
  log: Logger;
  onApiCall?(record: ApiCallRecord): void | Promise<unknown>;
}

/** A hop the gate does not complete: what the script gets, the record's decision, and the person's answer when one was asked. */
export interface Refusal {
  result: ApiCallResult;
  decision: GateDecision;
  approval?: ApprovalDecision | undefined;
}

type HopFields = Partial<ApiCallRecord> & Pick<ApiCallRecord, 'decision' | 'status'>;

export interface CallRecorder {
  /** Records one hop of the call; throws AuditWriteError when the audit cannot take it. */
  record(op: ApiOperation | undefined, method: string, fields: HopFields): Promise<void>;
  /** Records a refused hop and returns what the script gets, its error redacted. */
  refuse(op: ApiOperation | undefined, method: string, refusal: Refusal, url?: string): Promise<ApiCallResult>;
}

/** The record of one request: who made it (run, caller, profile), then what it was. */
export function callRecord(
  run: { runId: string; caller: { key: string; clientName?: string } },
  profile: string,
  fields: Omit<ApiCallRecord, 'runId' | 'callerKey' | 'clientName' | 'profile'>,
): ApiCallRecord {
  return { runId: run.runId, callerKey: run.caller.key, ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}), profile, ...fields };
}

/** The `approval` field of a record, from a person's (or a grant's) answer; nothing without one. */
export function approvalField(d: ApprovalDecision | undefined): Pick<ApiCallRecord, 'approval'> {
  if (!d) return {};
  return {
    approval: d.approved
      ? { by: d.by, at: d.at, scope: d.scope, ...(d.grantId ? { grantId: d.grantId } : {}), ...(d.id ? { id: d.id } : {}) }
      : { by: d.by, at: d.at, reason: d.reason, code: d.code, ...(d.id ? { id: d.id } : {}) },
  };
}

/** The recorder of one call: its hops' records share its run, start time and redactor. */
export function callRecorder(
  sink: RecordSink,
  call: { run: RunContext; operationId: unknown; redact: Redactor; started: number; startedAt: string },
): CallRecorder {
  const { run, redact } = call;
  const record: CallRecorder['record'] = async (op, method, fields) => {
    const full = callRecord(run, sink.profile, {
      operationId: op?.id ?? String(call.operationId ?? ''),
      callKind: 'api-call',
      method,
      url: '',
      bytes: 0,
      durationMs: performance.now() - call.started,
      startedAt: call.startedAt,
      ...fields,
    });
    if (full.error) full.error = redact(full.error);
    full.url = redact(full.url);
    await emit(sink, run, full);
  };
  return {
    record,
    refuse: async (op, method, { result, decision, approval }, url = '') => {
      const message = (result.error as { message?: string }).message ?? '';
      await record(op, method, { decision, status: result.status, url, error: message, ...approvalField(approval) });
      return { ...result, error: redactDeep(result.error, redact) };
    },
  };
}

async function emit(sink: RecordSink, run: RunContext, full: ApiCallRecord): Promise<void> {
  run.calls.push({ callKind: 'api-call', method: full.method ?? '', url: full.url, status: full.status, decision: full.decision });
  // The path without its query (search terms, filters): the log is readable by every client through server_log; the audit has the rest.
  const sent = full.method ? ` ${full.method} ${pathOnly(full.url)}${full.status ? ` → ${full.status}` : ''}` : '';
  sink.log.info(`${full.operationId || 'call'}: ${full.decision}${sent}${full.error ? ` (${full.error})` : ''}`, { runId: full.runId });
  try {
    await sink.onApiCall?.(full);
  } catch (error) {
    // Fail closed: a call that cannot be audited does not hand its result back.
    sink.log.error(`recording an API call failed: ${messageOf(error)}`);
    throw new AuditWriteError(messageOf(error));
  }
}

/** A URL's path, without origin or query. */
function pathOnly(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
