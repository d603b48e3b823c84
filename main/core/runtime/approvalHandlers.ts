// The approval queue's methods and the grants it keeps: list, decide, deny
// all; list and revoke grants. Every decision names who made it.
import type { ControlHandlers } from '../control/dispatch.ts';
import type { Services } from './services.ts';

export type ApprovalHandlerServices = Pick<Services, 'broker'>;

export function createApprovalHandlers(
  c: ApprovalHandlerServices,
): Pick<ControlHandlers, 'approvals.list' | 'approvals.decide' | 'approvals.denyAll' | 'grants.list' | 'grants.revoke' | 'grants.revokeAll'> {
  return {
    'approvals.list': () => c.broker.list(),
    'approvals.decide': ({ id, decision, scope, reason, answer }, caller) =>
      c.broker.decide(
        id,
        decision === 'approve' ? { approve: true, scope: scope ?? 'once', ...(answer ? { answer } : {}) } : { approve: false, ...(reason ? { reason } : {}) },
        caller.by,
      ),
    'approvals.denyAll': ({ reason }, caller) => ({ denied: c.broker.denyAll(reason, caller.by) }),
    'grants.list': () => c.broker.grants.list(),
    'grants.revoke': ({ id }, caller) => ({ revoked: c.broker.grants.revoke(id, caller.by) }),
    'grants.revokeAll': (_input, caller) => ({ revoked: c.broker.grants.revokeAll(caller.by) }),
  };
}
