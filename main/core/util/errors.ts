// Errors a person can act on. Every error that reaches a user (CLI line, MCP
// tool result, control API, the UI) is an AirlockError whose message says what
// was wrong and what to do; anything else is a bug and is reported as such.
// Each kind maps to one code of the contract's error envelope, so every
// surface reports the same failure the same way.
import type { ErrorCode, ErrorEnvelope } from '../../../contract/errors.ts';
import { messageOf } from '../../../contract/values.ts';

export type ErrorKind =
  | 'usage' // a bad flag, value or argument: the CLI exits 2
  | 'config' // a bad profile or settings file
  | 'spec' // an OpenAPI document that cannot be loaded
  | 'network' // a fetch that failed
  | 'conflict' // a port in use, a server already running, an approval already answered
  | 'not_found' // no such approval, grant, profile
  | 'unavailable' // the keychain, a running companion
  | 'denied' // refused by policy or by a person
  | 'internal';

const CODES: Record<ErrorKind, ErrorCode> = {
  usage: 'bad_input',
  config: 'bad_input',
  spec: 'bad_input',
  network: 'unavailable',
  conflict: 'conflict',
  not_found: 'not_found',
  unavailable: 'unavailable',
  denied: 'denied',
  internal: 'internal',
};

export class AirlockError extends Error {
  readonly kind: ErrorKind;
  readonly hint: string | undefined;

  constructor(kind: ErrorKind, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AirlockError';
    this.kind = kind;
    this.hint = options.hint;
  }

  /** The contract's error code for this kind. */
  get code(): ErrorCode {
    return CODES[this.kind];
  }

  /** One line for a terminal: the message, then the hint if any. */
  get line(): string {
    return this.hint ? `${this.message} (${this.hint})` : this.message;
  }
}

export function usageError(message: string, hint?: string): AirlockError {
  return new AirlockError('usage', message, hint === undefined ? {} : { hint });
}

/** What a thrown value says, for a person: an AirlockError's line (its message and hint), else its message. */
export function errorMessage(error: unknown): string {
  return error instanceof AirlockError ? error.line : messageOf(error);
}

/**
 * The envelope an error leaves the core in. Anything that is not an
 * AirlockError is a bug: its text stays in the log, the caller reads
 * "internal error".
 */
export function toErrorEnvelope(error: unknown): ErrorEnvelope {
  if (error instanceof AirlockError) {
    return { error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
  }
  return { error: { code: 'internal', message: 'internal error: see the Airlock log' } };
}
