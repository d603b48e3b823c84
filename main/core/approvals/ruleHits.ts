// How many calls each operation's rule let through, held for a person, or
// refused, and when the last one was — counted from the audit, so the counts
// survive a reload of the page and a restart. The counter reads the audit's
// API-call records once, then only the records written since (a cursor on
// the chain's sequence number), so a screen that asks often costs little.
import type { ApiCallEntry, AuditPage, AuditQuery } from '../audit/types.ts';
import type { RuleHits } from '../../../contract/rules.ts';
import { passedWithoutAsking } from '../../../contract/approvals.ts';

/** The audit's read side the counter needs. */
export interface AuditReader {
  query(query?: AuditQuery): AuditPage;
}

const PAGE = 500;

/** Which of the three a gate decision counts as. */
export function hitKind(r: Pick<ApiCallEntry, 'decision' | 'approval'>): keyof Omit<RuleHits, 'lastAt' | 'saidNo'> | undefined {
  switch (r.decision) {
    case 'evidence':
      // A read Airlock made for a prompt: not a call of the run, so no rule's hit.
      return undefined;
    case 'pending':
      // Held: counted once it has its outcome (a later record).
      return undefined;
    case 'interrupted':
      return 'asked';
    case 'read':
    case 'allowed':
      return 'allowed';
    case 'approved':
      // Through a grant or an earlier "rest of this run": no one was asked for this call.
      return r.approval && passedWithoutAsking(r.approval) ? 'allowed' : 'asked';
    case 'denied':
      return r.approval ? 'asked' : 'refused';
    case 'refused':
      // An approved request that changed before it left was asked; a read-only refusal was not.
      return r.approval ? 'asked' : 'refused';
  }
}

export class RuleHitCounter {
  private readonly audit: AuditReader;
  private readonly belongs: (r: ApiCallEntry) => boolean;
  private readonly byOperation = new Map<string, RuleHits>();
  private cursor = 0;
  private oldest: string | undefined;

  /** `belongs`: whether an API call went through the active profile (older records do not name their profile: their URL tells). */
  constructor(audit: AuditReader, belongs: (r: ApiCallEntry) => boolean) {
    this.audit = audit;
    this.belongs = belongs;
  }

  /** Reads the API calls recorded since the last time. */
  catchUp(): void {
    for (;;) {
      const page = this.audit.query({ kind: 'api', order: 'oldest', after: this.cursor, limit: PAGE });
      for (const r of page.records) {
        this.cursor = Math.max(this.cursor, r.seq);
        if (r.kind !== 'api' || !this.belongs(r)) continue;
        const kind = hitKind(r);
        if (!kind) continue;
        this.oldest ??= r.time;
        const hits = this.byOperation.get(r.operationId) ?? { allowed: 0, asked: 0, saidNo: 0, refused: 0 };
        hits[kind]++;
        // Asked, and not let through: a person's no, an unanswered prompt, nobody to ask.
        if (kind === 'asked' && r.decision === 'denied') hits.saidNo++;
        if (!hits.lastAt || r.time > hits.lastAt) hits.lastAt = r.time;
        this.byOperation.set(r.operationId, hits);
      }
      if (page.next === undefined) return;
    }
  }

  hits(operationId: string): RuleHits {
    const h = this.byOperation.get(operationId);
    return h ? { ...h } : { allowed: 0, asked: 0, saidNo: 0, refused: 0 };
  }

  /** The time of the oldest call counted. */
  get countedSince(): string | undefined {
    return this.oldest;
  }
}
