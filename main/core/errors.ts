// Errors a person can act on. Every error that reaches a user (CLI line, MCP
// tool result, control API) is an AirlockError whose message says what was
// wrong and what to do; anything else is a bug and is reported as such.

export type ErrorKind =
  | 'usage' // a bad flag, value or argument: the CLI exits 2
  | 'config' // a bad profile or settings file
  | 'spec' // an OpenAPI document that cannot be loaded
  | 'network' // a fetch that failed
  | 'conflict' // a port in use, a server already running
  | 'internal';

export class AirlockError extends Error {
  readonly kind: ErrorKind;
  readonly hint: string | undefined;

  constructor(kind: ErrorKind, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AirlockError';
    this.kind = kind;
    this.hint = options.hint;
  }

  /** One line for a terminal: the message, then the hint if any. */
  get line(): string {
    return this.hint ? `${this.message} (${this.hint})` : this.message;
  }
}

export function usageError(message: string, hint?: string): AirlockError {
  return new AirlockError('usage', message, hint === undefined ? {} : { hint });
}

export function errorMessage(error: unknown): string {
  if (error instanceof AirlockError) return error.line;
  if (error instanceof Error) return error.message;
  return String(error);
}
