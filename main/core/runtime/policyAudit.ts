// What the organisation's managed policy refused or undid goes into the audit
// (issue 40 §1), beside the calls: an API or server it would not add or
// serve, a setting or engine it would not let change, an approval wider than
// it allows, and what a new policy stopped, disabled or revoked. One record
// each, of the tool `managed-policy`, made by the companion itself
// (transport `internal`), naming who asked and the policy's reason.
import type { AuditStore } from '../audit/auditStore.ts';
import type { Logger } from '../log/logger.ts';

/** The audit's name for what the managed policy did. */
export const POLICY_TOOL = 'managed-policy';

export interface PolicyEvent {
  /** What was asked or done: `apis.add`, `settings.update`, `grant revoked`, … */
  action: string;
  /** Who asked: the screen, the CLI, a client, or the policy itself when a new one arrived. */
  by: string;
  /** The policy's reason, as the person was told it. */
  why: string;
  /** `refused` (something asked was not done), or what a new policy undid: `stopped`, `disabled`, `revoked`. */
  outcome?: 'refused' | 'stopped' | 'disabled' | 'revoked';
}

/** Records one event of the managed policy; a failure to record is the caller's to log, never a reason to let the thing through. */
export async function recordPolicyEvent(audit: Pick<AuditStore, 'recordToolCall'>, event: PolicyEvent): Promise<void> {
  await audit.recordToolCall({
    transport: 'internal',
    clientName: event.by,
    tool: POLICY_TOOL,
    outcome: event.outcome ?? 'refused',
    durationMs: 0,
    input: { action: event.action },
    bytesOut: 0,
    error: event.why,
  });
}

/** Records what the policy did, logging (never throwing) a failure to; `once` records an event the first time only (a refused server at each try). */
export interface PolicyRecorder {
  record(event: PolicyEvent): void;
  once(event: PolicyEvent): void;
}

export function policyRecorder(audit: Pick<AuditStore, 'recordToolCall'>, logger: Logger): PolicyRecorder {
  const seen = new Set<string>();
  const record = (event: PolicyEvent) =>
    void recordPolicyEvent(audit, event).catch((error: unknown) =>
      logger.error(`the audit could not record what the managed policy did (${event.action}): ${(error as Error).message}`),
    );
  return {
    record,
    once(event) {
      const key = `${event.action}\n${event.why}`;
      if (seen.has(key)) return;
      if (seen.size > 1_000) seen.clear();
      seen.add(key);
      record(event);
    },
  };
}
