// Live log lines as they cross a process boundary (control API, event
// stream, IPC, the UI), and the query every surface filters them with.
import { z } from 'zod';
import { LOG_LEVELS } from './names.ts';

export { LOG_LEVELS };
export const logLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof logLevelSchema>;

export const logEntrySchema = z.object({
  seq: z.number(),
  time: z.string(),
  level: logLevelSchema,
  /** `core`, `http`, `mcp`, `sandbox`, `ui`, … */
  source: z.string(),
  message: z.string(),
  runId: z.string().optional(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

export const logQuerySchema = z
  .object({
    /** Minimum level. */
    level: logLevelSchema.optional(),
    source: z.string().max(100).optional(),
    /** Case-insensitive substring. */
    grep: z.string().max(200).optional(),
    /** A sequence number (exclusive) or an ISO time (inclusive). */
    since: z.union([z.number().int().min(0), z.string().max(40)]).optional(),
    /** The newest N that match. */
    limit: z.number().int().min(1).max(5000).optional(),
    runId: z.string().max(100).optional(),
  })
  .strict();
export type LogQuery = z.infer<typeof logQuerySchema>;

/** What the renderer sends to the live log (its console output, errors, uncaught exceptions). */
export const uiLogLineSchema = z
  .object({
    level: logLevelSchema,
    message: z.string().max(8000),
  })
  .strict();
