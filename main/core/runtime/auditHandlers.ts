// The Activity screen's audit methods: a page of records by filter, and the
// hash chain's verification.
import type { AuditEntry } from '../audit/types.ts';
import type { AuditRecord } from '../../../contract/audit.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import type { Services } from './services.ts';

export type AuditHandlerServices = Pick<Services, 'audit'>;

/** An audit entry as the contract shows it (the same flat object the chain hashes). */
export function toAuditRecord(entry: AuditEntry): AuditRecord {
  return entry as unknown as AuditRecord;
}

export function createAuditHandlers(c: AuditHandlerServices): Pick<ControlHandlers, 'audit.query' | 'audit.verify'> {
  return {
    'audit.query': (q) => {
      const page = c.audit.query({
        ...(q.from ? { from: q.from } : {}),
        ...(q.to ? { to: q.to } : {}),
        ...(q.client ? { client: q.client } : {}),
        ...(q.tool ? { tool: q.tool } : {}),
        ...(q.outcome ? { outcome: q.outcome } : {}),
        ...(q.text ? { text: q.text } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.runId ? { runId: q.runId } : {}),
        ...(q.profile ? { profile: q.profile } : {}),
        ...(q.operation ? { operation: q.operation } : {}),
        ...(q.method ? { method: q.method } : {}),
        ...(q.decision ? { decision: q.decision } : {}),
        ...(q.order ? { order: q.order } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...(q.after !== undefined ? { after: q.after } : {}),
        limit: Math.min(q.limit ?? 50, 500),
      });
      return { records: page.records.map(toAuditRecord), ...(page.next !== undefined ? { next: page.next } : {}) };
    },

    'audit.verify': () => c.audit.verify(),
  };
}
