// What a call that a person did not approve comes back as, for every kind of
// call (an API's operation, another MCP server's tool): one table from why it
// was not approved to the error code the script or the client reads. Only a
// plain "no" names the kind of call (a mutation, a tool); the rest are the
// same whatever was held.
import type { DENIAL_CODES } from '../../../contract/approvals.ts';

type DenialCode = (typeof DENIAL_CODES)[number];

/** The error code for a call not approved for `why`; `denied` is the code of a person's "no" for this kind of call. */
export function notApprovedCode(why: DenialCode, denied: string): string {
  switch (why) {
    case 'no_approver':
      return 'airlock_approval_required';
    case 'timeout':
      return 'airlock_approval_timeout';
    case 'withdrawn':
      return 'airlock_approval_withdrawn';
    case 'denied':
      return denied;
  }
}
