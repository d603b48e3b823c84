// Events pushed to subscribers (SSE for HTTP and the web UI, IPC for the
// desktop), in batches, replayable from a log sequence number.
import { z } from 'zod';
import { logEntrySchema } from './logs.ts';
import { pendingApprovalSchema, approvalDecisionSchema } from './approvals.ts';
import { auditRecordSchema } from './audit.ts';
import { statusSchema } from './status.ts';
import { apiProgressSchema } from './apis.ts';

export const controlEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('log'), entry: logEntrySchema }),
  z.object({ type: z.literal('approval-requested'), approval: pendingApprovalSchema }),
  z.object({ type: z.literal('approval-decided'), id: z.string(), decision: approvalDecisionSchema }),
  /** A pending request changed (its client stopped waiting): replaces the one with the same id. */
  z.object({ type: z.literal('approval-updated'), approval: pendingApprovalSchema }),
  z.object({ type: z.literal('audit'), record: auditRecordSchema }),
  z.object({ type: z.literal('status'), status: statusSchema }),
  z.object({ type: z.literal('grants-changed') }),
  /** An operation's policy changed (the Rules and APIs screens re-read it). */
  z.object({ type: z.literal('rules-changed') }),
  /** An API was enabled, disabled, loaded or failed to load (the APIs and Overview screens re-read apis.list). */
  z.object({ type: z.literal('apis-changed') }),
  /** An API that is loading went on (at most four times a second): its progress, as apis.list would give it. */
  z.object({ type: z.literal('api-progress'), name: z.string(), progress: apiProgressSchema }),
  /** How far reading a document for `profiles.inspect` is (the document as the call gave it). */
  z.object({ type: z.literal('inspect-progress'), spec: z.string(), progress: apiProgressSchema }),
  /** Another MCP server started, stopped, failed, or had its tools accepted (the Servers screen re-reads them). */
  z.object({ type: z.literal('servers-changed') }),
  /** Saved settings took effect in the running companion (the theme, caps…): re-read settings.get. */
  z.object({ type: z.literal('settings-applied'), keys: z.array(z.string()) }),
  /** The subscriber was too slow: this many events were dropped (re-query what matters). */
  z.object({ type: z.literal('dropped'), count: z.number() }),
]);
export type ControlEvent = z.infer<typeof controlEventSchema>;
export const controlEventBatchSchema = z.array(controlEventSchema);
