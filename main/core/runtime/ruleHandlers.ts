// The Rules view's methods: every operation of a served API (the primary one
// unless another is named) with its
// policy, the grants that cover it, what is in effect for its next call and
// the hit counts (from the audit); and the Answered list — held calls that
// were answered — read from the audit, so it survives a reload.
import type { ControlHandlers } from '../control/dispatch.ts';
import type { Services } from './services.ts';
import type { ApiCallEntry } from '../audit/types.ts';
import type { Answered, RuleOperation } from '../../../contract/rules.ts';
import { GRANT_SCOPE_INFO, passedWithoutAsking, type Grant } from '../../../contract/approvals.ts';
import { callKindOf, httpMethodOf } from '../../../contract/calls.ts';
import { classifyRequest } from '../egress/classify.ts';
import { RuleHitCounter } from '../approvals/ruleHits.ts';
import { AirlockError } from '../util/errors.ts';

/** Pages read per decision when collecting the Answered list. */
const ANSWERED_PAGES = 4;

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const grantWho = (g: Grant) => (g.scope === 'session' ? (g.clientName ?? g.callerKey ?? 'a session') : (g.clientName ?? 'a client'));

/** What the next call of an operation meets, grants included. */
export function effectiveOf(kind: 'read' | 'allow' | 'ask' | 'deny' | 'read-only', grants: Grant[]): RuleOperation['effective'] {
  switch (kind) {
    case 'read':
      return { kind: 'allow', text: 'Allowed: a read' };
    case 'read-only':
      return { kind: 'deny', text: 'Refused: the profile is read-only' };
    case 'deny':
      return { kind: 'deny', text: grants.length > 0 ? 'Refused by the policy (its grants are not used)' : 'Refused by the policy' };
    case 'allow':
      return { kind: 'allow', text: 'Allowed without asking (policy)' };
    case 'ask': {
      const every = grants.find((g) => g.scope === 'always') ?? grants.find((g) => g.scope === 'everyone-session');
      if (every) return { kind: 'allow', text: `Allowed: grant for ${GRANT_SCOPE_INFO[every.scope].label}` };
      if (grants.length > 0) {
        const names = [...new Set(grants.map(grantWho))];
        return { kind: 'some', text: `Allowed for ${names.join(', ')} (grant); other clients are asked` };
      }
      return { kind: 'ask', text: 'Asks a person' };
    }
  }
}

export type RuleHandlerServices = Pick<Services, 'apis' | 'audit' | 'broker' | 'sessions'>;

export function createRuleHandlers(c: RuleHandlerServices): Pick<ControlHandlers, 'rules.list' | 'approvals.answered'> {
  /** One hit counter per API: its records name it (older ones, from before records named their API: its origin). */
  const counters = new Map<string, RuleHitCounter>();
  const counterOf = (name: string, baseUrl: string) => {
    let counter = counters.get(name);
    if (!counter) {
      const origin = originOf(baseUrl);
      counter = new RuleHitCounter(c.audit, (r) => (r.profile !== undefined ? r.profile === name : originOf(r.url) === origin));
      counters.set(name, counter);
    }
    return counter;
  };
  /** Run id → the client that ran it (from the run's tool record, once it is written). */
  const clients = new Map<string, string>();

  const clientOfRun = (r: ApiCallEntry): string => {
    if (r.clientName) return r.clientName;
    const known = clients.get(r.runId);
    if (known) return known;
    const tool = c.audit.query({ kind: 'tool', runId: r.runId, limit: 1 }).records[0];
    const name = (tool?.kind === 'tool' ? tool.clientName : undefined) ?? c.sessions.list().find((s) => s.key === r.callerKey)?.clientName;
    if (!name) return r.callerKey;
    if (tool) {
      if (clients.size > 2000) clients.clear();
      clients.set(r.runId, name);
    }
    return name;
  };

  return {
    'rules.list': ({ profile: name }) => {
      const served = name === undefined ? c.apis.primary() : c.apis.get(name)?.opened;
      if (!served) throw new AirlockError('not_found', `API '${name}' is not served (or not loaded yet)`, { hint: 'see `airlock apis list`' });
      const { api, gate } = served;
      const counter = counterOf(api.profile.name, api.baseUrl);
      counter.catchUp();
      const profile = api.profile;
      const grants = c.broker.grants.list();
      const policyProfile = { ...profile, operationPolicies: profile.operationPolicies ?? {} };
      const operations = api.catalogue.operations.map((op): RuleOperation => {
        const own = profile.operationPolicies?.[op.id];
        const mutation = gate.isMutation(op);
        const verdict = classifyRequest({ op, method: op.method, profile: policyProfile });
        const covering = grants.filter((g) => g.profile === profile.name && g.operationId === op.id);
        return {
          operationId: op.id,
          method: op.method,
          path: op.path,
          ...(op.summary ? { summary: op.summary } : {}),
          mutation,
          destructive: op.method.toUpperCase() === 'DELETE',
          policy: own ?? (mutation ? profile.policy : 'allow'),
          policySource: own ? 'operation' : mutation ? 'profile' : 'read',
          effective: effectiveOf(verdict.kind, covering),
          hits: counter.hits(op.id),
          grantIds: covering.map((g) => g.id),
        };
      });
      return {
        profile: { name: profile.name, policy: profile.policy, readOnly: profile.readOnly },
        operations,
        grants,
        ...(counter.countedSince ? { countedSince: counter.countedSince } : {}),
      };
    },

    'approvals.answered': ({ limit }) => {
      const want = limit ?? 50;
      const found: ApiCallEntry[] = [];
      // A held call leaves an API record with the answer (approved, denied, or refused when the request changed after the yes).
      for (const decision of ['approved', 'denied', 'refused'] as const) {
        let before: number | undefined;
        let kept = 0;
        for (let i = 0; i < ANSWERED_PAGES && kept < want; i++) {
          const page = c.audit.query({ kind: 'api', decision, order: 'newest', limit: 200, ...(before !== undefined ? { before } : {}) });
          for (const r of page.records) {
            if (r.kind !== 'api' || !r.approval) continue;
            // Let through by a grant or an earlier yes in the run, or nobody could be asked: not an answer.
            if (passedWithoutAsking(r.approval) || r.approval.code === 'no_approver') continue;
            found.push(r);
            kept++;
          }
          if (page.next === undefined) break;
          before = page.next;
        }
      }
      return found
        .sort((a, b) => b.seq - a.seq)
        .slice(0, want)
        .map((r): Answered => ({
          seq: r.seq,
          runId: r.runId,
          at: r.approval!.at,
          ...(r.profile ? { profile: r.profile } : {}),
          operationId: r.operationId,
          callKind: callKindOf(r),
          ...(httpMethodOf(r) ? { method: httpMethodOf(r) } : {}),
          url: r.url,
          client: clientOfRun(r),
          approved: r.decision === 'approved',
          by: r.approval!.by,
          ...(r.approval!.scope ? { scope: r.approval!.scope } : {}),
          ...(r.approval!.reason ? { reason: r.approval!.reason } : {}),
          ...(r.approval!.code ? { code: r.approval!.code } : {}),
        }));
    },
  };
}
