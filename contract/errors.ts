// One error envelope for everything that leaves the core: control API
// answers (HTTP, IPC, web), CLI lines and the UI. A code a program can branch
// on, a message a person can act on, an optional hint naming the way forward.
import { z } from 'zod';

export const ERROR_CODES = ['bad_input', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'unavailable', 'denied', 'timeout', 'internal'] as const;
export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: errorCodeSchema,
    message: z.string(),
    hint: z.string().optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** The HTTP status each code travels with on the loopback control API. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  denied: 403,
  timeout: 504,
  internal: 500,
};
