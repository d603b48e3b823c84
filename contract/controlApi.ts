// The one interface the renderer (and the CLI) talks to. Two adapters
// implement it — the Electron preload bridge and the loopback HTTP + event
// stream client — and a fake implements it for component tests.
import type { ControlInput, ControlMethod, ControlOutput } from './control.ts';
import type { ControlEvent } from './events.ts';
import type { ErrorCode } from './errors.ts';

export interface ControlApi {
  call<M extends ControlMethod>(method: M, input: ControlInput<M>): Promise<ControlOutput<M>>;
  /** Subscribes to event batches (replaying logs after `since`); returns the unsubscribe function. */
  events(onBatch: (events: ControlEvent[]) => void, options?: { since?: number }): () => void;
}

/** What a failed call rejects with, on every adapter. */
export class ControlError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = 'ControlError';
    this.code = code;
    this.hint = hint;
  }
}
