// A held request narrowed to the kind a test expects, failing the test when it is another kind.
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../../contract/approvals.ts';

export function ofKind<K extends ApprovalRequest['kind']>(request: ApprovalRequest, kind: K): Extract<ApprovalRequest, { kind: K }> {
  assert.equal(request.kind, kind, `a ${kind} request`);
  return request as Extract<ApprovalRequest, { kind: K }>;
}
