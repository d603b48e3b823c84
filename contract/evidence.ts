// What a person sees beside a held PATCH, PUT or DELETE: the resource as it
// is now (fetched read-only by the gate), what the request would change in
// it, or what is being deleted — or why nothing could be fetched.
import { z } from 'zod';

export const fieldChangeSchema = z.object({
  /** A dotted path into the resource (`title.fr`, `timings[0].begin`). */
  field: z.string(),
  /** JSON text of the value now (absent: the field is not there yet). */
  before: z.string().optional(),
  /** JSON text of the value the request sends. */
  after: z.string().optional(),
});

export const approvalEvidenceSchema = z.object({
  /** change: a PATCH or PUT's before/after; delete: what a DELETE removes; none: nothing could be fetched. */
  kind: z.enum(['change', 'delete', 'none']),
  /** The read it came from (`GET /events/{eventId}`), when one was made. */
  source: z.string().optional(),
  /** Why there is nothing to show, in words (no matching read, timed out, 404, too large…). */
  note: z.string().optional(),
  /** For a DELETE: the deleted thing's title or name, where the document says which field. */
  title: z.string().optional(),
  changes: z.array(fieldChangeSchema).optional(),
});
export type ApprovalEvidence = z.infer<typeof approvalEvidenceSchema>;
